"""``/api/v1/offers?region=`` reads a repeated region as ``gpuscout offers --region`` does: the CLI's option
is repeatable (an offer in any region given matches, a region given twice counts once), so the API's
parameter is too (comma-separated or repeated, as ``gpu`` and ``provider``), where it was a 422."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app as cli_app
from gpuscout.web.filters import OfferFilters

OFFERS = "/api/v1/offers?per_page=200"


def _rows(body: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(i["provider"], i["instance_type"], i["region"]) for i in body["items"]}


def _timeless(body: dict[str, Any]) -> dict[str, Any]:
    """The body without each price's age (hundredths of an hour: two requests a moment apart on a busy
    machine can straddle one)."""
    return {**body, "items": [{k: v for k, v in i.items() if k != "age_hours"} for i in body["items"]]}


def _cli_rows(db_url: str, regions: list[str]) -> set[tuple[str, str, str]]:
    args = ["offers", "--db", db_url, "--no-stale", "--json", "--limit", "0"]
    for region in regions:
        args += ["--region", region]
    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    return {(o["provider"], o["instance_type"], o["region"]) for o in json.loads(result.output)}


@pytest.mark.parametrize(
    "regions",
    [["eu-west", "eu-west"], ["eu-west", "us-west"], ["EU-west", "eu-west"], ["nowhere", "us-central"]],
)
def test_a_repeated_region_is_read_as_the_cli_reads_it(
    client: TestClient, db_url: str, regions: list[str]
) -> None:
    r = client.get(OFFERS + "".join(f"&region={x}" for x in regions))
    assert r.status_code == 200, r.text
    assert _rows(r.json()) == _cli_rows(db_url, regions) != set()
    joined = client.get(f"{OFFERS}&region={','.join(regions)}")  # the plain (lean) path: one parameter
    assert joined.status_code == 200 and _timeless(joined.json()) == _timeless(r.json())


def test_a_region_given_twice_counts_once(client: TestClient) -> None:
    once = client.get(f"{OFFERS}&region=us-east").json()
    twice = client.get(f"{OFFERS}&region=us-east&region=US-EAST").json()
    assert twice == once and once["total"] > 0


def test_the_union_of_two_regions() -> None:
    filters = OfferFilters(region="eu-west, us-west,EU-WEST")
    assert filters.region_names() == ["eu-west", "us-west"]
    assert OfferFilters().region_names() == []


def test_the_advisor_api_takes_a_repeated_region_as_the_cli_does(client: TestClient) -> None:
    """``recommend --region us --region us`` is accepted; so is ``"regions": ["us", "us"]``, the same rows."""

    def rows(regions: list[str]) -> list[tuple[str, str]]:
        body = {"workload": {"kind": "serve", "model": "llama-3.1-8b", "regions": regions}, "top": 5}
        r = client.post("/api/v1/recommend", json=body)
        assert r.status_code == 200, r.text
        return [(x["offer"]["provider"], x["offer"]["instance_type"]) for x in r.json()]

    once = rows(["us-east"])
    assert once and rows(["us-east", "us-east"]) == once
