"""An endpoint up part of the day on a marketplace may find its host's GPUs taken (stop 63).

``recommend serve ... --hours-per-day 8`` costs a Vast.ai row as stopped and started again each day,
but a stopped Vast.ai instance keeps its disk, not its GPUs: the host can rent them to someone else
meanwhile, and the next start may find them taken. Those rows now say so; an always-on endpoint, or a
provider that is not a marketplace, does not. The rule is recalled from Vast.ai's documentation alone, so
only Vast.ai rows say it (the other marketplaces, Lium here, were warned too, on no source).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.reasons import STOPPED_HOST_WARNING
from gpuscout.knowledge.providers import provider_terms
from tests.advise.web_helpers import web_offer

OFFERS = [
    web_offer("vast", "RTX4090", 24, 0.4, provider="vastai"),
    web_offer("lium", "RTX4090", 24, 0.45, provider="lium"),
    web_offer("lambda", "H100-SXM", 80, 2.5, provider="lambda"),
]
SERVE = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 4}


def _warned(activity: dict[str, Any]) -> dict[str, bool]:
    rows = advise({**SERVE, **activity}, OFFERS).rows
    return {r.offer.provider: STOPPED_HOST_WARNING in r.warnings for r in rows}


def test_the_providers_are_of_the_kinds_the_test_means() -> None:
    assert provider_terms("vastai").kind == provider_terms("lium").kind == "marketplace"
    assert provider_terms("lambda").kind != "marketplace"


@pytest.mark.parametrize("activity", [{"hours_per_day": 8}, {"bursts_per_day": 4, "burst_minutes": 30}])
def test_a_vastai_endpoint_stopped_part_of_the_day_is_warned_no_other(activity: dict[str, Any]) -> None:
    assert _warned(activity) == {"vastai": True, "lium": False, "lambda": False}


def test_an_always_on_endpoint_is_not() -> None:
    assert _warned({}) == {"vastai": False, "lium": False, "lambda": False}
    assert _warned({"hours_per_day": 24}) == {"vastai": False, "lium": False, "lambda": False}
