"""The host RAM assumed for an offer that lists none is overridable on every face (stop 60 review): the
CLI's ``--unlisted-host-ram``, the API's ``unlisted_host_ram`` and the advisor form's input, as
``Assumptions(unlisted_host_ram_per_gpu_memory=...)`` is from Python. A renter who knows their box has
1.5 TB could not say so, and its offload layout was rejected."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app

WORKLOAD = {"kind": "finetune", "model": "llama-3.1-70b", "method": "full", "dataset_tokens": 2e7}


def test_the_api_and_the_cli_take_the_override(client: TestClient, db_url: str) -> None:
    default = client.post("/api/v1/recommend", json={"workload": WORKLOAD, "top": 100})
    roomy = client.post(
        "/api/v1/recommend", json={"workload": WORKLOAD, "top": 100, "unlisted_host_ram": 100}
    )
    assert default.status_code == 200 and roomy.status_code == 200, roomy.text
    assert len(roomy.json()) >= len(default.json())
    said = [r["assumptions"].get("host RAM not listed") for r in roomy.json()]
    assert said and all(s and s.startswith("~100x the GPU memory") for s in said)
    cli = CliRunner().invoke(
        app,
        ["recommend", "finetune", "llama-3.1-70b", "--method", "full", "--dataset-tokens", "2e7",
         "--unlisted-host-ram", "100", "--json", "--top", "100", "--db", db_url],
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    rows = json.loads(cli.output)
    rows = rows["recommendations"] if isinstance(rows, dict) else rows
    assert [r["total_usd"] for r in rows] == [r["total_usd"] for r in roomy.json()]


@pytest.mark.parametrize("value", [0.1, 1000])
def test_out_of_range_is_refused_naming_the_field(client: TestClient, value: float) -> None:
    r = client.post("/api/v1/recommend", json={"workload": WORKLOAD, "unlisted_host_ram": value})
    assert r.status_code == 422 and r.json()["field"] == "unlisted_host_ram"


def test_a_serve_workload_refuses_it(client: TestClient) -> None:
    body = {"workload": {"kind": "serve", "model": "llama-3.1-8b"}, "unlisted_host_ram": 4}
    r = client.post("/api/v1/recommend", json=body)
    assert r.status_code == 422 and r.json()["field"] == "unlisted_host_ram"


def test_the_form_has_the_input_for_training_kinds_only(client: TestClient) -> None:
    assert 'name="unlisted_host_ram"' in client.get("/advise", params={"kind": "finetune"}).text
    assert 'name="unlisted_host_ram"' not in client.get("/advise", params={"kind": "serve"}).text
