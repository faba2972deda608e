"""``_slow_cause`` builds the slow-generation advice once, told whether a card with faster (HBM) memory
would help (the FAQ no longer rewrites its sentence afterwards)."""

from __future__ import annotations

import pytest

from gpuscout.advise.faq import _slow_cause

WHY_NOT = "an HBM card would not help here (2x H100-SXM gives 20 tok/s)"


def test_the_hbm_advice_is_replaced_by_why_it_would_not_help() -> None:
    cause, helps = _slow_cause("bandwidth", 8)
    assert cause == "memory bandwidth" and helps.endswith(", or a card with faster (HBM) memory")
    cause_not, helps_not = _slow_cause("bandwidth", 8, WHY_NOT)
    assert cause_not == cause and "faster (HBM) memory" not in helps_not
    assert helps_not.endswith(f"; {WHY_NOT}")
    # the rest of the advice is kept, its list now of two: "batching ... or narrower weights ..."
    rest = helps.removesuffix(", or a card with faster (HBM) memory")
    assert helps_not == rest.replace(", narrower weights", " or narrower weights") + f"; {WHY_NOT}"


@pytest.mark.parametrize("binding", ["interconnect", "overhead", "compute", "split"])
def test_other_paces_give_no_hbm_advice_to_replace(binding: str) -> None:
    assert _slow_cause(binding, 4, WHY_NOT) == _slow_cause(binding, 4)
    assert "HBM" not in _slow_cause(binding, 4)[1]
