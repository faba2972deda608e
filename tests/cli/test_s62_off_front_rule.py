"""At 80 and 100 columns the rows off the front could not be told from those on it (stop 62).

``recommend serve llama-3.3-70b -c 32`` at 80 columns showed "#7 … $25,393" then "#8 … $5,739": the
trade-off column, the one that says "beaten by #1", had given way, so without colour (NO_COLOR, logs,
pastes) the order read as a sorting slip. Where that column is left out, a rule now parts the front
from the rows off it, and a line under the table says what the rule means. And at 100 columns the
table was 80 wide: columns were dropped greedily (the trade-off before the instance) and one that
would fit again once a wider one had gone was never taken back; now it is.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.cli.table_fit import Column, fitted_table
from tests.cli.fitted_tables import printed
from tests.cli.terminal_lines import joined_table, terminal_lines

SERVE = ("recommend", "serve", "llama-3.3-70b", "-c", "32", "--prompt", "2000", "--output", "400")

COLUMNS = (Column("name"), Column("small", drop=1), Column("big", drop=2))
ROWS = [("a" * 10, "xyz", "b" * 30), ("c" * 10, "uvw", "d" * 30)]


def test_a_column_dropped_early_comes_back_where_it_fits() -> None:
    # at 30 cells "small" (8 with its chrome) went first, then "big" (33) had to go too: "small" fits
    # again beside "name" (13 + 8 + 1 = 22) and is shown
    table, left_out = fitted_table(None, COLUMNS, ROWS, 30)
    assert left_out == ["big"]
    assert [c.header for c in table.columns] == ["name", "small"]


def test_the_rule_is_drawn_only_where_its_column_is_left_out() -> None:
    narrow, _ = fitted_table(None, COLUMNS, ROWS, 20, rule=("small", 1))
    assert [c.header for c in narrow.columns] == ["name"]
    lines = printed(narrow, 20)
    body = [line for line in lines if line[0] in "│├"]
    assert body[1].startswith("├") and body[0].startswith("│") and body[2].startswith("│")
    wide, _ = fitted_table(None, COLUMNS, ROWS, 30, rule=("small", 1))
    assert not any(line.startswith("├") for line in printed(wide, 30))


def test_at_80_columns_a_rule_parts_the_rows_off_the_front(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = terminal_lines(monkeypatch, 80, *SERVE)
    headers, _ = joined_table(lines)
    assert "trade-off" not in headers  # no room for it at 80 columns
    rule = next(n for n, line in enumerate(lines) if line.startswith("├"))
    above = [line for line in lines[:rule] if line.startswith("│") and line.split("│")[1].strip()]
    below = [line for line in lines[rule:] if line.startswith("│") and line.split("│")[1].strip()]
    assert above and below
    text = " ".join(" ".join(lines).split())
    assert "Under the rule: rows off the front" in text and "the trade-off column, not shown" in text
    # the rows under the rule are the ones --json marks off the front, and only they
    result = CliRunner().invoke(app, [*SERVE, "--json"])
    recs = json.loads(result.output)["recommendations"]
    front = {str(r["rank"]) for r in recs if r["pareto"]}
    assert {line.split("│")[1].strip() for line in above} <= front
    assert not {line.split("│")[1].strip() for line in below} & front


def test_at_100_columns_the_trade_off_column_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = terminal_lines(monkeypatch, 100, *SERVE)
    headers, rows = joined_table(lines)
    assert "trade-off" in headers
    assert any(row[1].startswith("beaten by #") for row in rows)
    assert not any(line.startswith("├") for line in lines)  # the column says it: no rule, no legend
    assert not any(line.startswith("Under the rule") for line in lines)
