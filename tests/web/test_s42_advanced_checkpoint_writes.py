"""Review 42 H3: the checkpoint write rate (``gpuscout recommend finetune|pretrain --checkpoint-write-gbps``)
is a body field of ``/api/v1/advise`` and ``/api/v1/recommend`` with the CLI's range, for training
workloads only, part of the advice cache's key, and an input of the advisor form's advanced section for
the training kinds (labelled, errors at the field, kept after a submit)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.workload import Workload
from gpuscout.web import advise_form
from gpuscout.web.services import AdvisorOptions, WebServices

FINETUNE = {"kind": "finetune", "model": "llama-3.1-8b", "method": "full", "dataset_tokens": 1e7}
BATCH = {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e8}
SERVE = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 4}


def advise(client: TestClient, workload: dict[str, Any], **options: Any) -> dict[str, Any]:
    r = client.post("/api/v1/advise", json={"workload": workload, **options})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


# ---- the JSON API ------------------------------------------------------------------------------
def test_the_write_rate_is_the_rows_assumption_and_times_the_saves(client: TestClient) -> None:
    default = advise(client, FINETUNE)["recommendations"]
    fast = advise(client, FINETUNE, checkpoint_write_gbps=4)["recommendations"]
    assert default[0]["assumptions"]["checkpoint writes"].startswith("1 GB/s per node")
    assert fast and all(r["assumptions"]["checkpoint writes"].startswith("4 GB/s per node") for r in fast)
    assert "(16.1 GB, 4 s)" in fast[0]["config"]["training"]  # the trained weights, 16 s at 1 GB/s
    recs = client.post(
        "/api/v1/recommend", json={"workload": FINETUNE, "checkpoint_write_gbps": 4, "top": 1}
    ).json()
    assert recs[0]["assumptions"]["checkpoint writes"].startswith("4 GB/s per node")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (0, "greater than or equal to 0.01"),
        (1001, "less than or equal to 1000"),
        (math.nan, "finite number"),
        (math.inf, "finite number"),
    ],
)
def test_a_write_rate_out_of_range_is_a_422_naming_it(client: TestClient, value: float, said: str) -> None:
    body = json.dumps({"workload": FINETUNE, "checkpoint_write_gbps": value})  # NaN, Infinity: extensions
    r = client.post("/api/v1/advise", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "checkpoint_write_gbps" and said in r.json()["message"], r.text


@pytest.mark.parametrize("workload", [SERVE, BATCH])
def test_the_write_rate_is_for_training_only(client: TestClient, workload: dict[str, Any]) -> None:
    r = client.post("/api/v1/advise", json={"workload": workload, "checkpoint_write_gbps": 2})
    assert r.status_code == 422 and r.json()["field"] == "checkpoint_write_gbps"
    assert "training only" in r.json()["message"] and "finetune or pretrain" in r.json()["accepted"]


def test_openapi_describes_the_write_rate_with_the_clis_range(client: TestClient) -> None:
    props = client.get("/openapi.json").json()["components"]["schemas"]["RecommendIn"]["properties"]
    rate = props["checkpoint_write_gbps"]["anyOf"][0]
    assert (rate["minimum"], rate["maximum"]) == (0.01, 1000)
    assert "--checkpoint-write-gbps" in props["checkpoint_write_gbps"]["description"]


def test_the_advice_cache_keys_on_the_write_rate(db_url: str) -> None:
    services = WebServices(db_url, cache_seconds=600)
    workload = Workload.from_dict(dict(FINETUNE))
    rows = {
        rate: services.advice(workload, options=AdvisorOptions(checkpoint_write_gbps=rate)).rows[0]
        for rate in (0.5, 4.0)
    }
    assert rows[0.5].assumptions["checkpoint writes"] != rows[4.0].assumptions["checkpoint writes"]


# ---- the advisor form --------------------------------------------------------------------------
FT = "/advise?kind=finetune&model=llama-3.1-8b&sent=1&method=full&dataset_tokens=10000000"


def advanced(html: str) -> str:
    m = re.search(r'<details class="common advanced" id="advanced"[^>]*>.*?</details>', html, re.S)
    assert m, "no advanced section"
    return m.group(0)


def test_the_training_forms_have_the_write_rate(client: TestClient) -> None:
    assert 'name="checkpoint_write_gbps"' not in advanced(client.get("/advise?kind=serve").text)
    assert 'name="checkpoint_write_gbps"' not in advanced(client.get("/advise?kind=batch").text)
    for kind in ("finetune", "pretrain"):
        section = advanced(client.get(f"/advise?kind={kind}").text)
        assert 'name="checkpoint_write_gbps"' in section and "Checkpoint writes (GB/s)" in section


def test_the_form_ranks_with_the_write_rate_and_keeps_it(client: TestClient) -> None:
    r = client.get(FT + "&checkpoint_write_gbps=4")
    assert r.status_code == 200
    assert "4 GB/s per node to where checkpoints are kept" in r.text
    section = advanced(r.text)
    assert re.match(r"<details[^>]* open", section)
    assert 'name="checkpoint_write_gbps" type="text" inputmode="decimal" value="4"' in section


def test_a_bad_write_rate_is_named_by_its_label_at_its_input(client: TestClient) -> None:
    r = client.get(FT + "&checkpoint_write_gbps=0")
    assert r.status_code == 422
    section = advanced(r.text)
    m = re.search(r'<span class="field-error" id="err-checkpoint_write_gbps">(.*?)</span>', section, re.S)
    assert m and "Checkpoint writes (GB/s) must be a number from 0.01 to 1,000" in m.group(1), section


def test_the_request_reads_the_write_rate_for_training_kinds_only() -> None:
    params = {"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": "1e9", "sent": "1"}
    req = advise_form.parse_request({**params, "checkpoint_write_gbps": "2.5"})
    assert req.options == AdvisorOptions(checkpoint_write_gbps=2.5)
    assert "checkpoint_write_gbps" not in advise_form.build_workload(req).to_dict()
    serve = advise_form.parse_request({"kind": "serve", "model": "x", "checkpoint_write_gbps": "2"})
    assert "checkpoint_write_gbps" not in serve.values and serve.options == AdvisorOptions()
