"""``recommend --explain`` and a row's reasons write money as the table above them does (review 92, item
4): the hourly price with its cents ("$0.20/h", was "$0.2/h"; "$1.71/h", was "$1.712/h"), a total as the
total column ("$51.19/month", was "$51/month"; "$339 per run", was "$338.54 per run") and a cost per
unit to three significant figures, as the cost/unit column (``wording.money3``: "0.454", was "0.4541")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from tests.catalog.helpers import make_offer
from tests.cli.stores import store_with

runner = CliRunner()
WIDE = {"COLUMNS": "240"}


@pytest.fixture()
def db(tmp_path: Path) -> str:
    """Two H100 offers whose prices the old header misread: $0.20 and $1.712 an hour."""
    return store_with(
        tmp_path,
        [
            make_offer(
                provider="lambda",
                instance_type="cheap",
                region="us-west-1",
                price_usd_per_hour=0.2,
                observed_at=None,
            ),
            make_offer(
                provider="runpod",
                instance_type="dear",
                region="us-east-1",
                price_usd_per_hour=1.712,
                observed_at=None,
            ),
        ],
    )


def _run(args: list[str]) -> str:
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    return result.output


def _row(output: str, rank: int) -> list[str]:
    """Row ``rank`` of the table, split into cells (its first physical line)."""
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip().strip("│").split("│")]
        if line.startswith("│") and cells and cells[0] == str(rank):
            return cells
    raise AssertionError(f"row #{rank} not in the table:\n{output}")


def _cell(cells: list[str], pattern: str) -> str:
    return next(c for c in cells if re.fullmatch(pattern, c))


SERVE = ["recommend", "serve", "llama-3.1-8b", "--hours-per-day", "8"]
TRAIN = ["recommend", "finetune", "llama-3.1-8b", "--dataset-tokens", "10B"]


@pytest.mark.parametrize("rank", [1, 2])
def test_the_explain_header_prices_the_hour_as_the_table(db: str, rank: int) -> None:
    cells = _row(_run([*SERVE, "--db", db]), rank)
    price = _cell(cells, r"\$\d[\d,]*\.\d\d")  # the $/h column: "$0.20", "$1.71"
    header = _run([*SERVE, "--db", db, "--explain", str(rank)]).splitlines()[0]
    assert f", {price}/h on-demand" in header, header  # was "$0.2/h", "$1.712/h"


def test_serve_reasons_write_the_month_as_the_total_column(db: str) -> None:
    cells = _row(_run([*SERVE, "--db", db]), 1)
    total, unit = cells[-2], _cell(cells, r"\$[\d.,]+/M tok")
    assert re.fullmatch(r"\$\d+\.\d\d", total), total  # under $100: cents
    explained = _run([*SERVE, "--db", db, "--explain", "1"])
    per_m = unit.removesuffix("/M tok")
    assert f"• {per_m}/M output tokens, {total}/month" in explained  # was "$51/month"
    # the cost table's unit cost: the column's three figures ("0.454", was "0.4541")
    assert re.search(rf"│ per M output tokens │\s+{re.escape(per_m[1:])} │", explained), explained


def test_training_reasons_write_the_run_as_the_total_column(db: str) -> None:
    cells = _row(_run([*TRAIN, "--db", db]), 2)
    total, unit = cells[-2], _cell(cells, r"\$[\d.,]+/M tok")
    assert re.fullmatch(r"\$\d{3}(,\d{3})*", total), total  # from $100 whole dollars
    explained = _run([*TRAIN, "--db", db, "--explain", "2"])
    assert f"• {total} per run" in explained  # was "$338.54 per run"-like, the cents the table leaves out
    per_m = unit.removesuffix("/M tok")[1:]
    assert re.search(rf"│ per M train tokens │\s+{re.escape(per_m)} │", explained), explained
