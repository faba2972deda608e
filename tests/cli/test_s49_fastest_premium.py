"""The picks line says what the fastest pick costs against the cheapest and what it buys in time: a renter
review read "fastest #5" (204 V100s, $454,479 a month) beside "cheapest #1" ($7,453) as a recommendation,
where it is a 61x dearer trade for 3x the speed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.cli.advise_output import fastest_premium


@dataclass
class _Row:
    rank: int
    total_usd: float | None
    time_to_result_s: float | None


def test_the_fastest_pick_is_said_as_a_trade_against_the_cheapest() -> None:
    rows = [_Row(1, 7_453.0, 40.2), _Row(5, 454_479.0, 13.2)]
    text = fastest_premium(rows, {"cheapest": 1, "balanced": 1, "fastest": 5})
    # 40.2 / 13.2 = 3.05 as fast; 454,479 / 7,453 = 60.98 the cost
    assert text == "#5 is 3.0x as fast as #1 at 61.0x the cost"


def test_nothing_is_said_when_one_row_is_both_or_a_figure_is_missing() -> None:
    rows = [_Row(1, 40.0, 3600.0), _Row(2, 50.0, None)]
    assert fastest_premium(rows, {"cheapest": 1, "fastest": 1}) == ""
    assert fastest_premium(rows, {"cheapest": 1, "fastest": 2}) == ""
    assert fastest_premium(rows, {"cheapest": 1}) == ""


def test_the_cli_picks_line_carries_it() -> None:
    result = CliRunner().invoke(app, ["recommend", "serve", "llama-3.1-8b", "-c", "8"])
    assert result.exit_code == 0, result.output
    out = result.output
    picks = " ".join(out.split("Picks:", 1)[1].split())
    found = re.search(r"#(\d+) is ([\d.]+)x as fast as #(\d+) at ([\d,.]+)x the cost", picks)
    assert found, picks
    assert float(found.group(2)) > 1.0 and float(found.group(4).replace(",", "")) > 1.0


def test_the_picks_line_says_a_pick_is_spot() -> None:
    from gpuscout.cli.advise_output import picks_text

    picks = {"cheapest": 1, "fastest": 4}
    text = picks_text(picks, {1, 4}, terms={1: "spot", 4: ""})
    # was "cheapest on the front #1, ...": the pick's price is the spot price, said only in its row
    assert text == "cheapest on the front #1 (spot), fastest on the front #4"
