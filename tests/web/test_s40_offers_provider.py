"""A provider no current offer is from: the same 422 with the closest providers on the comparison page,
its exports and ``/api/v1/offers`` (both paths: the route and the lean one), and an alias is read as
the provider's id everywhere (``catalog/provider_ids.py``)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.web.lean_answers import record_lean_answers


def test_the_api_names_the_closest_providers(client: TestClient) -> None:
    r = client.get("/api/v1/offers?provider=alphaclod")  # was 200 {"total": 0}
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "unknown_name" and body["field"] == "provider"
    assert body["suggestions"][0] == "alphacloud"
    assert "no current offer is from 'alphaclod'" in body["message"]


def test_the_lean_path_hands_the_error_to_the_route(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    answered = record_lean_answers(client, monkeypatch)
    r = client.get("/api/v1/offers?provider=alphaclod")
    assert answered == [False]
    assert r.status_code == 422 and r.json()["suggestions"][0] == "alphacloud"
    r = client.get("/api/v1/offers?provider=AlphaCloud")
    assert answered == [False, True]
    assert r.status_code == 200 and {i["provider"] for i in r.json()["items"]} == {"alphacloud"}


@pytest.mark.parametrize("path", ["/offers.json", "/offers.csv"])
def test_the_exports_refuse_it_too(client: TestClient, path: str) -> None:
    r = client.get(f"{path}?provider=nosuch")  # was 200 with an empty file
    assert r.status_code == 422
    assert "no current offer is from" in r.text
    r = client.get(f"{path}?provider=AlphaCloud")
    assert r.status_code == 200 and "alphacloud" in r.text and "betagpu" not in r.text


def test_the_page_keeps_its_error_at_the_field(client: TestClient) -> None:
    r = client.get("/?provider=alphaclod")
    assert r.status_code == 422
    assert "Provider: no current offer is from “alphaclod”; did you mean one of these?" in r.text
    assert '<a href="/?provider=alphacloud">alphacloud</a>' in r.text


def test_the_json_export_answers_its_error_as_json(client: TestClient) -> None:
    r = client.get("/offers.json?provider=nosuch")  # an HTML error page where a script expects JSON
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/json")
    assert r.json()["field"] == "provider" and "no current offer is from" in r.json()["message"]
