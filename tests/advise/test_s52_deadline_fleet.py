"""A batch under a deadline runs on the instances its billing bills the fewest hours, from the fewest that
meet the deadline up: with per-hour billing, 6 instances of 2.5 h each (billed 6 x 3 h = 18 h) meet a
3-hour deadline, and 8 of 1.9 h (8 x 2 h = 16 h) meet it sooner for less. A deadline only narrows the
choice: before, `--deadline 3h` turned a 2.0 h / $2.34 answer into 2.4 h / $2.80 on the same offer."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.cost import cost_model
from gpuscout.advise.inference_configs import BatchTokensEvaluator
from gpuscout.advise.rank import FREE_INSTANCES_MAX, billing_sized, rank
from gpuscout.advise.workload import BatchWorkload
from tests.advise.fakes import TERMS, fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()
A = Assumptions()


def _job(**kw: object) -> BatchWorkload:
    return BatchWorkload(model="small", output_tokens_total=1e9, spot_allowed=False, **kw)  # type: ignore[arg-type]


def _billed_h(ev, w) -> float:  # type: ignore[no-untyped-def]
    return cost_model(ev, w, TERMS["perhour"], False, A).billed_h


def test_the_premise_six_instances_meet_three_hours_billed_more_than_eight() -> None:
    w = _job(deadline_hours=3.0)
    ev = BatchTokensEvaluator(w, BE, A).evaluate(offer("perhour", price=1.0))
    assert ev.instances == 6  # 15.2 h of work: 6 x 2.5 h
    eight = dataclasses.replace(ev, instances=8, time_s=ev.time_s * 6 / 8)
    assert _billed_h(eight, w) < _billed_h(ev, w)  # 8 x 2 h < 6 x 3 h


def test_a_deadline_row_takes_the_cheapest_count_that_meets_it() -> None:
    w = _job(deadline_hours=3.0)
    ev = BatchTokensEvaluator(w, BE, A).evaluate(offer("perhour", price=1.0))
    sized = billing_sized(w, ev, TERMS["perhour"], False, A, FREE_INSTANCES_MAX)
    assert sized.instances == 8
    assert sized.time_s == pytest.approx(ev.time_s * 6 / 8)
    for k in range(ev.instances, FREE_INSTANCES_MAX + 1):  # no count from 6 to 8 is billed less
        other = dataclasses.replace(ev, instances=k, time_s=ev.time_s * 6 / k)
        assert _billed_h(sized, w) <= _billed_h(other, w) * (1 + 1e-9)
    (row,) = rank(w, [offer("perhour", price=1.0)], backends=BE, now=NOW)
    assert row.config.instances == 8
    why = [r for r in row.reasons if r.startswith("8 instances: 6 meet the 3.0 h deadline")]
    assert len(why) == 1 and "and 8 are billed no more than 6 would be (" in why[0], row.reasons
    assert "instance-hours in all, billed per-hour), each doing 1/8 of the work" in why[0], row.reasons


def test_a_deadline_never_makes_the_answer_slower_or_dearer() -> None:
    free = rank(_job(), [offer("perhour", price=1.0)], backends=BE, now=NOW)[0]
    for hours in (3.0, 3.5, 5.0, 8.0, 24.0):
        (row,) = rank(_job(deadline_hours=hours), [offer("perhour", price=1.0)], backends=BE, now=NOW)
        assert row.cost is not None and free.cost is not None
        assert row.cost.total <= free.cost.total + 1e-9 and row.time_s <= free.time_s * (1 + 1e-9), hours


def test_per_second_billing_keeps_the_deadline_count() -> None:
    w = _job(deadline_hours=3.0)
    (row,) = rank(w, [offer("persec", price=1.0)], backends=BE, now=NOW)
    assert row.config.instances == 6  # each more instance pays its own warm-up
    assert any(r == "6 instances to meet the 3.0 h deadline" for r in row.reasons), row.reasons
