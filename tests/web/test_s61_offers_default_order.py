"""Every face lists offers in one order when none is asked for (catalog.query.DEFAULT_SORT): ``gpuscout
offers`` sorted by the instance's $/h where the web table and ``/api/v1/offers`` sort by $/GPU-h, so the
CLI put alphacloud's 1x H100 at $3.90/h above its 8x H100 at $3.00/GPU-h, and the API the other way."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.cli import app as cli_app
from gpuscout.cli import lean

runner = CliRunner()


def _keys(items: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(o["provider"], o["instance_type"], o["region"]) for o in items]


def _api(client: TestClient, **params: str) -> list[tuple[object, ...]]:
    r = client.get("/api/v1/offers", params={"per_page": "200", **params})
    assert r.status_code == 200, r.text
    return _keys(r.json()["items"])


def _cli(db_url: str, *args: str) -> list[tuple[object, ...]]:
    result = runner.invoke(cli_app, ["offers", "--json", "--limit", "0", "--db", db_url, *args])
    assert result.exit_code == 0, result.output
    return _keys(json.loads(result.output))


@pytest.mark.parametrize(("cli_args", "api_params"), [((), {}), (("--spot",), {"pricing": "spot"})])
def test_cli_and_api_list_offers_in_the_same_order_by_default(
    client: TestClient, db_url: str, cli_args: tuple[str, ...], api_params: dict[str, str]
) -> None:
    api = _api(client, **api_params)
    assert len(api) >= 3
    assert _cli(db_url, *cli_args) == api
    # the order is the price per GPU-hour, not the instance's: the 8-GPU box ($3.00/GPU-h, $24/h) before
    # the 1-GPU one ($3.90/h) of the same provider
    if not cli_args:
        assert api.index(("alphacloud", "h100x8", "us-east-1")) < api.index(
            ("alphacloud", "h100x1", "eu-west-1")
        )


def test_the_lean_path_lists_them_in_the_same_order(
    client: TestClient, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lean.run(["offers", "--json", "--limit", "0", "--db", db_url]) == 0
    assert _keys(json.loads(capsys.readouterr().out)) == _api(client)


def test_the_table_title_names_the_default_order(db_url: str) -> None:
    result = runner.invoke(cli_app, ["offers", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert "sorted by $/gpu-h ▲" in result.output  # its column (stop 62): was "price_per_gpu"
