"""A region no current offer is in: ``/api/v1/offers`` and the advisor's API answer a 422 naming the field
and the closest regions with offers, as ``gpuscout offers --region`` and ``gpuscout recommend --region`` do
(and as the API answers a provider no offer is from), on the route and on the lean path."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.web.lean_answers import record_lean_answers


def test_the_offers_api_names_the_closest_regions(client: TestClient) -> None:
    r = client.get("/api/v1/offers?region=eu-wset-1")  # was 200 {"total": 0}
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "unknown_name" and body["field"] == "region"
    assert body["suggestions"][0] == "eu-west-1"
    assert "no current offer is in a region matching 'eu-wset-1'" in body["message"]


def test_the_lean_path_hands_the_error_to_the_route(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    answered = record_lean_answers(client, monkeypatch)
    r = client.get("/api/v1/offers?region=us-eats-1")
    assert answered == [False]  # the regions are listed in the thread pool, by the route
    assert r.status_code == 422 and r.json()["field"] == "region"
    assert r.json()["suggestions"][0] == "us-east-1"
    r = client.get("/api/v1/offers?region=EU-West")
    assert answered == [False, True]
    assert r.status_code == 200 and {i["region"] for i in r.json()["items"]} == {"eu-west-1"}


def test_a_region_with_offers_that_other_filters_leave_out_is_no_error(client: TestClient) -> None:
    r = client.get("/api/v1/offers?region=eu-west-1&gpu=RTX4090")
    assert r.status_code == 200 and r.json()["total"] == 0
    r = client.get("/api/v1/offers?region=Mars,eu-west")  # the others of a list match: their offers
    assert r.status_code == 200 and {i["region"] for i in r.json()["items"]} == {"eu-west-1"}


@pytest.mark.parametrize("path", ["/api/v1/recommend", "/api/v1/advise"])
def test_the_advisor_api_names_the_closest_regions(client: TestClient, path: str) -> None:
    workload = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 2}
    r = client.post(path, json={"workload": {**workload, "regions": ["eu-wset"]}})
    assert r.status_code == 422  # was 200 with no rows
    body = r.json()
    assert body["error"] == "unknown_name" and body["field"] == "regions"
    assert body["suggestions"][0] == "eu-west-1"
    assert "no current offer is in a region matching 'eu-wset'" in body["message"]
    r = client.post(path, json={"workload": {**workload, "regions": ["Mars", "eu-west"]}})
    assert r.status_code == 200
