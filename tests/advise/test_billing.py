"""billed_seconds: rounding up to the increment, minimum charge, unknown increment, bad input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscout.advise.billing import UNKNOWN_INCREMENT_S, billed_seconds, describe_increment
from gpuscout.errors import InvalidInputError


def test_per_second_bills_the_duration() -> None:
    assert billed_seconds(361.0, 1) == 361.0
    assert billed_seconds(360.4, 1) == 361.0


def test_per_hour_rounds_a_six_minute_burst_to_an_hour() -> None:
    assert billed_seconds(6 * 60, 3600) == 3600.0
    assert billed_seconds(3601, 3600) == 7200.0


def test_exact_multiple_is_not_rounded_up_by_float_noise() -> None:
    assert billed_seconds(3600.0000000001, 3600) == 3600.0
    assert billed_seconds(120.00000000001, 60) == 120.0


def test_minimum_charge_applies_per_use() -> None:
    assert billed_seconds(10, 1, 60) == 60.0  # per-second with a 1-minute minimum
    assert billed_seconds(90, 60, 600) == 600.0
    assert billed_seconds(700, 60, 600) == 720.0


def test_zero_duration_costs_nothing_even_with_a_minimum() -> None:
    assert billed_seconds(0, 3600, 3600) == 0.0


def test_unknown_increment_is_treated_as_per_hour() -> None:
    assert billed_seconds(60, None) == float(UNKNOWN_INCREMENT_S)
    assert "assumed per-hour" in describe_increment(None)
    assert describe_increment(1) == "per-second"


@pytest.mark.parametrize(
    ("args", "field"),
    [((-1.0, 1, None), "duration_s"), ((10.0, 0, None), "increment_s"), ((10.0, 1, -5), "minimum_s")],
)
def test_bad_input_names_the_field(args: tuple[float, int, int | None], field: str) -> None:
    with pytest.raises(InvalidInputError) as exc:
        billed_seconds(*args)
    assert exc.value.field == field


@given(
    st.floats(min_value=0.001, max_value=1e7),
    st.sampled_from([1, 60, 300, 3600]),
    st.one_of(st.none(), st.sampled_from([60, 600, 3600])),
)
def test_billed_is_at_least_the_duration_and_within_one_increment(
    duration: float, inc: int, minimum: int | None
) -> None:
    billed = billed_seconds(duration, inc, minimum)
    assert billed >= duration - 1e-6
    assert billed <= max(duration + inc, float(minimum or 0)) + 1e-6
    assert billed_seconds(duration * 2, inc, minimum) >= billed
