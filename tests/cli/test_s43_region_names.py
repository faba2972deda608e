"""`gpuscout offers --region` reads a typed list as the web and the API do: comma-separated regions, except a
region whose own name holds a comma (Vast.ai's "Texas, US") stays one; the CLI did not split at all, so
"Texas,Xanadu" matched nothing."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.cli import app
from tests.catalog.helpers import make_offer

runner = CliRunner()


def _db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'regions.sqlite3'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True)  # no bundled rows
    store.write_snapshot(
        "vastai",
        [
            make_offer(provider="vastai", instance_type="tx", region="Texas, US"),
            make_offer(provider="vastai", instance_type="va", region="Virginia, US"),
            make_offer(provider="vastai", instance_type="no", region="Oslo, Xanadu"),
        ],
    )
    return url


def _instances(db: str, *region: str) -> list[str]:
    args = ["offers", "--db", db, "--json"]
    for r in region:
        args += ["--region", r]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return sorted(o["instance_type"] for o in json.loads(result.output))


def test_a_region_named_with_a_comma_is_one_region(tmp_path: Path) -> None:
    db = _db(tmp_path)
    assert _instances(db, "Texas, US") == ["tx"]
    assert _instances(db, "texas,us") == ["tx"]


def test_a_comma_separated_list_is_several_regions(tmp_path: Path) -> None:
    db = _db(tmp_path)
    assert _instances(db, "Texas,Xanadu") == ["no", "tx"]
    assert _instances(db, "Texas, US,Xanadu") == ["no", "tx"]
    assert _instances(db, "Virginia", "Xanadu") == ["no", "va"]


def test_recommend_reads_its_region_list_as_offers_does(tmp_path: Path) -> None:
    db = _db(tmp_path)
    args = ["recommend", "serve", "llama-3.1-8b", "-c", "2", "--db", db, "--json", "--top", "10"]
    result = runner.invoke(app, [*args, "--region", "Texas,Xanadu"])
    assert result.exit_code == 0, result.output
    shown = {r["offer"]["instance_type"] for r in json.loads(result.output)["recommendations"]}
    assert shown and shown <= {"tx", "no"}, shown
