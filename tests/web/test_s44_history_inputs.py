"""``/api/v1/history`` reads its inputs as ``gpuscout history`` does: ``days`` by the catalog's one rule
(a number above 0, up to 36,500), said in the same words (``days=0.5`` was refused; ``days=0`` said
"greater than or equal to 1" where the CLI said "must be > 0", and ``--days -3`` "a number from 0 to
36,500"); a ``provider`` that is no provider is a 422 naming the closest (it answered ``200 []``).

Needs ``catalog.status.check_history_days`` (the rule's one place) and ``WebServices.history_points``
taking a ``float`` number of days."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app as cli_app

runner = CliRunner()


def _get(client: TestClient, **params: str) -> tuple[int, object]:
    r = client.get("/api/v1/history", params={"gpu": "H100-SXM", **params})
    return r.status_code, r.json()


def test_part_of_a_day_is_a_number_of_days(client: TestClient) -> None:
    every = _get(client, provider="alphacloud")
    assert every[0] == 200 and isinstance(every[1], list) and len(every[1]) == 2
    # ``days`` counts back from when the prices were observed (30 hours ago for the newer snapshot, its
    # oldest row; ten days ago for the older), never from when they were stored (both just now)
    assert _get(client, days="0.5") == (200, [])  # part of a day is a number of days: none observed since
    status, recent = _get(client, days="2", provider="alphacloud")
    assert status == 200 and isinstance(recent, list) and len(recent) == 1
    assert _get(client, days="11", provider="alphacloud") == every
    assert _get(client, days="36500", provider="alphacloud") == every  # past 3,650 (was refused)


@pytest.mark.parametrize("days", ["0", "-3", "-0.5", "36501", "1e308", "nan", "inf"])
def test_days_out_of_range_is_said_as_the_cli_says_it(client: TestClient, db_url: str, days: str) -> None:
    status, body = _get(client, days=days)
    assert status == 422 and isinstance(body, dict), body
    rule = f"{float(days):g} is out of range (accepted: a number of days above 0, up to 36,500)"
    assert body["field"] == "days" and body["message"] == f"days: {rule}"
    assert body["accepted"] == "a number of days above 0, up to 36,500"
    cli = runner.invoke(cli_app, ["history", "H100-SXM", "--days", days, "--db", db_url])
    assert cli.exit_code == 2 and f"--days: {rule}" in " ".join(cli.output.split())


def test_days_that_are_not_a_number_name_the_field(client: TestClient) -> None:
    status, body = _get(client, days="abc")
    assert status == 422 and isinstance(body, dict) and body["field"] == "days", body


def test_an_unknown_provider_is_a_422_naming_the_closest(client: TestClient, db_url: str) -> None:
    status, body = _get(client, provider="alphacloudd")
    assert status == 422 and isinstance(body, dict), body
    assert body["field"] == "provider" and body["error"] == "unknown_name"
    assert body["suggestions"][0] == "alphacloud"
    assert body["message"].startswith("provider: unknown name 'alphacloudd'; closest known: alphacloud")
    cli = runner.invoke(cli_app, ["history", "H100-SXM", "--provider", "alphacloudd", "--db", db_url])
    assert cli.exit_code == 2
    assert "--provider: unknown name 'alphacloudd'; closest known: alphacloud" in " ".join(cli.output.split())


def test_a_known_provider_without_prices_answers_an_empty_list(client: TestClient) -> None:
    assert _get(client, provider="lambda") == (200, [])  # a provider gpuscout knows; none of its prices here
    assert _get(client, provider="Lambda Labs") == (200, [])  # an alias


def test_a_provider_is_read_ignoring_case(client: TestClient) -> None:
    status, points = _get(client, provider="AlphaCloud")
    assert status == 200 and isinstance(points, list) and {p["provider"] for p in points} == {"alphacloud"}
