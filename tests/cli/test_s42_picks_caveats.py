"""The "every row" caveats of `gpuscout recommend` do not depend on which rows --top shows: they are
what every row of the front (and every row shown) carries, so --top 1 says them as --top 2 and the
whole table do, and a row's ⚠ count is the same in each."""

from __future__ import annotations

import re

import pytest

from gpuscout.cli import app
from tests.cli.test_s42_picks_top import SERVE, _json, runner


@pytest.mark.parametrize("top", ["1", "2", "3"])
def test_the_caveats_are_the_same_whatever_top_shows(top: str) -> None:
    full = _json(*SERVE, "--top", "60")
    front = [r for r in full["recommendations"] if r["pareto"]]
    shared = set(front[0]["warnings"]).intersection(*(r["warnings"] for r in front[1:]))
    assert full["notes"] and set(full["notes"]) == shared
    assert _json(*SERVE, "--top", top)["notes"] == full["notes"]


def test_the_table_says_every_rows_caveats_at_top_one() -> None:
    notes = _json(*SERVE, "--top", "60")["notes"]
    first = _json(*SERVE, "--top", "60")["recommendations"][0]
    own = len([w for w in first["warnings"] if w not in notes])
    for top in ("1", "2", "60"):
        out = runner.invoke(app, [*SERVE, "--top", top], env={"COLUMNS": "250"}).output
        text = re.sub(r"\s+", " ", out)
        assert "• every row: " + "; ".join(notes) in text, top
        lines = out.splitlines()
        start = next(n for n, line in enumerate(lines) if re.match(r"│\s+1\s+│", line))
        end = next(n for n in range(start + 1, len(lines)) if not re.match(r"│\s+│", lines[n]))
        row_one = " ".join(lines[start:end])  # the row's lines (its "why" wraps)
        assert (f"⚠{own}" in row_one) if own else ("⚠" not in row_one), top
