"""Budgets under $10 keep their cents (stop 62).

``--budget 0.5`` was said as "budget: $0 a month", and ``batch llama-3.1-8b --output-total 1M --budget
0.004`` proposed "--precision fp8 with --budget 1 (… $0.06)" and "--budget 1 would show it" for a row at
$0.08: two moves that read as one, each a budget 12 to 16 times the row. A budget under $10 is now said
with its cents, and a proposed one is the row's cost rounded up to the cent (the least budget that shows
it), so that the moves read apart and each really shows its row.
"""

from __future__ import annotations

import re

from typer.testing import CliRunner

from gpuscout.advise.answer import budget_option
from gpuscout.advise.option_words import api_words, python_words
from gpuscout.advise.reasons import budget_text
from gpuscout.cli import app

BATCH = ("recommend", "batch", "llama-3.1-8b", "--output-total", "1M")


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_a_budget_is_said_with_its_cents_under_ten_dollars() -> None:
    assert budget_text(0.5) == "$0.50"
    assert budget_text(9.99) == "$9.99"
    assert budget_text(0.004) == "$0.004"  # under a cent: never "$0.00"
    assert budget_text(3540) == "$3,540"
    assert budget_text(10) == "$10"
    assert budget_text(12.5) == "$12.50"


def test_a_proposed_budget_is_the_cost_rounded_up_to_the_cent() -> None:
    assert budget_option(0.06) == "--budget 0.06"
    assert budget_option(0.0601) == "--budget 0.07"
    assert budget_option(1.1) == "--budget 1.10"  # 1.1 * 100 is 110.00000000000001: not 1.11
    assert budget_option(0.0001) == "--budget 0.01"
    assert budget_option(9.999) == "--budget 10"
    assert budget_option(3539.2) == "--budget 3540"
    for cost in (0.06, 0.0601, 1.1, 0.0001, 2.675, 9.999, 3539.2):
        value = float(budget_option(cost).split()[1])
        assert value >= cost  # the budget proposed shows the row


def test_the_json_api_and_python_say_a_budget_in_cents() -> None:
    text = "--precision fp8 with --budget 0.07 would show it"
    assert '"budget_usd": 0.07' in api_words(text)
    assert "budget_usd=0.07" in python_words(text)


def test_the_header_says_a_sub_dollar_budget() -> None:
    out = _run("recommend", "serve", "llama-3.1-8b", "-c", "4", "--budget", "0.5")
    assert "budget: $0.50 a month" in out


def test_the_moves_of_a_sub_dollar_budget_read_apart_and_each_shows_its_row() -> None:
    out = _run(*BATCH, "--budget", "0.004")
    assert "budget: $0.004 per run" in out
    moves = re.findall(r"(--precision \w+ )?with --budget ([\d.]+)|--budget ([\d.]+) would show it", out)
    assert len(moves) == 2, out
    (precision, fp8_budget, _), (_, _, own_budget) = moves
    assert precision.strip() == "--precision fp8"
    assert fp8_budget != own_budget, out  # two moves, two budgets
    # each proposed budget really shows a row (the cost rounded up, not down)
    fp8 = _run(*BATCH, "--precision", "fp8", "--budget", fp8_budget)
    assert "No offer can run" not in fp8
    own = _run(*BATCH, "--budget", own_budget)
    assert "No offer can run" not in own
    # and a cent less shows none: the least budget that does
    less = _run(*BATCH, "--budget", f"{float(own_budget) - 0.01:.2f}")
    assert "No offer can run" in less
