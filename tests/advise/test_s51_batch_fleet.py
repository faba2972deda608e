"""A batch without a deadline runs on as many instances as cost no more than one (up to
``FREE_INSTANCES_MAX``, and no more than the provider lists free): under per-hour billing a 19.2 h job is
billed 20 h on one instance and 5 x 4 h on five, so five finish it 5x sooner for the same money. Before,
such a job always ran on one instance unless a deadline asked for more, and a fleet at the same cost was
never shown."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.cost import cost_model
from gpuscout.advise.fleet_billing import expected_billed_h
from gpuscout.advise.pareto import COST_TOLERANCE
from gpuscout.advise.rank import FREE_INSTANCES_MAX, billing_sized, rank
from gpuscout.advise.workload import BatchWorkload
from tests.advise.fakes import TERMS, fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()


def _job(**kw: object) -> BatchWorkload:
    return BatchWorkload(model="small", output_tokens_total=1e9, spot_allowed=False, **kw)  # type: ignore[arg-type]


def _row(w: BatchWorkload, provider: str, **kw: object):  # type: ignore[no-untyped-def]
    (row,) = rank(w, [offer(provider, price=1.0, **kw)], backends=BE, now=NOW)  # type: ignore[arg-type]
    return row


def _billed_h(ev, w, terms) -> float:  # type: ignore[no-untyped-def]
    cm = cost_model(ev, w, terms, False, Assumptions())
    return cm.compute_h + cm.warmup_h + cm.interruption_h


def test_per_hour_billing_spreads_the_job_over_free_instances() -> None:
    w = _job()
    row = _row(w, "perhour")
    # 15.2 h + warm-up: 16 h on one, 2 x 8 h on two; 8 x 2 h is billed as little as estimated, but each of
    # the eight is expected to round up half an hour (stop 62: expected bills, fleet_billing), so it
    # is not "free"; two are expected within the front's 5 % of one
    assert row.config.instances == 2
    assert any(
        r.startswith("2 instances at no extra cost: billed no more than one instance alone would be (16.")
        and "instance-hours in all, billed per-hour), each doing 1/2 of the work" in r
        for r in row.reasons
    ), row.reasons
    # the same money as one instance, in a fraction of the time
    from gpuscout.advise.inference_configs import BatchTokensEvaluator

    one = BatchTokensEvaluator(w, BE, Assumptions()).evaluate(offer("perhour", price=1.0))
    assert one.instances == 1
    assert row.cost is not None
    assert row.cost.compute + row.cost.warmup <= _billed_h(one, w, TERMS["perhour"]) * 1.0 + 1e-9
    assert row.time_s < one.time_s / (row.config.instances - 0.5)


def test_per_second_billing_spreads_within_the_cost_tolerance() -> None:
    # stop 62: per-second billing kept one instance (each more pays its own warm-up) while per-hour offers
    # were spread, so rows on one front were sized under different rules. One rule now: the most instances
    # billed within the front's COST_TOLERANCE of the cheapest count
    w, terms = _job(), TERMS["persec"]
    row = _row(w, "persec")
    assert row.config.instances > 1
    from gpuscout.advise.inference_configs import BatchTokensEvaluator

    one = BatchTokensEvaluator(w, BE, Assumptions()).evaluate(offer("persec", price=1.0))
    assert row.cost is not None
    assert row.cost.compute + row.cost.warmup <= _billed_h(one, w, terms) * (1 + COST_TOLERANCE)
    assert any(
        re.match(
            rf"{row.config.instances} instances for [\d.]+ % more: billed [\d.]+ % more than one "
            r"instance alone would be \(within the front's 5% cost tolerance\)",
            r,
        )
        for r in row.reasons
    ), row.reasons


def test_the_count_is_the_most_within_the_tolerance_for_any_increment() -> None:
    a = Assumptions()
    from gpuscout.advise.inference_configs import BatchTokensEvaluator

    for kind in ("persec", "perhour"):
        w, terms = _job(), TERMS[kind]
        ev = BatchTokensEvaluator(w, BE, a).evaluate(offer(kind, price=1.0))
        sized = billing_sized(w, ev, terms, False, a, FREE_INSTANCES_MAX)
        counts = range(1, FREE_INSTANCES_MAX + 1)
        spread = {k: dataclasses.replace(ev, instances=k, time_s=ev.time_s / k) for k in counts}
        # compared by their expected bills under the estimate's time error (fleet_billing)
        hours = {k: expected_billed_h(e, w, terms, False, a) for k, e in spread.items()}
        cheapest = min(hours.values())
        assert hours[sized.instances] <= cheapest * (1 + COST_TOLERANCE) + 1e-9
        assert sized.instances > 1
        assert all(hours[k] > cheapest * (1 + COST_TOLERANCE) for k in counts if k > sized.instances)


def test_no_more_instances_than_the_provider_lists() -> None:
    listed = dataclasses.replace(offer("persec", price=1.0), available_count=2)
    (row,) = rank(_job(), [listed], backends=BE, now=NOW)
    assert row.rejected is None and row.config.instances == 2  # 8 would be spread over; 2 are listed


def test_sizing_is_the_largest_count_expected_within_the_tolerance() -> None:
    w, terms, a = _job(), TERMS["perhour"], Assumptions()
    from gpuscout.advise.inference_configs import BatchTokensEvaluator

    ev = BatchTokensEvaluator(w, BE, a).evaluate(offer("perhour", price=1.0))
    assert ev.instances == 1
    sized = billing_sized(w, ev, terms, False, a, FREE_INSTANCES_MAX)
    counts = range(1, FREE_INSTANCES_MAX + 1)
    spread = {k: dataclasses.replace(ev, instances=k, time_s=ev.time_s / k) for k in counts}
    expected = {k: expected_billed_h(e, w, terms, False, a) for k, e in spread.items()}
    cheapest = min(expected.values())
    k = sized.instances
    assert expected[k] <= cheapest * (1 + COST_TOLERANCE) + 1e-9
    assert sized.time_s == pytest.approx(ev.time_s / k)
    for more in range(k + 1, FREE_INSTANCES_MAX + 1):  # every larger count is expected to cost more
        assert expected[more] > cheapest * (1 + COST_TOLERANCE), expected
    # 8 x 2 h is billed no more than one instance as estimated (the old rule took it), but not as expected
    assert _billed_h(spread[8], w, terms) <= _billed_h(ev, w, terms) + 1e-9 and k < 8


def test_a_deadline_the_free_fleet_meets_changes_nothing() -> None:
    # a deadline only narrows the choice: one instance meets 80,000 h, and the spread row finishes sooner
    # for the same money (stop 52: a deadline had kept the one instance, slower at the same cost)
    free, late = _row(_job(), "perhour"), _row(_job(deadline_hours=80_000), "perhour")
    assert late.config.instances == free.config.instances > 1
    assert late.cost is not None and free.cost is not None
    assert late.cost.total == pytest.approx(free.cost.total) and late.time_s == pytest.approx(free.time_s)
