"""A terminal too narrow for the offers table's age column (the one that marks a row "stale") still says
which rows shown are stale: a line under the table counts them, names their providers and how to hide
them, as the line of columns not shown names the age column.

Regression: at 80 columns, ``offers --spot --sort spot_price --gpu A100 --limit 5`` showed four stale
Azure rows on top with nothing on screen saying they were stale."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from tests.cli.terminal_lines import joined_table, terminal_lines

# stale rows are hidden by default since stop 60: --include-stale lists them, marked
ARGS = ("offers", "--spot", "--sort", "spot_price", "--gpu", "A100", "--limit", "5", "--include-stale")


def _offers(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, list)
    return data


def test_stale_rows_are_counted_where_the_age_column_is_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    offers = _offers(*ARGS)
    stale = [o for o in offers if o["stale"]]
    assert stale and len(stale) < len(offers)  # the case: some rows stale, the age column differs
    lines = terminal_lines(monkeypatch, 80, *ARGS)
    headers, rows = joined_table(lines)
    assert "age" not in headers and len(rows) == len(offers)
    text = " ".join(" ".join(lines).split())
    providers = ", ".join(sorted({str(o["provider"]) for o in stale}))
    said = f"{len(stale)} of {len(offers)} rows shown are from stale feeds ({providers})"
    assert said in text and "leave out --include-stale to hide them" in text
    assert "not shown at this width:" in text and "age" in text.split("not shown at this width:")[1]


def test_no_count_where_the_age_column_shows_it_or_none_is_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    wide = terminal_lines(monkeypatch, 240, *ARGS)
    headers, rows = joined_table(wide)
    assert "age" in headers and any("stale" in row[headers.index("age")] for row in rows)
    assert not any("rows shown are from stale feeds" in line for line in wide)
    fresh = terminal_lines(monkeypatch, 80, *ARGS, "--no-stale")
    assert not any("rows shown are from stale feeds" in line for line in fresh)
