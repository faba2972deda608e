"""``/api/v1/gpus/{name}`` reads a GPU name as the CLI's ``gpuscout gpus NAME`` (and ``/api/v1/estimate``)
does: a family name answers for the variant it reads as, ``resolution`` saying so and naming the others,
the CLI's ``--json`` word for word; a name that means several parts alike is refused by both.

Regression: ``/api/v1/gpus/V100`` was a 422 "ambiguous" while ``gpuscout gpus V100`` (and ``--gpu V100``
everywhere) read it as V100-SXM2-16GB."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app


@pytest.mark.parametrize("name", ["V100", "A100", "P100", "H100", "V100-SXM2-16GB"])
def test_the_api_reads_a_gpu_name_as_the_cli_does(client: TestClient, name: str) -> None:
    result = CliRunner().invoke(app, ["gpus", name, "--json"])
    assert result.exit_code == 0, result.output
    cli = json.loads(result.output)
    r = client.get(f"/api/v1/gpus/{name}")
    assert r.status_code == 200, r.text
    assert r.json()["name"] == cli["name"]
    assert r.json()["resolution"] == cli["resolution"]
    assert r.json()["resolution"]["exact"] == (name == cli["name"])


def test_a_name_of_several_parts_alike_is_refused_by_both(client: TestClient) -> None:
    r = client.get("/api/v1/gpus/RTX 6000")
    assert r.status_code == 422 and "ambiguous name 'RTX 6000'" in r.json()["message"]
    result = CliRunner().invoke(app, ["gpus", "RTX 6000", "--json"])
    assert result.exit_code != 0 and "ambiguous name 'RTX 6000'" in result.output
    assert client.get("/api/v1/gpus/not-a-gpu").status_code == 404
