"""``gpuscout recommend`` names its picks as the web does (stop 61): the CLI's picks line said "cheapest
#1" where the web's card says "cheapest on the front", and the pick is the least cost on the cost/time
Pareto front within the limits, not the cheapest row of the table (a slower row off the front can cost
less: "beaten by #1"). The words come from one place (``gpuscout.advise.types.PICK_LABELS``) for both
faces, the picks line and --explain. The trade-off column keeps the short names ("cheapest, balanced"):
with a "front: " before them it was 7 cells wider and cut the instance and region beside it even at 240
columns (tests/cli/test_s45_rows.py)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from gpuscout.advise import types
from gpuscout.cli import advise_output, app
from gpuscout.web import advise_view
from tests.cli.terminal_lines import terminal_lines

SERVE = ("recommend", "serve", "llama-3.1-8b", "--concurrency", "32", "--prompt", "2000", "--output", "500")


def _picks() -> dict[str, int]:
    result = CliRunner().invoke(app, [*SERVE, "--json"])
    assert result.exit_code == 0, result.output
    picks = json.loads(result.output)["picks"]
    assert set(picks) == {"cheapest", "balanced", "fastest"}  # --json keeps the names
    return picks


@pytest.mark.parametrize("width", [80, 200])
def test_the_picks_line_says_on_the_front(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    picks = _picks()
    lines = terminal_lines(monkeypatch, width, *SERVE, "--top", "8")
    assert all(len(line) <= width for line in lines)
    text = " ".join(" ".join(lines).split())
    assert f"Picks: cheapest on the front #{picks['cheapest']}, balanced #{picks['balanced']}" in text
    assert f"fastest on the front #{picks['fastest']}" in text
    assert "Picks: cheapest #" not in text


def test_explain_says_it_and_the_column_keeps_the_short_names() -> None:
    row = SimpleNamespace(picks=("cheapest", "balanced"), pareto=True, dominated_by=None)
    assert advise_output.mark(row) == "cheapest, balanced"
    assert advise_output.mark(SimpleNamespace(picks=(), pareto=True, dominated_by=None)) == "front"
    n = _picks()["cheapest"]
    result = CliRunner().invoke(app, [*SERVE, "--explain", str(n)])
    assert result.exit_code == 0, result.output
    assert "trade-off: cheapest on the front" in result.output


def test_one_wording_for_the_web_and_the_cli() -> None:
    assert advise_view.PICK_LABELS is types.PICK_LABELS
    assert types.PICK_LABELS["cheapest"] == "cheapest on the front"
    assert advise_output.picks_text({"cheapest": 1, "fastest": 3}, {1, 3}) == (
        "cheapest on the front #1, fastest on the front #3"
    )
