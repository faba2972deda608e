"""When no row of an answer has a calibrated speed (image generation today), the picks line says so
once instead of after every pick; with a calibrated row each uncalibrated pick names it."""

from __future__ import annotations

from gpuscout.advise.types import UncalibratedPick
from gpuscout.cli.advise_output import picks_text


def test_no_calibrated_row_is_said_once() -> None:
    picks = {"cheapest": 1, "balanced": 5, "fastest": 6}
    uncal = [
        UncalibratedPick("cheapest", 1, "RTX6000-Ada image generation", None),
        UncalibratedPick("balanced", 5, "B200 image generation", None),
        UncalibratedPick("fastest", 6, "MI355X image generation", None),
    ]
    text = picks_text(picks, {1, 5, 6}, uncal)
    assert text == (
        "cheapest on the front #1, balanced #5, fastest on the front #6 — speeds uncalibrated: no row here "
        "has a calibrated speed"
    )
    assert text.count("uncalibrated") == 1


def test_a_calibrated_alternative_is_named_on_its_pick() -> None:
    picks = {"cheapest": 1, "balanced": 2, "fastest": 3}
    uncal = [UncalibratedPick("fastest", 3, "MI300X training", 1)]
    assert picks_text(picks, {1, 2}, uncal) == (
        "cheapest on the front #1, balanced #2, fastest on the front #3 "
        "(not shown; speed uncalibrated for MI300X training; the fastest calibrated row is #1)"
    )
