"""The workload's ``global_batch_tokens`` on the web: the API's advise body takes it (and refuses one
under a sequence naming the field), the advisor's pre-training form has its input (stop 61)."""

from __future__ import annotations

from fastapi.testclient import TestClient

WORKLOAD = {"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 2e10}


def test_the_api_refuses_a_batch_under_one_sequence_naming_the_field(client: TestClient) -> None:
    body = {"workload": {**WORKLOAD, "global_batch_tokens": 1000}}
    r = client.post("/api/v1/advise", json=body)
    assert r.status_code == 422 and r.json()["field"] == "global_batch_tokens", r.text
    ok = client.post("/api/v1/advise", json={"workload": {**WORKLOAD, "global_batch_tokens": "4M"}})
    assert ok.status_code == 200, ok.text


def test_the_pretrain_form_has_the_input(client: TestClient) -> None:
    assert 'name="global_batch_tokens"' in client.get("/advise", params={"kind": "pretrain"}).text
    assert 'name="global_batch_tokens"' not in client.get("/advise", params={"kind": "finetune"}).text
    r = client.get("/advise", params={**WORKLOAD, "token_budget": "2e10", "global_batch_tokens": "1k"})
    assert r.status_code == 422 and 'id="err-global_batch_tokens"' in r.text
