"""``/api/v1/estimate?engine=foo``: a 422 whose ``accepted`` lists every engine and the closest names,
and an unknown provider or region is said in plain words ("a known provider id", "a known region").

Regression: ``accepted`` read "a known engine name (closest: hf)", "a known providers name", "a known
regions name".
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from gpuscout.errors import UnknownNameError
from gpuscout.estimate.engines import engine_names
from gpuscout.web.errors import error_body


def test_an_unknown_engine_lists_every_engine_and_the_closest(client: TestClient) -> None:
    r = client.get("/api/v1/estimate", params={"model": "llama-3.1-8b", "gpu": "L4", "engine": "foo"})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["error"] == "unknown_name" and body["field"] == "engine"
    assert body["suggestions"], body
    accepted = body["accepted"]
    assert all(e in accepted for e in engine_names()), accepted
    assert accepted.endswith(f"(closest: {', '.join(body['suggestions'])})")
    assert "a known engine name" not in accepted


def test_provider_and_region_fields_are_said_in_plain_words() -> None:
    for field, words in (
        ("provider", "a known provider id"),
        ("providers", "a known provider id"),
        ("region", "a known region"),
        ("regions", "a known region"),
    ):
        body = error_body(UnknownNameError(field, "nosuch", ["alphacloud"]))
        assert body.accepted == f"{words} (closest: alphacloud)", body.accepted


def test_an_unknown_provider_in_a_request_reads_so(client: TestClient) -> None:
    body = client.get("/api/v1/offers?provider=alphaclod").json()
    assert body["field"] == "provider" and body["accepted"].startswith("a known provider id (closest: ")
