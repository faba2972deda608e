"""The advisor table's unit-cost column uses the one money format of every face (wording.money3): three
significant figures with the trailing zero, whole dollars from $100 -- never '$1.23e+03/M tok'."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpuscout.cli.advise_output import _unit


def _rec(**units: float | None) -> SimpleNamespace:
    base: dict[str, float | None] = {
        "per_million_output_tokens": None,
        "per_image": None,
        "per_million_train_tokens": None,
    }
    return SimpleNamespace(unit_costs=SimpleNamespace(**{**base, **units}))


@pytest.mark.parametrize(
    ("units", "text"),
    [
        ({"per_million_output_tokens": 2.3}, "$2.30/M tok"),
        ({"per_million_output_tokens": 1234.5}, "$1,234/M tok"),
        ({"per_million_train_tokens": 0.0004}, "<$0.001/M tok"),
        ({"per_image": 0.00031}, "$0.310/1k img"),
    ],
)
def test_unit_costs_read_as_money(units: dict[str, float], text: str) -> None:
    assert _unit(_rec(**units)) == text


def test_no_unit_cost_is_a_dash() -> None:
    assert _unit(SimpleNamespace(unit_costs=None)) == "-"
