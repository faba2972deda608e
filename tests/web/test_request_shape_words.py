"""The advisor's faces on the web name a request's shape as the workload does (``prompt_tokens`` /
``output_tokens``; the form: its labels), not as the estimator does (``context_in`` / ``context_out``);
the estimate API, which takes ``context_in``, keeps the estimator's names. Counts read in the singular
at one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from html import unescape

import pytest
from fastapi.testclient import TestClient

from gpuscout.web.charts import price_history_chart
from tests.web.history_points import Point

# vLLM started with --max-model-len 1000 rejects 2,000 prompt + 256 output tokens: the estimator's error
SHORT_WINDOW = {
    "kind": "serve",
    "model": "llama-3.1-8b",
    "engine": "vllm --max-model-len 1000",
    "prompt_tokens": 2000,
}


@pytest.mark.parametrize("endpoint", ["/api/v1/advise", "/api/v1/recommend"])
def test_the_advise_api_names_the_workloads_fields(client: TestClient, endpoint: str) -> None:
    res = client.post(endpoint, json={"workload": SHORT_WINDOW})
    assert res.status_code == 422, res.text
    body = res.json()
    assert body["field"] == "engine"
    assert "(prompt_tokens + output_tokens: 2,000 + 256)" in body["message"]
    assert body["accepted"] == "--max-model-len >= 2256, or prompt_tokens + output_tokens <= 1000"
    assert "context_in" not in res.text and "context_out" not in res.text


def test_the_advise_form_names_its_labels(client: TestClient) -> None:
    res = client.get("/advise", params={k: str(v) for k, v in SHORT_WINDOW.items()})
    assert res.status_code == 422
    error = unescape(res.text.split('id="err-engine"', 1)[1].split("</span>", 1)[0])
    assert "(“Prompt tokens” + “Output tokens”: 2,000 + 256)" in error
    assert "context_in" not in res.text and "prompt_tokens +" not in error


def test_the_estimate_api_keeps_the_estimators_names(client: TestClient) -> None:
    params = {
        "model": "llama-3.1-8b",
        "gpu": "H100",
        "engine": "vllm --max-model-len 1000",
        "context_in": "2000",
    }
    res = client.get("/api/v1/estimate", params=params)
    assert res.status_code == 422, res.text
    assert "context_in + context_out <= 1000" in res.json()["accepted"]


def test_a_price_history_of_one_provider_says_provider() -> None:
    now = datetime(2026, 12, 1, tzinfo=UTC)
    points = [Point(now - timedelta(days=d), "lambda", 2.0, 2.0) for d in (0, 3)]
    assert price_history_chart(points, "H100-SXM").summary.startswith(
        "Prices of H100-SXM from 1 provider at 2 observation times, "
    )
