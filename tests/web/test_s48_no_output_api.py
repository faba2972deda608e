"""``/api/v1/estimate?context_out=0``: a prompt-only run answers with no output figures (0) and the note
saying so, as ``gpuscout.estimate`` and the CLI do (tests/estimate/test_s48_no_output.py)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from gpuscout.estimate.api import NO_OUTPUT_NOTE

SETUP = {"model": "llama-3.1-8b", "gpu": "H100-SXM"}


def test_the_web_api_answers_the_same(client: TestClient) -> None:
    r = client.get("/api/v1/estimate", params={**SETUP, "context_in": 2048, "context_out": 0})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (
        body["tpot_ms"] == 0 and body["output_tokens_per_s_total"] == 0 and body["decode_tokens_per_s"] == 0
    )
    assert NO_OUTPUT_NOTE in body["warnings"] and body["ttft_ms"] > 0
