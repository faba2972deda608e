"""A spot job under a deadline is admitted only where its reclaims make it miss the deadline rarely
enough (``Assumptions.max_deadline_miss``), and its row says the chance from a few percent up (a
reviewer's find: `recommend finetune llama-3.3-70b --method full --dataset-tokens 1B --deadline 2h`
ranked 8 p6-b200 spot nodes first at 1.8 h, meeting the deadline on average only: with 0.16 reclaims/h
over the run and ~20 min of slack against ~7 min + 0-39 min of rework per reclaim, about 1 run in 6
misses it)."""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.assumption_overrides import assumption_overrides
from gpuscout.advise.spot import _rework_cdf, deadline_miss, on_time_slack, spot_risk
from gpuscout.advise.workload import Workload, parse_hours
from gpuscout.catalog.api import current_offers

P6 = [
    o
    for o in current_offers()
    if o.provider == "aws" and o.instance_type == "p6-b200.48xlarge" and o.region == "us-east-1"
][:1]


def test_the_chance_by_hand_for_at_most_two_reclaims() -> None:
    # 0.5 reclaims/h over 1 h; each: 300 s restart + 60 s reload, and rework uniform over 1,200 s
    risk = spot_risk(
        work_s=3600.0, rate_per_hour=0.5, checkpoint_interval_s=1200.0, restart_s=300.0, reload_s=60.0
    )
    # 900 s of slack: none is on time; one is while its rework is at most 540 s (0.45 of 1,200); two while
    # theirs add up to at most 180 s (0.15: 0.15^2 / 2 of two uniforms); three are late (1,080 s fixed)
    on_time = math.exp(-0.5) * (1.0 + 0.5 * 0.45 + 0.5**2 / 2.0 * 0.15**2 / 2.0)
    assert deadline_miss(risk, 900.0) == pytest.approx(1.0 - on_time, rel=1e-12)
    # three instances reclaimed apart: late where any is
    assert deadline_miss(risk, 900.0, 3) == pytest.approx(1.0 - on_time**3, rel=1e-12)
    assert deadline_miss(risk, -1.0) == 1.0  # late without a reclaim
    assert deadline_miss(spot_risk(work_s=3600.0, rate_per_hour=0.0, checkpoint_interval_s=1200.0,
                                   restart_s=300.0, reload_s=60.0), 0.0) == 0.0  # fmt: skip
    # the tightest slack for at most 10 %: the chance there is 10 %, a second less is over
    slack = on_time_slack(risk, 0.10)
    assert deadline_miss(risk, slack) <= 0.10 < deadline_miss(risk, slack - 1.0)


def _irwin_hall(j: int, x: float) -> float:
    """The alternating closed form, in exact fractions."""
    q = Fraction(x)
    return float(
        sum((-1) ** k * math.comb(j, k) * (q - k) ** j for k in range(math.floor(q) + 1)) / math.factorial(j)
    )


@pytest.mark.parametrize("j", [1, 2, 3, 7, 20, 40, 41, 80])
def test_the_rework_sum_matches_the_exact_irwin_hall_form(j: int) -> None:
    # exact up to 40 reclaims, the normal approximation past them within 1e-3
    tol = 1e-12 if j <= 40 else 1e-3
    for x in (0.05 * j, 0.3 * j, 0.5 * j, 0.71 * j, 0.97 * j):
        assert _rework_cdf(j, x) == pytest.approx(_irwin_hall(j, x), abs=tol)


def _finetune(deadline_hours: float, **more: object) -> Workload:
    return Workload.from_dict(
        {"kind": "finetune", "model": "llama-3.3-70b", "method": "full", "dataset_tokens": 1e9}
        | {"deadline_hours": deadline_hours, "spot_allowed": True}
        | more
    )


def test_a_spot_run_likely_to_miss_the_deadline_is_left_out_with_its_chance() -> None:
    assert P6
    answer = advise(_finetune(2.0), P6, top=3, include_rejected=True)
    assert not [r for r in answer.rows if r.config.spot]  # was ranked #1 at 1.8 h
    (why,) = {r.rejected for r in answer.rejected if r.config.spot}
    m = re.fullmatch(
        r"finishes in 1\.8 h on average, but ~(\d+)% chance of missing the 2\.0 h deadline with spot "
        r"reclaims \(over the 10% allowed\)",
        why or "",
    )
    assert m is not None, why
    assert 12 <= int(m.group(1)) <= 20  # the reviewer's hand estimate: about 1 run in 6-7


def test_a_spot_run_admitted_says_its_chance_from_a_few_percent() -> None:
    # 16 nodes allowed: 59 min on average; 75 min leaves 16 min of slack, which one reclaim with most of a
    # 20 min interval to redo exceeds
    answer = advise(_finetune(1.25, max_nodes=16), P6, top=3)
    (row,) = [r for r in answer.rows if r.config.spot]
    said = re.search(
        r"\(~(\d+)% chance of missing the 75 min deadline with spot reclaims\)", " ".join(row.reasons)
    )
    assert said is not None and 3 <= int(said.group(1)) <= 10
    # with more slack the chance is under 3 %: not said
    loose = advise(_finetune(1.5, max_nodes=16), P6, top=3)
    (row,) = [r for r in loose.rows if r.config.spot]
    assert "chance of missing" not in " ".join(row.reasons)


def test_a_training_dead_end_proposes_the_deadline_its_spot_row_meets_within_the_miss_allowed() -> None:
    # spot capacity only, 16 nodes: 59 min on average, which its reclaims miss far over 10 % of the time;
    # the hint proposed --deadline 60min, its expected time, and then said that "alone shows no row"
    assert P6
    spot_only = [dataclasses.replace(P6[0], price_usd_per_hour=None)]
    answer = advise(_finetune(0.5, max_nodes=16), spot_only, top=3)
    assert not answer.rows and answer.binding is not None
    assert "finishes in 59 min on 16 x 8x B200 (16 nodes) spot" in answer.binding, answer.binding
    assert "more often than the 10% allowed" in answer.binding
    m = re.search(r"--deadline (\d+)min would show it", answer.binding)
    assert m is not None, answer.binding
    proposed = int(m.group(1))
    assert proposed > 60

    def shown(at: int) -> bool:
        rows = advise(_finetune(parse_hours(f"{at}min"), max_nodes=16), spot_only, top=3).rows
        return bool(rows) and rows[0].config.spot

    assert shown(proposed) and not shown(proposed - 1)


def test_a_looser_allowed_miss_admits_the_spot_run_a_default_one_leaves_out() -> None:
    # the reviewer's case: ~16 % chance of missing 2 h, out at the default 10 %, in at 20 %
    assert P6
    loose = assumption_overrides(max_deadline_miss=0.2)
    answer = advise(_finetune(2.0), P6, top=3, assumptions=loose)
    (row,) = [r for r in answer.rows if r.config.spot]
    said = re.search(
        r"\(~(\d+)% chance of missing the 2\.0 h deadline with spot reclaims\)", " ".join(row.reasons)
    )
    assert said is not None and 12 <= int(said.group(1)) <= 20
    strict = advise(_finetune(2.0), P6, top=3, assumptions=assumption_overrides(max_deadline_miss=0.05))
    assert not [r for r in strict.rows if r.config.spot]
