"""A spot row of a batch job under a deadline is sized for its own reclaims.

The evaluators size a batch's instances so that the on-demand run meets the deadline; on spot the
expected rework and restarts add to the time. The spot row takes the fewest instances (at least the
on-demand count, at most ``Assumptions.max_instances``) that meet the deadline with them, rather
than being left out "after the deadline" where one more instance would do.

Every figure is derived by hand from the on-demand row of a ranking without a deadline: ``time_1``
(the work on one instance), ``warm`` (boot, download, load) and the spot overhead factor
``1 + rate x lost / 3600`` (``rate`` the marketplace's reclaims per hour, ``lost`` the seconds one
reclaim wastes: half a checkpoint interval, the restart and the reload).
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from benchmarks.naive_rank import rank_naive

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.rank import Ranker, advise, rank
from gpuscout.advise.reasons import duration
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import BatchWorkload, parse_hours
from tests.advise.fakes import TERMS, fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()
A = Assumptions()
MARKET = offer("market", "H100-SXM", 1, 2.0, spot=0.8)  # a marketplace: 0.1 reclaims/h on spot

WORKLOADS = [
    pytest.param(BatchWorkload(model="small", images_total=13_700), id="images"),
    pytest.param(BatchWorkload(model="small", output_tokens_total=2e8), id="tokens"),
]


def _one_instance(w: BatchWorkload) -> tuple[float, float, float]:
    """(time_1, warm, spot factor) of MARKET's configuration, from its on-demand row without a deadline
    (spread over the instances its billing puts it on: ``rank.billing_sized``, each doing 1/k of it)."""
    assert w.deadline_hours is None
    (od,) = [r for r in rank(w, [MARKET], backends=BE, now=NOW) if not r.config.spot]
    assert od.time_s is not None and od.time_to_result_s is not None
    time_1 = od.time_s * od.config.instances
    warm = od.time_to_result_s - od.time_s
    reload_s = warm - A.boot_s  # download + load, done again after each reclaim
    lost = w.checkpoint_interval_min * 60.0 / 2.0 + A.restart_s + reload_s
    rate = A.interruption_rate(TERMS["market"].kind)
    return time_1, warm, 1.0 + rate * lost / 3600.0


def _tight(w: BatchWorkload, n: int) -> tuple[BatchWorkload, float, float, float]:
    """``w`` with a deadline that ``n`` instances meet on demand with less slack than spot's reclaims
    take (so spot needs one more instance), and (time_1, warm, factor)."""
    time_1, warm, factor = _one_instance(w)
    deadline_s = warm + time_1 / n * (1.0 + (factor - 1.0) / 2.0)
    assert time_1 / (n - 1) > deadline_s - warm  # n - 1 instances are too few even on demand
    assert warm + time_1 / n * factor > deadline_s  # n instances miss it on spot
    assert warm + time_1 / (n + 1) * factor <= deadline_s  # n + 1 meet it on spot
    return w.model_copy(update={"deadline_hours": deadline_s / 3600.0}), time_1, warm, factor


def _rows(recs: list[Recommendation]) -> tuple[Recommendation, Recommendation]:
    (od,) = [r for r in recs if not r.config.spot]
    (sp,) = [r for r in recs if r.config.spot]
    return od, sp


@pytest.mark.parametrize("base", WORKLOADS)
def test_a_spot_row_just_past_the_deadline_on_demand_takes_one_more_instance(base: BatchWorkload) -> None:
    # the spot row was left out "finishes in 1.0 h, after the 1.0 h deadline" at the on-demand count
    w, time_1, warm, factor = _tight(base, 4)
    od, sp = _rows(rank(w, [MARKET], backends=BE, now=NOW, include_rejected=True))
    # both rows may be spread over more instances within the cost tolerance (``rank.billing_sized``): the
    # counts that meet the deadline are in their reasons, the rows' figures follow their own counts
    n_od, n_sp = od.config.instances, sp.config.instances
    assert od.rank is not None and n_od >= 4
    assert sp.rejected is None and sp.rank is not None
    assert n_sp >= 5 and sp.config.gpus_used == n_sp
    assert sp.time_s == pytest.approx(time_1 / n_sp, rel=1e-12)
    assert sp.time_to_result_s == pytest.approx(warm + time_1 / n_sp * factor, rel=1e-9)
    assert sp.time_to_result_s is not None and sp.time_to_result_s <= w.deadline_hours * 3600.0  # type: ignore[operator]
    assert sp.estimate is not None and od.estimate is not None
    assert sp.estimate.throughput == pytest.approx(od.estimate.throughput * n_sp / n_od, rel=1e-12)
    deadline = duration(w.deadline_hours * 3600.0)  # type: ignore[operator]
    met = f"the {deadline} deadline (1 more for the expected spot reclaims)"
    sp_text = " ".join(sp.reasons)
    assert f"5 instances to meet {met}" in sp_text or f"{n_sp} instances: 5 meet {met}" in sp_text, sp_text
    od_text = " ".join(od.reasons)
    assert f"4 instances to meet the {deadline} deadline" in od_text or (
        f"{n_od} instances: 4 meet the {deadline} deadline" in od_text
    ), od_text
    assert "spot reclaims" not in od_text
    # n_sp instances at 0.8/h, each billed per second for its share, its warm-up and its rework (the
    # rework, time_1 x (factor - 1) instance-seconds in all, is the same whatever the count; billed time
    # too, rounded with the rest since stop 60, and a per-second bill leaves no increment unused)
    assert sp.cost is not None
    rework = time_1 * (factor - 1.0) / n_sp
    billed = math.ceil(time_1 / n_sp + warm + rework) - warm - rework
    assert sp.cost.compute == pytest.approx(0.8 * n_sp * billed / 3600.0)
    assert sp.cost.warmup == pytest.approx(0.8 * n_sp * warm / 3600.0)
    assert sp.cost.interruption == pytest.approx(0.8 * time_1 * (factor - 1.0) / 3600.0)


@pytest.mark.parametrize("base", WORKLOADS)
def test_the_ranked_spot_row_and_the_row_shown_agree(base: BatchWorkload) -> None:
    w, *_ = _tight(base, 4)
    ranker = Ranker(w, backends=BE, now=NOW)
    scored = ranker.score_rows([MARKET], "cost")
    (ranked,) = [r for r in scored.rows if r[7] == 1]  # (score, total, time, price, ..., spot, ...)
    shown = ranker.recommendation(MARKET, True, 0.8, 1, ranked[1])
    assert shown.config.instances >= 5  # 5 meet the deadline on spot; billing may spread it further
    assert any(
        (r.startswith(f"{shown.config.instances} instances") and "5 meet" in r)
        or r.startswith("5 instances to meet")
        for r in shown.reasons
    ), shown.reasons
    assert shown.time_to_result_s == ranked[2]
    assert shown.cost is not None and shown.cost.total == ranked[1]
    # and the rows the advisor returns are the ones computed from scratch for every offer
    offers = [
        MARKET,
        offer("persec", "H100-SXM", 1, 2.1, spot=0.9),
        offer("cloud", "H200-SXM", 1, 3.0, spot=1.0),
    ]
    for top in (None, 2):
        fast = rank(w, offers, top=top, backends=BE, now=NOW)
        assert fast == rank_naive(w, offers, top=top, backends=BE, now=NOW)
        assert any(r.config.spot and "for the expected spot reclaims" in " ".join(r.reasons) for r in fast)
        for r in fast:
            assert r.score == (r.cost.total if r.cost is not None else None)


def test_a_deadline_no_instance_count_meets_on_spot_keeps_the_spot_row_out() -> None:
    # at most 4 instances: on demand meets the deadline on 4, spot would need 5
    w, _, _, _ = _tight(BatchWorkload(model="small", images_total=13_700), 4)
    capped = Assumptions(max_instances=4)
    od, sp = _rows(rank(w, [MARKET], backends=BE, assumptions=capped, now=NOW, include_rejected=True))
    assert od.rank is not None and od.config.instances == 4
    deadline = duration(w.deadline_hours * 3600.0)  # type: ignore[operator]
    assert sp.rank is None and f"after the {deadline} deadline" in (sp.rejected or "")
    assert sp.config.instances == 4


def test_a_binding_deadline_says_what_the_most_instances_reach_on_spot() -> None:
    # spot-only capacity (an auction price) that no 4 instances bring within the deadline: the hint gave
    # the one-instance time and spoke of nodes and inter-node fabrics, which a batch does not need
    w, time_1, warm, factor = _tight(BatchWorkload(model="small", images_total=13_700), 4)
    auction = offer("market", "H100-SXM", 1, None, spot=0.8)
    capped = Assumptions(max_instances=4)
    found = advise(w, [auction], backends=BE, assumptions=capped, now=NOW)
    assert not found.rows and found.binding is not None
    best_s = warm + time_1 / 4 * factor  # on 4 instances, with the expected reclaims
    minutes = math.ceil(best_s / 60.0)  # under 2 h: the deadline proposed in whole minutes
    assert best_s < 2 * 3600.0
    assert "even on 4 instances (the most proposed)" in found.binding
    assert "4 x 1x H100-SXM spot at" in found.binding and "inter-node" not in found.binding
    # the deadline proposed is the tightest the row meets as well as its reclaims' spread allows (at most
    # a 10 % chance of missing it: Assumptions.max_deadline_miss), later than its expected time
    # (the hint said 61 min, which its reclaims missed about half the time)
    proposed = int(found.binding.rsplit("--deadline ", 1)[1].removesuffix("min would show it"))
    assert proposed > minutes

    def shown(at: int) -> bool:
        ranked = advise(
            w.model_copy(update={"deadline_hours": parse_hours(f"{at}min")}),
            [auction],
            backends=BE,
            assumptions=capped,
            now=NOW,
        )
        return bool(ranked.rows) and ranked.rows[0].config.spot

    assert shown(proposed) and not shown(proposed - 1) and not shown(minutes)


@pytest.mark.parametrize("base", WORKLOADS)
def test_without_a_deadline_spot_takes_the_on_demand_count(base: BatchWorkload) -> None:
    # one instance listed free, so that billing spreads neither row (``rank.billing_sized``): spot is not
    # sized for its reclaims without a deadline
    listed = dataclasses.replace(MARKET, available_count=1)
    od, sp = _rows(rank(base, [listed], backends=BE, now=NOW))
    assert od.config.instances == sp.config.instances == 1
    assert sp.time_s == od.time_s
    assert not any("instances to meet" in x for x in sp.reasons)


def test_a_row_late_by_less_than_the_rounding_says_by_how_much() -> None:
    # "finishes in 10.0 h, after the 10.0 h deadline" read as a contradiction
    kind, why = Ranker._why_not(1.0, 36_012.0, None, 36_000.0)
    assert kind == "deadline" and why == "finishes in 10.0 h (12 s late), after the 10.0 h deadline"
    assert "late" not in Ranker._why_not(1.0, 72_000.0, None, 36_000.0)[1]
    assert "under a second late" in Ranker._why_not(1.0, 36_000.4, None, 36_000.0)[1]


def test_a_deadline_no_offer_meets_on_the_most_instances_is_named_not_memory() -> None:
    # every offer would need more instances than proposed, on demand too: the answer spoke of GPU memory
    # and a narrower precision ("594 would need too many instances ... a narrower precision would need
    # less memory") and named no deadline that would do
    w, time_1, warm, _ = _tight(BatchWorkload(model="small", images_total=13_700), 4)
    capped = Assumptions(max_instances=3)  # 4 are needed even on demand
    plain = offer("cloud", "H100-SXM", 1, 2.0)  # on demand only
    found = advise(w, [plain], backends=BE, assumptions=capped, now=NOW)
    assert not found.rows and found.binding is not None
    assert found.binding.startswith("the deadline binds") and "memory" not in found.binding
    best_s = warm + time_1 / 3  # on 3 instances
    minutes = math.ceil(best_s / 60.0)  # under 2 h: the deadline proposed in whole minutes
    assert best_s < 2 * 3600.0
    assert "even on 3 instances (the most proposed)" in found.binding
    assert found.binding.endswith(f"--deadline {minutes}min would show it")
    shown = advise(
        w.model_copy(update={"deadline_hours": parse_hours(f"{minutes}min")}),
        [plain],
        backends=BE,
        assumptions=capped,
        now=NOW,
    )
    assert shown.rows
