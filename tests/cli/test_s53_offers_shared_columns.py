"""``gpuscout offers`` in a narrow terminal gives up first the columns every row reads the same in,
and never the prices, the region or the sorted column (s53).

`offers --gpu A10G --sort price_per_gpu --limit 5` at 80 columns showed three g5.xlarge rows at $1.006
that looked identical: their regions (us-east-1/2, us-west-2) and spot prices were left out, while the
age ("unknown" on every row) and the source ("snapshot" on every row) were kept; sorted by
tflops_per_dollar, the per-GPU and spot prices went. Now a column whose rows all read the same gives
way first and its value is said once ("all rows: provider aws, ..., source snapshot").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeAlias

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.cli.table_fit import Column, fitted_table
from tests.cli.offers_shared import shared_text
from tests.cli.terminal_lines import joined_table, terminal_lines

runner = CliRunner()
Terminal: TypeAlias = Callable[..., list[str]]
A10G = ("offers", "--gpu", "A10G", "--sort", "price_per_gpu", "--limit", "5")
PRICES = ("$/h", "$/gpu-h", "spot $/h")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """``terminal(width, *args)``: the lines ``gpuscout ARGS`` prints to a colourless terminal."""
    return lambda width, *args: terminal_lines(monkeypatch, width, *args)


def _table(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """The headers (without the sort mark) and the rows (a cell on several lines joined) in ``lines``."""
    headers, rows = joined_table(lines)
    return [h.removesuffix(" ▲").removesuffix(" ▼") for h in headers], rows


def _offers(*args: str) -> list[dict[str, object]]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, list)
    return data


@pytest.mark.parametrize("width", [80, 100])
def test_rows_that_share_a_price_are_told_apart_by_region_and_spot_price(
    terminal: Terminal, width: int
) -> None:
    lines = terminal(width, *A10G)
    headers, rows = _table(lines)
    assert {*PRICES, "region"} <= set(headers), headers
    assert "age" not in headers and "source" not in headers  # "unknown" and "snapshot" on every row
    regions = [row[headers.index("region")] for row in rows]
    offers = _offers(*A10G)
    assert regions[:3] == [o["region"] for o in offers[:3]] == ["us-east-1", "us-east-2", "us-west-2"]
    spot = [row[headers.index("spot $/h")] for row in rows]
    assert spot == [f"{o['spot_price_usd_per_hour']:.3f}" for o in offers]
    assert len({tuple(row) for row in rows}) == len(rows)  # no two rows read alike
    shared = " ".join(shared_text(lines).split())
    assert shared.startswith("all rows: ") and "price age unknown" in shared and "source snapshot" in shared
    if width == 80:
        assert "provider aws" in shared  # the provider gave way, said once
    assert "not shown at this width: full source" in " ".join(" ".join(lines).split())


@pytest.mark.parametrize("width", [80, 100])
def test_sorted_by_tflops_per_dollar_the_prices_stay(terminal: Terminal, width: int) -> None:
    args = ("offers", "--gpu", "A10G", "--sort", "tflops_per_dollar", "--limit", "5")
    lines = terminal(width, *args)
    headers, rows = _table(lines)
    assert {*PRICES, "TFLOPS per $", "region"} <= set(headers), headers
    offers = _offers(*args)
    assert [row[headers.index("$/h")] for row in rows] == [f"{o['price_usd_per_hour']:.3f}" for o in offers]


# ---- table_fit: a column whose rows read the same gives way first -----------------------------------


def test_a_column_every_row_shares_gives_way_before_one_whose_rows_differ() -> None:
    columns = (
        Column("provider", same=2),
        Column("instance", drop=1, max_width=16),
        Column("$/h", right=True),
        Column("region"),
        Column("source", drop=2, same=1),
    )
    rows = [
        ("aws", "g5.xlarge", "1.006", "us-east-1", "snapshot"),
        ("aws", "g5.2xlarge", "1.006", "us-west-2", "snapshot"),
    ]
    # natural widths with their rules: 11 + 13 + 8 + 12 + 11 + 1 = 56
    _, left_out = fitted_table(None, columns, rows, 46)
    assert left_out == ["source"]  # "instance" (drop=1) stays: its rows differ
    _, left_out = fitted_table(None, columns, rows, 40)
    assert left_out == ["provider", "source"]  # both shared ones first, in their `same` order
    _, left_out = fitted_table(None, columns, rows, 20)
    assert left_out == ["provider", "instance", "source"]  # then the droppable one; never $/h or region
    _, left_out = fitted_table(None, columns, rows[:1], 46)
    assert left_out == ["instance"]  # one row shares nothing: the drop order alone


def test_same_on_every_row_reads_the_shown_text() -> None:
    from gpuscout.cli.table_fit import same_on_every_row

    assert same_on_every_row(["[yellow]stale[/]", "stale"]) == "stale"
    assert same_on_every_row(["a", "b"]) is None
    assert same_on_every_row(["a"]) is None
