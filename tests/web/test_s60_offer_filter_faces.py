"""The offers filters have one set of bounds and one sort vocabulary on the CLI and the JSON API (stop
60): ``/api/v1/offers?gpus=2000`` was refused (1..1024) where ``gpuscout offers --gpus 2000`` was taken
(1..10000), ``--min-vram`` took up to 1e6 GiB where the API stopped at 10,000, and ``--sort vram`` (the
API's name for the memory column) was an unknown sort on the CLI."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.catalog.filter_bounds import MAX_GPU_MEMORY_GB, MAX_GPUS_PER_OFFER
from gpuscout.cli import app

runner = CliRunner()


def _rows(output: str) -> list[dict[str, object]]:
    """The offers of a CLI ``--json`` answer without their ``age``, which the clock moves between two calls
    (a minute boundary turned "72m" into "73m" between the two commands compared)."""
    return [{k: v for k, v in row.items() if k != "age"} for row in json.loads(output)]


@pytest.mark.parametrize(
    ("cli_option", "api_field", "inside", "beyond"),
    [
        ("--gpus", "gpus", 2000, MAX_GPUS_PER_OFFER + 1),
        ("--min-vram", "min_vram", 5000, int(MAX_GPU_MEMORY_GB) + 1),
    ],
)
def test_the_cli_and_the_api_take_and_refuse_the_same_values(
    client: TestClient, db_url: str, cli_option: str, api_field: str, inside: int, beyond: int
) -> None:
    ok_cli = runner.invoke(app, ["offers", cli_option, str(inside), "--json", "--db", db_url])
    ok_api = client.get(f"/api/v1/offers?{api_field}={inside}")
    assert ok_cli.exit_code == 0, ok_cli.output
    assert ok_api.status_code == 200, ok_api.text
    assert json.loads(ok_cli.output) == [] and ok_api.json()["total"] == 0

    bad_cli = runner.invoke(app, ["offers", cli_option, str(beyond), "--db", db_url])
    bad_api = client.get(f"/api/v1/offers?{api_field}={beyond}")
    assert bad_cli.exit_code != 0 and cli_option in bad_cli.output
    assert bad_api.status_code == 422 and bad_api.json()["field"] == api_field


def test_the_web_column_names_sort_the_cli_as_the_store_keys_do(db_url: str) -> None:
    for alias, key in (("vram", "gpu_memory"), ("gpu", "accelerator"), ("instance", "instance_type")):
        by_alias = runner.invoke(app, ["offers", "--sort", alias, "--json", "--limit", "0", "--db", db_url])
        by_key = runner.invoke(app, ["offers", "--sort", key, "--json", "--limit", "0", "--db", db_url])
        assert by_alias.exit_code == 0, by_alias.output
        rows = _rows(by_alias.output)
        assert len(rows) > 2 and rows == _rows(by_key.output)
    table = runner.invoke(app, ["offers", "--sort", "vram", "--db", db_url])
    assert table.exit_code == 0 and "▼" in table.output  # the memory column is marked as the sort's


def test_an_unknown_sort_names_both_vocabularies(db_url: str) -> None:
    out = runner.invoke(app, ["offers", "--sort", "vrm", "--db", db_url])
    assert out.exit_code != 0
    words = " ".join(out.output.split())
    assert "gpu_memory" in words and "the web table's vram, gpu, instance" in words


def test_a_comma_separated_gpu_or_provider_is_several_as_in_the_api(client: TestClient, db_url: str) -> None:
    # `offers --gpu H100,A100` was "unknown name 'H100,A100'" where the API's gpu=H100,A100 lists both
    for option, field, value in (
        ("--gpu", "gpu", "H100,A100"),
        ("--provider", "provider", "alphacloud,betagpu"),
    ):
        cli = runner.invoke(app, ["offers", option, value, "--json", "--limit", "0", "--db", db_url])
        assert cli.exit_code == 0, cli.output
        api = client.get("/api/v1/offers", params={field: value, "include_stale": "true", "per_page": 200})
        rows = _rows(cli.output)
        assert rows and len(rows) == api.json()["total"]
        one_by_one = [option, value.split(",")[0], option, value.split(",")[1]]
        repeated = runner.invoke(app, ["offers", *one_by_one, "--json", "--limit", "0", "--db", db_url])
        assert _rows(repeated.output) == rows


def test_the_cli_hides_stale_feeds_by_default_as_the_api_does(client: TestClient, db_url: str) -> None:
    # `gpuscout offers` listed stale rows among the rest (the API, the web table, faq and recommend
    # hide them): `offers --spot --gpu A100` ranked stale Azure spot prices at 11% of on-demand first
    cli = runner.invoke(app, ["offers", "--json", "--limit", "0", "--db", db_url])
    every = runner.invoke(app, ["offers", "--json", "--limit", "0", "--db", db_url, "--include-stale"])
    api = client.get("/api/v1/offers", params={"per_page": 200}).json()
    api_every = client.get("/api/v1/offers", params={"per_page": 200, "include_stale": "true"}).json()
    fresh, listed = json.loads(cli.output), json.loads(every.output)
    assert not any(o["stale"] for o in fresh) and any(o["stale"] for o in listed)
    assert len(fresh) == api["total"] and len(listed) == api_every["total"]
