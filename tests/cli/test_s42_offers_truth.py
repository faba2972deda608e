"""``gpuscout offers`` and ``recommend`` read the catalog's one staleness rule (a live price fetched over
two days before the store's newest is stale: left out of both unless ``--include-stale``, which lists it
marked; a store refreshed three days ago is not stale), mark a vGPU slice as the share of
one GPU it is and price it per whole GPU's worth, list a live resale at its first party's price once,
and say that a provider shut down."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.cli import app, lean
from gpuscout.cli.offers_view import SLICE_NOTE, SLICE_PRICE_NOTE

runner = CliRunner()
NOW = datetime.now(UTC).replace(microsecond=0)


def _offer(provider: str, instance: str, price: float, age: timedelta, **kw: object) -> Offer:
    fields: dict[str, object] = {
        "provider": provider, "instance_type": instance, "region": "ewr", "accelerator": "H100-SXM",
        "gpu_count": 1, "gpu_memory_gb": 80.0, "price_usd_per_hour": price, "spot_price_usd_per_hour": None,
        "source": f"{provider}:https://example.test", "observed_at": NOW - age,
        "availability": Availability.AVAILABLE,
    }  # fmt: skip
    return Offer(**{**fields, **kw})  # type: ignore[arg-type]


def _store(tmp_path: Path, snapshots: dict[str, Sequence[Offer]], bundled: Sequence[Offer] = ()) -> str:
    url = f"sqlite:///{tmp_path / 'offers.sqlite3'}"
    with Store(url) as store:  # the bundled snapshot counts as loaded (the package's fingerprint)
        store.write_snapshot(SNAPSHOT_NAME, list(bundled), fallback=True, fingerprint=SNAPSHOT_SHA256)
        for source, offers in snapshots.items():
            store.write_snapshot(source, list(offers))
    return url


def _two_ages(tmp_path: Path, back: timedelta) -> str:
    """A fresh live H100 row and one whose provider was not refreshed for 85 days, ``back`` ago."""
    return _store(tmp_path, {
        "vastai": [_offer("vastai", "fresh", 2.0, back + timedelta(hours=1))],
        "lium": [_offer("lium", "node:1x", 1.23, back + timedelta(days=85))],
    })  # fmt: skip


def _rows(output: str) -> dict[str, list[str]]:
    """Table rows by instance (a pipe's table: every column)."""
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in output.splitlines() if line.count("│") > 5]
    return {cells[1]: cells for cells in rows}


def _json(args: list[str]) -> list[dict[str, object]]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    listed: list[dict[str, object]] = json.loads(result.output)
    return listed


def _ranked(url: str, *extra: str) -> set[object]:
    args = ["recommend", "serve", "llama-3.1-8b", "--db", url, "--json", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return {r["offer"]["provider"] for r in json.loads(result.output)["recommendations"]}


def test_a_live_price_two_days_older_than_the_newest_is_stale_everywhere(tmp_path: Path) -> None:
    url = _two_ages(tmp_path, timedelta(0))
    table = runner.invoke(app, ["offers", "--db", url, "--include-stale"])  # hidden by default (stop 60)
    assert table.exit_code == 0, table.output
    rows = _rows(table.output)
    assert rows["node:1x"][10] == "85d stale" and "stale" not in rows["fresh"][10]
    assert [o["provider"] for o in _json(["offers", "--db", url])] == ["vastai"]
    assert {o["provider"]: o["stale"] for o in _json(["offers", "--db", url, "--include-stale"])} == {
        "lium": True,
        "vastai": False,
    }
    assert [o["provider"] for o in _json(["offers", "--db", url, "--no-stale"])] == ["vastai"]
    assert _ranked(url) == {"vastai"}  # the advisor leaves the stale row out...
    assert _ranked(url, "--include-stale") == {"vastai", "lium"}  # ...unless asked


def test_a_store_refreshed_three_days_ago_is_not_stale(tmp_path: Path) -> None:
    # the same refresh, three days back: every live row is of it (a day apart at most), none stale
    url = _store(tmp_path, {
        "vastai": [_offer("vastai", "fresh", 2.0, timedelta(days=3))],
        "lium": [_offer("lium", "node:1x", 1.23, timedelta(days=4))],
    })  # fmt: skip
    assert {o["provider"]: o["stale"] for o in _json(["offers", "--db", url])} == {
        "lium": False,
        "vastai": False,
    }
    assert "stale" not in runner.invoke(app, ["offers", "--db", url]).output
    assert len(_json(["offers", "--db", url, "--no-stale"])) == 2
    assert _ranked(url) == {"vastai", "lium"}


def test_a_snapshot_only_store_is_stale_only_where_its_feed_says(tmp_path: Path) -> None:
    bundled = [
        _offer("aws", "p5", 2.0, timedelta(0), observed_at=None),
        _offer("paperspace", "H100", 5.0, timedelta(0), observed_at=None, stale=True),
    ]
    url = _store(tmp_path, {}, bundled)
    listed = {o["provider"]: o["stale"] for o in _json(["offers", "--db", url, "--include-stale"])}
    assert listed == {"aws": False, "paperspace": True}


def test_a_vgpu_slice_is_marked_in_the_count_and_priced_per_whole_gpu(tmp_path: Path) -> None:
    url = _store(tmp_path, {"vultr": [
        _offer("vultr", "vcg-a100-1c-6g-4vram", 0.123, timedelta(0), accelerator="A100-SXM4-80GB",
               gpu_memory_gb=4.0, fractional=True),
        _offer("vultr", "vcg-a100-12c-120g-80vram", 2.397, timedelta(0), accelerator="A100-SXM4-80GB"),
    ]})  # fmt: skip
    result = runner.invoke(app, ["offers", "--db", url, "--sort", "price_per_gpu"])
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    sliced, whole = rows["vcg-a100-1c-6g-4vram"], rows["vcg-a100-12c-120g-80vram"]
    assert sliced[2:7] == [
        "A100-SXM4-80GB",
        "1/20",
        "4",
        "0.123",
        "2.460",
    ]  # $/h listed, $/gpu-h a whole GPU's
    assert whole[3] == "1"
    assert list(rows) == ["vcg-a100-12c-120g-80vram", "vcg-a100-1c-6g-4vram"]  # by price per GPU: 2.397, 2.46
    assert SLICE_NOTE + SLICE_PRICE_NOTE in " ".join(result.output.split())
    listed = {o["instance_type"]: o["price_usd_per_gpu_hour"] for o in _json(["offers", "--db", url])}
    assert listed["vcg-a100-1c-6g-4vram"] == pytest.approx(2.46)


def test_the_slice_mark_keeps_the_source_at_80_columns(tmp_path: Path) -> None:
    url = _store(tmp_path, {"vultr": [
        _offer("vultr", "vcg-a100-1c-6g-4vram", 0.123, timedelta(0), accelerator="A100-SXM4-80GB",
               gpu_memory_gb=4.0, fractional=True, extra={"variant": "assumed"}),
    ]}, [_offer("paperspace", "A100", 3.18, timedelta(0), accelerator="A100-SXM4-80GB", observed_at=None,
                stale=True, extra={"variant": "assumed"})])  # fmt: skip
    result = runner.invoke(
        app, ["offers", "--db", url, "--include-stale"], env={"COLUMNS": "80", "TTY_COMPATIBLE": "1"}
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines if "│" in line) <= 80
    header = " ".join(line for line in lines if line.startswith("┃"))  # one line or two (a marked header)
    assert "source" in header and "1/20" in result.output


def test_a_live_resale_at_the_first_partys_price_is_one_row(tmp_path: Path) -> None:
    own = _offer("hyperstack", "n3-H100x1", 1.90, timedelta(0), accelerator="H100-PCIe", region="CANADA-1",
                 observed_at=None)  # fmt: skip
    resale = _offer("primeintellect", "hyperstack:n3-H100x1", 1.90, timedelta(0), accelerator="H100-PCIe",
                    region="CANADA-1")  # fmt: skip
    cheaper = _offer("primeintellect", "hyperstack:n3-H100x2", 3.10, timedelta(0), accelerator="H100-PCIe",
                     region="CANADA-1", gpu_count=2)  # fmt: skip
    url = _store(tmp_path, {"primeintellect": [resale, cheaper]}, [own])
    listed = {(o["provider"], o["instance_type"]): o for o in _json(["offers", "--db", url])}
    assert set(listed) == {("hyperstack", "n3-H100x1"), ("primeintellect", "hyperstack:n3-H100x2")}
    assert listed[("hyperstack", "n3-H100x1")]["also_listed_by"] == ["primeintellect"]
    title = runner.invoke(app, ["offers", "--db", url]).output.splitlines()[0]
    assert "2 of 2 offers" in title


@pytest.mark.parametrize("extra", [(), ("--json",), ("--csv",)])
def test_a_provider_that_shut_down_is_said_so(extra: tuple[str, ...]) -> None:
    result = runner.invoke(app, ["offers", "--provider", "cudo", *extra])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert (
        "--provider: Cudo Compute shut down on 2026-03-31 (https://github.com/dstackai/dstack/pull/4018); "
        "its offers are no longer listed" in text
    )
    assert "no current offer" not in text


def test_the_lean_path_leaves_a_shut_down_provider_to_typer(capsys: pytest.CaptureFixture[str]) -> None:
    assert lean.run(["offers", "--provider", "cudo", "--json"]) is None
    assert capsys.readouterr().out == ""
