"""The JSON API says an empty model, GPU or engine name is empty, as the CLI and the body's fields do, with
what the name may be: not pydantic's "String should have at least 1 character" accepting "text of 1 to 200
characters", nor "expected a model name or a ModelSpec" for a blank one."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient


@pytest.mark.parametrize(
    ("query", "field", "accepted"),
    [
        ("model=&gpu=H100", "model", "a model name"),
        ("model=%20%20&gpu=H100", "model", "a model name"),
        ("model=llama-3.1-8b&gpu=", "gpu", "a GPU name"),
        ("model=llama-3.1-8b&gpu=%20", "gpu", "a GPU name"),
        ("model=llama-3.1-8b&gpu=H100&engine=", "engine", "llama.cpp, vllm"),
        ("model=llama-3.1-8b&gpu=H100&engine=%20", "engine", "llama.cpp, vllm"),
    ],
)
def test_an_empty_name_is_empty(client: TestClient, query: str, field: str, accepted: str) -> None:
    r = client.get(f"/api/v1/estimate?{query}")
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invalid_input" and body["field"] == field
    assert body["message"].startswith(f"{field}: is empty")
    assert accepted in body["accepted"]
    for wrong in ("at least 1 character", "ModelSpec", "Accelerator", "unknown name", "closest"):
        assert wrong not in body["message"] and wrong not in body["accepted"]


def test_a_blank_model_in_a_body_is_empty_too(client: TestClient) -> None:
    r = client.post("/api/v1/recommend", json={"workload": {"kind": "serve", "model": "  "}})
    assert r.status_code == 422
    assert r.json()["message"].startswith("model: is empty")
