"""The JSON API reads keyword values as the CLI and ``gpuscout.estimate`` read them (stop 60, faces pass):
``parallel=pipeline`` / ``Tensor``, ``batch=MAX`` and ``interconnect=NVLink`` were refused with 422 (a
raw regex message for the batch) where both other faces took them."""

from __future__ import annotations

from fastapi.testclient import TestClient

from gpuscout.estimate.api import estimate

BASE = {"model": "llama-3.1-70b", "gpu": "H100", "gpus": 2}


def test_parallel_spellings_are_the_estimators(client: TestClient) -> None:
    for spelling, mode in (("pipeline", "layer"), ("Tensor", "tensor"), (" TP ", "tensor")):
        r = client.get("/api/v1/estimate", params={**BASE, "parallel": spelling})
        assert r.status_code == 200, (spelling, r.text)
        py = estimate("llama-3.1-70b", "H100", gpus=2, parallel=spelling)
        assert r.json()["tpot_ms"] == py.tpot_ms
        assert py.tpot_ms == estimate("llama-3.1-70b", "H100", gpus=2, parallel=mode).tpot_ms
    bad = client.get("/api/v1/estimate", params={**BASE, "parallel": "sideways"})
    assert bad.status_code == 422 and bad.json()["field"] == "parallel"
    assert "tensor, layer, replicas" in bad.text


def test_batch_max_in_any_case(client: TestClient) -> None:
    r = client.get("/api/v1/estimate", params={"model": "llama-3.1-8b", "gpu": "H100", "batch": "MAX"})
    assert r.status_code == 200, r.text
    assert r.json()["batch"] == estimate("llama-3.1-8b", "H100", batch="max").batch


def test_interconnect_in_any_case(client: TestClient) -> None:
    upper = client.get("/api/v1/offers", params={"interconnect": "NVLink"})
    lower = client.get("/api/v1/offers", params={"interconnect": "nvlink"})
    assert upper.status_code == 200, upper.text
    assert upper.json() == lower.json()


def test_the_offers_page_shows_the_interconnect_read_in_any_case(client: TestClient) -> None:
    page = client.get("/", params={"interconnect": "NVLink"})
    assert page.status_code == 200
    assert '<option value="nvlink" selected>' in page.text  # the filter applied is the one shown
