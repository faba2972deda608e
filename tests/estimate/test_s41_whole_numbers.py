"""Counts given as whole floats (``gpus=2.0``, a numpy float or integer) are taken as the int they equal.

Regression: ``gpuscout.estimate("llama-3.1-8b", "H100", gpus=2.0)`` raised "gpus: must be a whole number,
got 2.0" (a count computed in a notebook arrives as a float). ``2.5`` stays an error naming the field,
and the result echoes ``2``, never ``2.0``.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import pytest

import gpuscout
from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.api import EstimateSession, memory_needed
from gpuscout.estimate.arguments import int_in, positive_float, whole_number


class Float64(float):
    """What ``numpy.float64`` is to Python: a subclass of float."""


class Int64:
    """What ``numpy.int64`` is to Python: no int subclass, an ``numbers.Integral`` with ``__index__``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"Int64({self.value})"


numbers.Integral.register(Int64)


class Bool_:  # named as numpy's, which is not a subclass of bool
    def __bool__(self) -> bool:
        return True


Bool_.__name__ = "bool_"

COUNTS = {"gpus": 2, "batch": 4, "context_in": 256, "context_out": 128}


@pytest.mark.parametrize("kind", [float, Float64, Fraction, Int64])
def test_a_whole_float_count_is_the_int_it_equals_and_the_result_echoes_the_int(kind: Any) -> None:
    as_ints = gpuscout.estimate("llama-3.1-8b", "H100", **COUNTS)
    given = gpuscout.estimate("llama-3.1-8b", "H100", **{k: kind(v) for k, v in COUNTS.items()})
    assert given == as_ints
    assert (given.gpus, given.batch, given.context_in, given.context_out) == (2, 4, 256, 128)
    assert all(type(getattr(given, k)) is int for k in COUNTS)
    assert "batch 4:" in given.assumptions["load"] and "4.0" not in given.assumptions["load"]


def test_the_load_counts_and_a_session_take_whole_floats_too() -> None:
    est = gpuscout.estimate("llama-3.1-8b", "H100", concurrency=8.0, num_requests=16.0)
    assert est == gpuscout.estimate("llama-3.1-8b", "H100", concurrency=8, num_requests=16)
    assert est.assumptions["load"].startswith("concurrency 8:")
    session = EstimateSession()
    assert session("llama-3.1-8b", "H100", gpus=2.0, batch=2.0) == gpuscout.estimate(
        "llama-3.1-8b", "H100", gpus=2, batch=2
    )


def test_memory_needed_echoes_the_ints() -> None:
    need = memory_needed("llama-3.1-8b", "H100", gpus=2.0, batch=3.0, context=1024.0)
    assert (need.gpus, need.batch, need.context) == (2, 3, 1024)
    assert need == memory_needed("llama-3.1-8b", "H100", gpus=2, batch=3, context=1024)


@pytest.mark.parametrize(
    ("field", "value"),
    [("gpus", 2.5), ("batch", 1.5), ("context_in", 0.5), ("context_out", 10.25), ("gpus", math.nan)],
)
def test_a_fraction_is_still_an_error_naming_the_field(field: str, value: float) -> None:
    with pytest.raises(InvalidInputError) as exc:
        gpuscout.estimate("llama-3.1-8b", "H100", **{field: value})
    assert exc.value.field == field
    assert f"must be a whole number, got {value!r}" in str(exc.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2, 2),
        (2.0, 2),
        (-3.0, -3),
        (Float64(8.0), 8),
        (Fraction(4, 2), 2),
        (Int64(5), 5),
        (10**30, 10**30),
        (1e20, 10**20),
        (2.5, None),
        (math.nan, None),
        (math.inf, None),
        (-math.inf, None),
        (True, None),
        (False, None),
        (Bool_(), None),
        ("2", None),
        (None, None),
        (Fraction(10**400, 1), 10**400),
        (Fraction(1, 3), None),
    ],
)
def test_whole_number(value: object, expected: int | None) -> None:
    assert whole_number(value) == expected
    if expected is not None:
        assert type(whole_number(value)) is int


def test_int_in_returns_the_int_and_names_the_range_in_its_own_terms() -> None:
    assert int_in("gpus", 4.0, 1, 8) == 4 and type(int_in("gpus", 4.0, 1, 8)) is int
    with pytest.raises(ConfigurationRejected, match=r"^gpus: 9 is out of range \(accepted: 1\.\.8\)$"):
        int_in("gpus", 9.0, 1, 8, error=ConfigurationRejected)
    with pytest.raises(InvalidInputError, match=r"must be a whole number, got True"):
        int_in("gpus", True, 1, 8)


def test_positive_float_takes_numpy_like_reals_and_refuses_bools() -> None:
    assert positive_float("request_rate", Float64(2.5), 10) == 2.5
    assert positive_float("request_rate", Fraction(1, 2), 10) == 0.5
    for bad in (True, Bool_(), "1", math.nan, 10**400):
        with pytest.raises(InvalidInputError):
            positive_float("request_rate", bad, 10)
