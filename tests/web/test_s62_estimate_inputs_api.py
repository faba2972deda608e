"""``/api/v1/estimate`` answers the stop-62 inputs as the CLI and the Python API do, in the API's field
names: the engine's KV-cache flag sizes the cache (and disagrees with ``kv_dtype`` as an error naming
both), ``num_requests`` alone is refused naming the loads it needs, ``batch`` takes the range its
description states (as ``concurrency``), and an unknown precision suggests the nearest names."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from gpuscout.estimate.arguments import MAX_CONCURRENCY

BASE = {"model": "llama-3.1-8b", "gpu": "RTX4090"}


def _get(client: TestClient, **params: Any) -> Any:
    return client.get("/api/v1/estimate", params={**BASE, **params})


def _refused(client: TestClient, field: str, **params: Any) -> str:
    r = _get(client, **params)
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    return r.text


def test_the_engines_kv_cache_flag_sizes_the_cache(client: TestClient) -> None:
    fp8 = _get(client, engine="vllm --kv-cache-dtype fp8").json()
    assert fp8["kv_dtype"] == "fp8"  # was bf16, the flag ignored
    said = _refused(client, "kv_dtype", engine="vllm --kv-cache-dtype fp8", kv_dtype="bf16")
    assert "--kv-cache-dtype fp8" in said and "kv_dtype asks for bf16" in said and "--kv-dtype" not in said
    said = _refused(client, "engine", engine="llama.cpp -ctk q8_0 -ctv f16", precision="q4_k_m")
    assert "-ctk q8_0 and -ctv f16" in said


def test_num_requests_alone_names_the_loads_it_needs_in_the_apis_words(client: TestClient) -> None:
    said = _refused(client, "num_requests", num_requests=10)
    assert "request_rate" in said and "--request-rate" not in said
    assert _get(client, num_requests=10, request_rate="inf").status_code == 200


def test_batch_takes_the_range_of_concurrency(client: TestClient) -> None:
    assert _get(client, batch="5000").status_code == 200  # was 422, "1..4096"
    said = _refused(client, "batch", batch=str(MAX_CONCURRENCY + 1))
    assert f"1..{MAX_CONCURRENCY}" in said


def test_an_unknown_precision_suggests_the_nearest_names(client: TestClient) -> None:
    assert "closest known: q4_k_s, q4_k_m" in _refused(client, "precision", precision="Q4_K_XL")
    assert "matches: int4" in _refused(client, "precision", precision="4bit")
    assert _get(client, precision="torch.bfloat16").json()["precision"] == "bf16"
