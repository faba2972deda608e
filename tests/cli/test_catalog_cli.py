"""The catalog commands through the real CLI (typer CliRunner), offline, on a fresh data dir."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.cli.catalog_cmds import short_source

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_fresh_install_offers_h100_sorted_per_gpu() -> None:
    code, out = _run("offers", "--gpu", "H100", "--sort", "price_per_gpu", "--limit", "10")
    assert code == 0, out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == 10
    for row in rows:
        assert "H100" in row
        assert "unknown" in row  # the age of a snapshot price is unknown, never "today"
        assert "snapshot skypilot-catalog@" in row  # provenance on each row
    assert "sorted by $/gpu-h ▲" in out  # the column's header, not the option's value (stop 62)


def test_an_auction_price_is_marked_at_80_columns_and_left_out_of_on_demand() -> None:
    """Mithril's H100 auction price ($1.00, interruptible) is the cheapest listed: its row says
    "auction" in a terminal 80 columns wide, in a pipe, and --on-demand leaves it out (under the
    price where that keeps a column: test_catalog_80_columns.py)."""
    env = {"TTY_COMPATIBLE": "1", "COLUMNS": "80", "NO_COLOR": "1"}  # a terminal 80 columns wide
    args = ["offers", "--gpu", "H100", "--sort", "price_per_gpu", "--limit", "4"]
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines)
    rows = [line for line in lines if line.startswith("│")]
    assert re.match(r"│ mithril .*│ +1\.000 auction │", rows[0])  # stacking it would keep no column more
    # the mark cost no column that matters: the age and the source, the same on every row, said once
    assert "all rows: " in result.output and "price age unknown" in " ".join(result.output.split())
    assert "source snapshot" in " ".join(result.output.split())
    assert "auction = an auction market's price" in " ".join(result.output.split())
    code, out = _run(*args)  # a pipe: the mark after the price, on the row's line
    assert code == 0 and re.search(r"│ mithril .*│ +1\.000 auction │", out)
    code, out = _run(*args, "--on-demand")
    assert code == 0 and "mithril" not in out and "auction" not in out


def test_history_is_on_demand_without_auction_or_stale_prices() -> None:
    code, out = _run("history", "H100")
    assert code == 0, out
    providers = {line.split("│")[2].strip() for line in out.splitlines() if line.startswith("│")}
    assert {"hyperbolic", "lambda", "aws"} <= providers
    assert not providers & {"mithril", "azure", "digitalocean", "paperspace"}  # auction; all stale
    assert (
        "on-demand prices only: auction (interruptible) prices and prices flagged stale by their feed are "
        "left out; older prices are kept at their own date"
    ) in " ".join(out.split())


def test_offers_json_is_sorted_and_carries_provenance() -> None:
    code, out = _run(
        "offers", "--gpu", "H100", "--sort", "price_per_gpu", "--limit", "0", "--json", "--include-stale"
    )
    assert code == 0, out
    offers = json.loads(out)
    assert len(offers) > 80  # 95 H100 offers in the bundled snapshot (region copies are one row)
    assert {o["accelerator"] for o in offers} == {"H100-SXM", "H100-PCIe", "H100-NVL"}
    prices = [o["price_usd_per_gpu_hour"] for o in offers]
    assert prices == sorted(prices)
    assert all(o["observed_at"] is None and o["age"] == "unknown" for o in offers)
    assert all(o["source"].startswith("snapshot:https://github.com/skypilot-org/") for o in offers)
    assert any(o["stale"] for o in offers)  # Azure's v6 rows


def test_offers_csv_and_filters() -> None:
    code, out = _run("offers", "--gpu", "A100-80GB", "--provider", "lambda", "--gpus", "8", "--csv")
    assert code == 0, out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and all(r["provider"] == "lambda" and r["gpu_count"] == "8" for r in rows)
    assert all(r["observed_at"] == "unknown" for r in rows)


def test_offers_provider_alias_and_no_stale() -> None:
    code, out = _run("offers", "--provider", "vast", "--limit", "0", "--json")
    assert code == 0 and {o["provider"] for o in json.loads(out)} == {"vastai"}
    code, out = _run("offers", "--provider", "azure", "--limit", "0", "--json", "--include-stale")
    assert json.loads(out) and all(o["stale"] for o in json.loads(out))
    # hidden by default since stop 60, as on the API and the web table (--no-stale still says so)
    for hide in ((), ("--no-stale",)):
        code, out = _run("offers", "--provider", "azure", "--json", *hide)
        assert code == 0 and json.loads(out) == []


def test_offers_bad_input_names_the_field() -> None:
    code, out = _run("offers", "--gpu", "H1OO")
    assert code == 2 and "gpu" in out and "H100-SXM" in out
    code, out = _run("offers", "--sort", "cheap")
    assert code == 2 and "sort" in out and "price_per_gpu" in out
    code, out = _run("offers", "--spot", "--on-demand")
    assert code == 2 and "--spot/--on-demand" in out
    code, out = _run("offers", "--interconnect", "infiniband")
    assert code == 2 and "nvlink" in out


def test_sources_shows_snapshot_current_with_unknown_age() -> None:
    code, out = _run("sources")
    assert code == 0, out
    row = next(line for line in out.splitlines() if "snapshot" in line)
    assert "yes (bundled)" in row and "unknown" in row
    code, out = _run("sources", "--json")
    snap = next(s for s in json.loads(out) if s["source"] == "snapshot")
    assert snap["age_s"] is None and snap["age"] == "unknown" and snap["row_count"] > 700


def test_refresh_file_source_then_offers_and_history(tmp_path: Path) -> None:
    offers = tmp_path / "mine.csv"
    offers.write_text("provider,gpu,gpu_count,price_usd_per_hour\nonprem,H100 SXM,8,8.0\n")
    code, out = _run("refresh", "--source", f"file:{offers}", "--json")
    assert code == 0, out
    [result] = json.loads(out)
    assert result["status"] == "ok" and result["rows"] == 1
    code, out = _run("offers", "--provider", "onprem", "--json")
    [mine] = json.loads(out)
    assert mine["price_usd_per_gpu_hour"] == 1.0 and mine["age"] != "unknown"
    code, out = _run("history", "H100", "--provider", "onprem")
    assert code == 0 and "onprem" in out and "1.000" in out
    code, out = _run("history", "H100", "--json")
    points = json.loads(out)
    assert {p["provider"] for p in points} >= {"onprem", "lambda"}


def test_refresh_exit_code_when_every_source_failed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("provider,gpu,price_usd_per_hour\nx,H100 SXM,-1\n")
    code, out = _run("refresh", "--source", f"file:{bad}")
    assert code == 1
    assert "failed" in out and "bad.csv:2: price_usd_per_hour" in out
    good = tmp_path / "good.csv"
    good.write_text("provider,gpu,price_usd_per_hour\nx,H100 SXM,2\n")
    code, out = _run("refresh", "--source", f"file:{bad}", "--source", f"file:{good}")
    assert code == 0, out
    code, out = _run("sources", "--json")
    by = {s["source"]: s for s in json.loads(out)}
    assert by[f"file:{bad.resolve()}"]["last_status"] == "failed"
    assert "price_usd_per_hour" in by[f"file:{bad.resolve()}"]["last_error"]


def test_markup_like_text_is_shown_verbatim(tmp_path: Path) -> None:
    offers = tmp_path / "brackets.csv"
    offers.write_text(
        "provider,instance_type,region,gpu,price_usd_per_hour\nlab,[bold]box[/bold],[red],T4,0.5\n"
    )
    assert _run("refresh", "--source", f"file:{offers}")[0] == 0
    code, out = _run("offers", "--provider", "lab")
    assert code == 0 and "[bold]box[/bold]" in out and "[red]" in out


def test_refresh_unknown_source() -> None:
    code, out = _run("refresh", "--source", "nosuchcloud")
    assert code == 2 and "source" in out


def test_history_of_unknown_gpu_and_empty_history() -> None:
    code, out = _run("history", "H1OO")
    assert code == 2
    code, out = _run("history", "H100", "--provider", "paperspace")  # a provider without H100 prices
    assert code == 0 and "no stored on-demand prices" in out
    code, out = _run("history", "H100", "--provider", "nobody")  # no provider: the closest are named
    assert code == 2 and "unknown name 'nobody'" in out


def test_prune_command() -> None:
    code, out = _run("prune", "--older-than-days", "30")
    assert code == 0 and "removed 0 snapshots" in out


@pytest.mark.parametrize(
    ("source", "label"),
    [
        (
            "snapshot:https://github.com/skypilot-org/skypilot-catalog/blob/2c3d7ea7d76bf84cf/catalogs/v9/aws/vms.csv",
            "snapshot skypilot-catalog@2c3d7ea v9/aws",
        ),
        ("vastai:https://console.vast.ai/api/v0/bundles/", "vastai console.vast.ai"),
        ("plain", "plain"),
    ],
)
def test_short_source(source: str, label: str) -> None:
    assert short_source(source) == label
