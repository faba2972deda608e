"""`gpuscout recommend --top 1` / `--top 2`: the three picks are named whatever --top shows (by the
numbers they have in the whole answer, said "not shown" where --top had no room for them), and the
rows cut are marked up to the last pick, after the last row shown too."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.advise.types import PICK_LABELS
from gpuscout.cli import app

runner = CliRunner()
SERVE = ["recommend", "serve", "llama-3.1-8b", "-c", "50"]


def _json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _table(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return re.sub(r"\s+", " ", result.output)


@pytest.mark.parametrize("top", ["1", "2"])
def test_the_json_names_every_pick_whatever_top_shows(top: str) -> None:
    full = _json(*SERVE, "--top", "60")
    assert set(full["picks"]) == {"cheapest", "balanced", "fastest"}
    assert len(set(full["picks"].values())) == 3  # three rows: --top 1 and 2 cannot show them all
    cut = _json(*SERVE, "--top", top)
    assert cut["picks"] == full["picks"]
    assert len(cut["recommendations"]) == int(top)


@pytest.mark.parametrize("top", ["1", "2"])
def test_the_table_names_every_pick_and_marks_the_rows_cut_up_to_the_last(top: str) -> None:
    full = _json(*SERVE, "--top", "60")
    picks = full["picks"]
    ranks = [r["rank"] for r in _json(*SERVE, "--top", top)["recommendations"]]
    # a pick on an uncalibrated speed (the B200 rows: no Blackwell inference run calibrates them) says so,
    # and how to see its calibrated row where the table does not show it
    caveat = {u["pick"]: u["text"] for u in full["uncalibrated_picks"]}
    for u in full["uncalibrated_picks"]:
        if u["calibrated"] not in ranks:
            caveat[u["pick"]] += f", not shown: --explain {u['calibrated']}"
    text = _table(*SERVE, "--top", top)

    def words(name: str, n: int) -> str:
        notes = ([] if n in ranks else ["not shown"]) + ([caveat[name]] if name in caveat else [])
        return f"{PICK_LABELS[name]} #{n}" + (f" ({'; '.join(notes)})" if notes else "")

    named = ", ".join(words(name, n) for name, n in picks.items())
    assert f"Picks: {named}." in text
    last = max(picks.values())
    assert f"--top {last} shows them all" in text
    # the rows after the last shown up to the last pick are cut, and said so
    assert f"#{max(ranks) + 1}-#{last}" in text or f"#{last} (the picks" in text
    assert text.count("⋮") == len([n for n in range(1, last + 1) if n not in ranks and n - 1 in ranks])


def test_a_full_answer_names_its_picks_without_a_cut() -> None:
    text = _table(*SERVE, "--top", "60")
    assert "(not shown)" not in text and "Rows cut by --top" not in text
