"""A spot row's reclaims are billed as the provider bills (stop 60, renter pass): the rework and restarts
were added unrounded to a bill rounded before them, and a reclaim, which ends a billing session part-way
through an increment, cost nothing more. Three instances billed per hour for 27.2 h each (26.8 h of work,
22 min of reclaims) read "82.1 instance-hours in all": per hour each is billed 28 h, and each of its
reclaims leaves half an hour unused on average."""

from __future__ import annotations

import math

import pytest

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.cost import cost_model
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, ServeWorkload
from tests.advise.helpers import terms
from tests.advise.test_cost import ev  # the cost tests' configuration

BARE = Assumptions(boot_s=0.0, load_gbps=1e12, download_gbps=1e12, restart_s=300.0)
HOUR = 3600.0


@pytest.mark.parametrize("increment", [3600, None])  # per hour, and unknown (taken as per hour)
def test_a_spot_batch_is_billed_whole_hours_and_half_an_hour_per_reclaim(increment: int | None) -> None:
    w = BatchWorkload(model="m", output_tokens_total=1e9, checkpoint_interval_min=5.0)
    cm = cost_model(
        ev(instances=3, time_s=26.8 * HOUR),
        w,
        terms(kind="marketplace", increment=increment),
        spot=True,
        a=BARE,
    )
    assert cm.risk is not None
    lost_h = cm.interruption_h / 3
    reclaims = cm.risk.expected_interruptions
    per_instance = math.ceil(26.8 + lost_h) + reclaims * 0.5
    assert cm.billed_h == pytest.approx(3 * per_instance)
    assert cm.interruption_h == pytest.approx(3 * reclaims * cm.risk.lost_s_per_interruption / HOUR)


def test_a_spot_batch_billed_per_second_pays_its_time_and_no_more() -> None:
    w = BatchWorkload(model="m", output_tokens_total=1e9, checkpoint_interval_min=5.0)
    cm = cost_model(
        ev(instances=3, time_s=26.8 * HOUR), w, terms(kind="marketplace", increment=1), spot=True, a=BARE
    )
    assert cm.billed_h == pytest.approx(3 * 26.8 + cm.interruption_h, abs=3 / HOUR)


def test_a_spot_endpoint_pays_half_an_increment_per_reclaim() -> None:
    w = ServeWorkload(model="m", days_per_month=30)
    on_demand = cost_model(ev(), w, terms(increment=3600), spot=False, a=BARE)
    spot = cost_model(ev(), w, terms(increment=3600), spot=True, a=BARE)
    assert spot.risk is not None and spot.risk.expected_interruptions > 10
    extra = spot.risk.expected_interruptions * 0.5
    assert spot.billed_h == pytest.approx(on_demand.billed_h + extra + spot.interruption_h)


def test_training_failures_on_demand_end_no_billing_session() -> None:
    # GPU and host failures stop the job, not the instance: rounded with the run, no half hour each
    w = FinetuneWorkload(model="m", method="lora", dataset_tokens=1e7)
    big = Assumptions(boot_s=0.0, load_gbps=1e12, download_gbps=1e12, hardware_interruptions_per_gpu_hour=0.5)
    cm = cost_model(ev(time_s=10 * HOUR), w, terms(increment=3600), spot=False, a=big)
    assert cm.interruption_h > 0
    assert cm.billed_h == pytest.approx(math.ceil(10 + cm.interruption_h))
