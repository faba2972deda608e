"""POST /api/v1/advise with ``show_rejected``: the offers left out come back, each with why."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_advise_lists_the_offers_left_out_with_reasons_when_asked(client: TestClient) -> None:
    workload = {"kind": "serve", "model": "llama-3.1-70b", "precision": "fp8", "concurrency": 16}
    plain = client.post("/api/v1/advise", json={"workload": workload})
    assert plain.status_code == 200, plain.text
    assert plain.json()["rejected"] == []  # only when asked
    answer = client.post("/api/v1/advise", json={"workload": workload, "show_rejected": True})
    assert answer.status_code == 200, answer.text
    rejected = answer.json()["rejected"]
    assert rejected and all(r["rejected"] and r["rank"] is None for r in rejected)
    shown = {(r["offer"]["provider"], r["offer"]["instance_type"]) for r in answer.json()["recommendations"]}
    assert not shown & {(r["offer"]["provider"], r["offer"]["instance_type"]) for r in rejected}
