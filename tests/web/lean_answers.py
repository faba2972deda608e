"""Which requests the lean path of ``/api/v1/offers`` answered itself (the rest it hands to the route)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from gpuscout.web import lean_offers
from gpuscout.web.services import WebServices


def record_lean_answers(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Opens ``client``'s store, then records, for each request after, whether the lean path answered it
    (True) or handed it to the route (False)."""
    client.get("/api/v1/offers")  # the store is opened: plain query strings are answered on the event loop
    answered: list[bool] = []
    real = lean_offers.lean_body

    def recorded(services: WebServices, query_string: bytes) -> bytes | None:
        body = real(services, query_string)
        answered.append(body is not None)
        return body

    monkeypatch.setattr(lean_offers, "lean_body", recorded)
    return answered
