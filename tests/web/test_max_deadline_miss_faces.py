"""The chance a spot job under a deadline may have of missing it (``Assumptions.max_deadline_miss``) is
overridable on every face, as the other advisor assumptions are: the CLI's ``--max-deadline-miss``, the
API's ``max_deadline_miss`` and the advisor form's input (jobs only: an endpoint has no deadline), checked
to lie strictly between 0 and 1 with an error naming the field."""

from __future__ import annotations

import json
import math

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.advise.assumption_overrides import assumption_overrides
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError

WORKLOAD = {
    "kind": "finetune",
    "model": "llama-3.1-8b",
    "method": "lora",
    "dataset_tokens": 2e7,
    "deadline_hours": 24,
    "spot_allowed": True,
}


def test_the_override_becomes_the_assumption() -> None:
    a = assumption_overrides(max_deadline_miss=0.25)
    assert a is not None and a.max_deadline_miss == 0.25
    assert "at most 25%" in a.as_dict()["spot under a deadline"]
    assert "at most 2.5%" in assumption_overrides(max_deadline_miss=0.025).as_dict()["spot under a deadline"]  # type: ignore[union-attr]


@pytest.mark.parametrize("value", [0.0, 1.0, -0.1, 1.5, math.nan, math.inf])
def test_out_of_range_is_refused_naming_the_field(value: float) -> None:
    with pytest.raises(InvalidInputError) as err:
        assumption_overrides(max_deadline_miss=value)
    assert err.value.field == "max_deadline_miss"
    assert "above 0 and below 1" in str(err.value.accepted)


def test_the_api_and_the_cli_take_the_override(client: TestClient, db_url: str) -> None:
    r = client.post("/api/v1/recommend", json={"workload": WORKLOAD, "top": 5, "max_deadline_miss": 0.3})
    assert r.status_code == 200, r.text
    said = [row["assumptions"]["spot under a deadline"] for row in r.json()]
    assert said and all("at most 30%" in s for s in said), said
    cli = CliRunner().invoke(
        app,
        ["recommend", "finetune", "llama-3.1-8b", "--method", "lora", "--dataset-tokens", "2e7",
         "--deadline", "24h", "--spot", "--max-deadline-miss", "0.3", "--json", "--top", "5",
         "--db", db_url],
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    rows = json.loads(cli.output)
    rows = rows["recommendations"] if isinstance(rows, dict) else rows
    assert rows and all("at most 30%" in row["assumptions"]["spot under a deadline"] for row in rows)


@pytest.mark.parametrize("value", ["0", "1", "nan", "x"])
def test_the_cli_refuses_out_of_range_naming_the_option(value: str) -> None:
    cli = CliRunner().invoke(
        app,
        ["recommend", "batch", "llama-3.1-8b", "--output-total", "1e8", "--max-deadline-miss", value],
        env={"COLUMNS": "200"},
    )
    assert cli.exit_code == 2
    assert "--max-deadline-miss" in cli.output and "Traceback" not in cli.output
    if value != "x":
        assert "above 0 and below 1" in cli.output


@pytest.mark.parametrize("value", [0, 1, 1.2])
def test_the_api_refuses_out_of_range_naming_the_field(client: TestClient, value: float) -> None:
    r = client.post("/api/v1/recommend", json={"workload": WORKLOAD, "max_deadline_miss": value})
    assert r.status_code == 422 and r.json()["field"] == "max_deadline_miss", r.text


def test_a_serve_workload_refuses_it(client: TestClient) -> None:
    body = {"workload": {"kind": "serve", "model": "llama-3.1-8b"}, "max_deadline_miss": 0.2}
    r = client.post("/api/v1/recommend", json=body)
    assert r.status_code == 422 and r.json()["field"] == "max_deadline_miss"


def test_the_form_has_the_input_for_jobs_only(client: TestClient) -> None:
    for kind in ("batch", "finetune", "pretrain"):
        assert 'name="max_deadline_miss"' in client.get("/advise", params={"kind": kind}).text
    assert 'name="max_deadline_miss"' not in client.get("/advise", params={"kind": "serve"}).text
