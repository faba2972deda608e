"""``--region`` means what a renter means (renter review, task F6): ``offers --region DE`` is Germany,
not Des Moines; ``--region Finland`` lists the offers in Finland; ``recommend ... --region eu`` ranks
RunPod's European regions; the web API reads its ``region`` the same way (one catalog function)."""

from __future__ import annotations

import csv
import io
import json

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.knowledge.regions import AREAS, countries_of

runner = CliRunner()


def _rows(*args: str) -> list[dict[str, str]]:
    result = runner.invoke(app, ["offers", *args, "--csv", "--limit", "0"])
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.output)))


def _places(row: dict[str, str]) -> list[str]:
    return row["regions"].split(" | ") if row["regions"] else [row["region"]]


def test_a_country_code_is_that_country() -> None:
    rows = _rows("--region", "DE")
    assert rows and all(any(countries_of(p) == {"DE"} for p in _places(r)) for r in rows)
    assert not any("desmoines" in r["region"] for r in rows)
    india = _rows("--region", "IN")
    assert india and not any(r["region"].startswith("FIN") or "desmoines" in r["region"] for r in india)


def test_a_country_name_lists_its_offers() -> None:
    rows = _rows("--region", "Finland")
    assert sum("country:FI" in _places(r) for r in rows) >= 28
    assert {"FIN-01", "FIN-03"} <= {p for r in rows for p in _places(r)}


def test_eu_lists_offers_in_every_european_country() -> None:
    rows = _rows("--region", "eu")
    places = {p for r in rows for p in _places(r)}
    assert {"country:IS", "country:NO", "NORWAY-1", "oslo-norway-1", "FIN-03", "country:IT"} <= places
    europe = AREAS["europe"]
    assert all(
        any(countries_of(p) & europe or p.startswith(("eu-", "europe-")) for p in _places(r)) for r in rows
    )


def test_a_region_no_offer_is_in_is_an_error_naming_close_places() -> None:
    result = runner.invoke(app, ["offers", "--region", "Finlnd"])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "--region: no current offer is in a region matching 'Finlnd'" in text and "Finland" in text


def test_recommend_ranks_runpods_european_regions() -> None:
    """RunPod lists its offers for 14 countries, IS and NO among them: ``--region eu`` said "6 are in
    other regions" and ranked nothing; each row now names the European regions it is sold in."""
    result = runner.invoke(
        app,
        ["recommend", "serve", "llama-3.1-8b", "-c", "8", "--region", "eu", "--provider", "runpod", "--json"],
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["recommendations"]
    assert rows and all(r["offer"]["provider"] == "runpod" for r in rows)
    europe = AREAS["europe"]
    assert all(r["regions"] and all(countries_of(p) <= europe for p in r["regions"]) for r in rows)


def test_the_web_api_reads_region_as_the_cli_does() -> None:
    from fastapi.testclient import TestClient

    from gpuscout.web import create_app

    with TestClient(create_app()) as client:
        got = client.get("/api/v1/offers", params={"region": "DE", "per_page": 200})
        assert got.status_code == 200, got.text
        regions = {o["region"] for o in got.json()["items"]}
        assert "country:DE" in regions and not any("desmoines" in r for r in regions)
        finland = client.get("/api/v1/offers", params={"region": "Finland", "per_page": 200})
        assert finland.status_code == 200 and finland.json()["total"] >= 28
