"""The picks line says where a row shown costs less than the "cheapest" pick (the front lets a much faster
row beat a slightly cheaper one), so that a renter does not read "cheapest" as the least total shown."""

from __future__ import annotations

from dataclasses import dataclass

from gpuscout.cli.advise_output import cheaper_than_cheapest


@dataclass
class _Row:
    rank: int
    total_usd: float | None
    time_to_result_s: float | None


def test_a_cheaper_slower_row_is_named_with_what_it_saves_and_costs_in_time() -> None:
    rows = [_Row(1, 44.99, 24 * 3600.0), _Row(4, 85.48, 3.6 * 3600), _Row(6, 44.30, 15.1 * 86400)]
    text = cheaper_than_cheapest(rows, {"cheapest": 1, "fastest": 4})
    assert text == "#6 costs $0.69 less than #1 but takes 15.1x as long (off the front)"


def test_nothing_is_said_when_the_pick_is_the_least_total_shown() -> None:
    rows = [_Row(1, 40.0, 3600.0), _Row(2, 50.0, 1800.0)]
    assert cheaper_than_cheapest(rows, {"cheapest": 1}) == ""
    assert cheaper_than_cheapest(rows, {}) == ""


def test_a_saving_the_cents_round_away_is_not_said_as_zero() -> None:
    # stop 52: "#9 costs $0.00 less than #1" ($2.336 against $2.34)
    rows = [_Row(1, 2.34, 2 * 3600.0), _Row(9, 2.336, 18.6 * 3600)]
    text = cheaper_than_cheapest(rows, {"cheapest": 1})
    assert text == "#9 costs under a cent less than #1 but takes 9.3x as long (off the front)"
