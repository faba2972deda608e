"""Under a deadline a faster row beats a cheaper one only within the estimate's tolerance
(pareto.most_allowance): the renter has said what time is worth, so a 9 h run for $2.21 stays on the
front beside a 1.9 h run for $2.34 (6 % more), and the cheapest pick is the cheapest row that meets it."""

from __future__ import annotations

from gpuscout.advise.answer import picks_rule
from gpuscout.advise.pareto import (
    COST_TOLERANCE,
    MAX_COST_ALLOWANCE,
    cost_allowance,
    dominates,
    front,
    most_allowance,
    picks,
)

SLOW, FAST = (2.21, 9.06 * 3600), (2.34, 1.93 * 3600)


def test_without_a_deadline_the_faster_row_is_worth_its_six_percent() -> None:
    assert dominates(FAST, SLOW)  # 4.7x as fast for 5.9 % more: within 5 % x 3.7 = 18 %
    assert front([SLOW, FAST]) == [1]


def test_under_a_deadline_both_stay_and_the_cheapest_is_the_cheapest() -> None:
    most = most_allowance(True)
    assert most == COST_TOLERANCE and most_allowance(False) == MAX_COST_ALLOWANCE
    assert cost_allowance(SLOW[1], FAST[1], most) == COST_TOLERANCE
    assert not dominates(FAST, SLOW, most=most)
    kept = front([SLOW, FAST], most=most)
    assert kept == [0, 1]
    assert picks([SLOW, FAST])["cheapest"] == 0
    # within the estimate's 5 % the faster still wins
    assert dominates((2.30, FAST[1]), SLOW, most=most)


def test_the_rule_in_words_says_which_applies() -> None:
    assert "under the deadline a faster row beats a cheaper one for up to 5% more" in picks_rule(
        3.0, 0.05, serve=False, deadline=True
    )
    assert "at most 50%" in picks_rule(3.0, 0.05, serve=False)
