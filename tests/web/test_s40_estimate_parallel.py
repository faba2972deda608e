"""``/api/v1/estimate`` without ``parallel`` splits the engine's own way, as ``gpuscout.estimate`` and the
CLI do (a layer split for llama.cpp), and the OpenAPI schema says the parameter is optional."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import gpuscout

QUERY = {"model": "llama-3.1-70b", "gpu": "RTX 4090", "gpus": 4, "precision": "q4_k_m"}


def test_estimate_defaults_to_the_engines_split(client: TestClient) -> None:
    r = client.get("/api/v1/estimate", params=QUERY)
    assert r.status_code == 200, r.text
    body = r.json()
    py = gpuscout.estimate("llama-3.1-70b", "RTX 4090", gpus=4, precision="q4_k_m")
    assert body["engine"] == "llama.cpp" and body["parallel"] == "layer"
    assert body["output_tokens_per_s_total"] == pytest.approx(py.output_tokens_per_s_total)
    tensor = client.get("/api/v1/estimate", params={**QUERY, "parallel": "tensor"}).json()
    assert tensor["parallel"] == "tensor"
    assert tensor["output_tokens_per_s_total"] > body["output_tokens_per_s_total"]
    vllm = client.get("/api/v1/estimate", params={**QUERY, "precision": "bf16", "gpu": "H100"}).json()
    assert vllm["parallel"] == "tensor"


def test_openapi_parallel_is_optional_with_the_three_modes(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    params = {p["name"]: p for p in spec["paths"]["/api/v1/estimate"]["get"]["parameters"]}
    parallel = params["parallel"]
    assert not parallel.get("required", False)
    text = str(parallel["schema"])
    assert all(mode in text for mode in ("tensor", "layer", "replicas"))
    assert "engine's own" in parallel.get("description", "")
