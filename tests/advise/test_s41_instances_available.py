"""A row that rents several instances of one offer: fewer listed free than it needs is not a row (it
cannot be rented as shown); many of an offer whose free count is not stated is a row that says to check."""

from __future__ import annotations

import dataclasses

from gpuscout.advise.rank import rank
from gpuscout.advise.reasons import MANY_INSTANCES
from gpuscout.advise.workload import BatchWorkload
from tests.advise.helpers import NOW, offer


def _job() -> BatchWorkload:
    # 30M tokens of an 8B in two hours: one L4 makes some hundreds a second at its batch, so a score of them
    return BatchWorkload(model="llama-3.1-8b", output_tokens_total=3e7, deadline_hours=2, spot_allowed=False)


def test_an_offer_listing_fewer_free_instances_than_the_row_needs_is_rejected_naming_both() -> None:
    few = dataclasses.replace(offer("few", "L4", memory=24.0), available_count=2)
    recs = rank(_job(), [few], now=NOW, include_rejected=True)
    (rec,) = recs
    assert rec.rejected is not None
    assert "the provider lists 2 available" in rec.rejected and "instances" in rec.rejected


def test_an_offer_listing_enough_free_instances_is_ranked() -> None:
    plenty = dataclasses.replace(offer("plenty", "L4", memory=24.0), available_count=10_000)
    (rec,) = rank(_job(), [plenty], now=NOW, include_rejected=True)
    assert rec.rejected is None and rec.config.instances > 2
    assert not any("how many are free" in x for x in rec.warnings)  # the count is stated


def test_many_instances_of_an_offer_without_a_free_count_warn() -> None:
    (rec,) = rank(_job(), [offer("unstated", "L4", memory=24.0)], now=NOW, include_rejected=True)
    assert rec.rejected is None and rec.config.instances >= MANY_INSTANCES
    assert any(f"{rec.config.instances} instances of one offer" in x for x in rec.warnings)


def test_one_instance_without_a_free_count_does_not_warn() -> None:
    # a job one instance finishes within its billing hour (1M tokens would take ~85 min on one L4: two
    # halves are billed the same 2 h, so the ranking gives it two: rank.billing_sized)
    w = BatchWorkload(model="llama-3.1-8b", output_tokens_total=1e5, spot_allowed=False)
    (rec,) = rank(w, [offer("unstated", "L4", memory=24.0)], now=NOW)
    assert rec.config.instances == 1
    assert not any("how many are free" in x for x in rec.warnings)
