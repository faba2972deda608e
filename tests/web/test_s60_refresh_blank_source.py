"""``POST /api/v1/refresh?source=`` (blank) is a 422 naming the field, as ``gpuscout refresh --source ''``
is an error (stop 60, faces pass): the blank was dropped and the server refreshed every source."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from gpuscout.web import create_app
from gpuscout.web.services import WebServices

TOKEN = "t0ken-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture()
def admin(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, list[object]]]:
    monkeypatch.setenv("GPUSCOUT_ADMIN_TOKEN", TOKEN)
    services = WebServices(db_url, cache_seconds=0)
    calls: list[object] = []
    monkeypatch.setattr(services, "refresh", lambda names: calls.append(names) or [])
    with TestClient(create_app(db_url, services=services)) as client:
        yield client, calls


@pytest.mark.parametrize("source", ["", " ", "snapshot,", ",,"])
def test_a_blank_source_is_refused_before_anything_starts(
    admin: tuple[TestClient, list[object]], source: str
) -> None:
    client, calls = admin
    r = client.post("/api/v1/refresh", params={"source": source}, headers=AUTH)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "source" and "empty" in r.json()["error"] + r.json().get("message", "")
    assert calls == []


def test_no_source_parameter_still_refreshes_every_source(admin: tuple[TestClient, list[object]]) -> None:
    client, calls = admin
    r = client.post("/api/v1/refresh", headers=AUTH)
    assert r.status_code == 202 and r.json()["sources"] == []
    assert calls and calls[-1] is None  # every source
