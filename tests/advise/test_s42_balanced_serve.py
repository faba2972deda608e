"""The balanced pick of a serving answer: rows that rent more GPUs than the load needs (replicas it
does not need, or a split over more GPUs than the fewest that carry it within the targets) do not set
the 3x window, so 50 users that one H100 serves are not held to an eight-replica B200 rig's latency.
Jobs are not affected: every GPU a job rents shortens it."""

from __future__ import annotations

from datetime import UTC, datetime

from gpuscout.advise.api import advise
from gpuscout.advise.pareto import picks
from gpuscout.advise.rank import Ranker
from gpuscout.advise.workload import Workload
from gpuscout.catalog.offer import Interconnect
from tests.advise.helpers import offer

NOW = datetime(2025, 6, 1, tzinfo=UTC)
NV = Interconnect.NVLINK
OFFERS = [
    offer("vastai", "RTX3080", 4, 0.37, memory=10.0, instance="4x-RTX3080"),
    offer("hyperbolic", "H100-SXM", 1, 1.29, instance="1x-H100"),
    offer("hyperbolic", "H100-SXM", 2, 2.58, interconnect=NV, instance="2x-H100"),
    offer("hyperbolic", "H100-SXM", 3, 3.87, interconnect=NV, instance="3x-H100"),
    offer("verda", "B200", 1, 4.89, memory=180.0, instance="1x-B200"),
    offer("primeintellect", "B200", 8, 35.20, memory=180.0, interconnect=NV, instance="8x-B200"),
]


def _serve(**kw: object) -> Workload:
    return Workload.from_dict({"kind": "serve", "model": "llama-3.1-8b", **kw})


def _label(rec: object) -> str:
    return f"{rec.offer.gpu_count}x {rec.offer.accelerator}"  # type: ignore[attr-defined]


def test_fifty_users_that_one_h100_serves_get_one_h100_as_the_balanced_pick() -> None:
    w = _serve(concurrency=50)
    evaluate = Ranker(w).evaluator.evaluate
    by_name = {o.instance_type: evaluate(o) for o in OFFERS}
    # 1 B200 (1 H100) carries the 50 users within the chat targets: more of them only shorten requests
    assert by_name["8x-B200"].gpus_needed == 1 and by_name["8x-B200"].rents_surplus
    assert by_name["2x-H100"].rents_surplus and by_name["3x-H100"].rents_surplus
    assert not by_name["1x-H100"].rents_surplus and not by_name["1x-B200"].rents_surplus
    answer = advise(w, OFFERS, now=NOW)
    rows = {r.rank: r for r in answer.rows}
    assert _label(rows[answer.picks["fastest"]]) == "8x B200"
    balanced = rows[answer.picks["balanced"]]
    assert _label(balanced) == "1x H100-SXM"
    # the window is 3x the best time of a right-sized row (1x B200), not of the 8-replica rig
    one_b200 = next(r for r in answer.rows if r.offer.instance_type == "1x-B200")
    fastest = rows[answer.picks["fastest"]].time_to_result_s or 0.0
    assert (balanced.time_to_result_s or 0.0) > 3 * fastest
    assert (balanced.time_to_result_s or 0.0) <= 3 * (one_b200.time_to_result_s or 0.0)
    assert "rent no more GPUs than the load needs" in answer.picks_rule


def test_one_user_on_a_split_for_speed_rents_more_than_it_needs() -> None:
    # one user: the 8x B200 splits the model for a faster answer, over GPUs one B200 does without
    ev = Ranker(_serve()).evaluator.evaluate(OFFERS[-1])
    assert ev.tp > 1 and ev.gpus_needed == 1 and ev.rents_surplus


def test_a_request_rate_counts_the_replicas_it_needs() -> None:
    w = _serve(requests_per_s=2.0)
    evaluate = Ranker(w).evaluator.evaluate
    one, eight = evaluate(OFFERS[4]), evaluate(OFFERS[-1])
    assert one.gpus_needed == 1 and not one.rents_surplus
    assert eight.gpus_needed == 1 and eight.rents_surplus


def test_the_picks_are_the_front_with_its_surplus_flags() -> None:
    w = _serve(concurrency=50)
    answer = advise(w, OFFERS, now=NOW, top=None)
    evaluate = Ranker(w).evaluator.evaluate
    front = [r for r in answer.rows if r.pareto]
    points = [(r.total_usd or 0.0, r.time_to_result_s or 0.0) for r in front]
    flags = [evaluate(r.offer).rents_surplus for r in front]
    expected = {name: front[i].rank for name, i in picks(points, surplus=flags).items()}
    assert answer.picks == expected


def test_jobs_rent_no_surplus() -> None:
    for kind in (
        {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e9},
        {"kind": "finetune", "model": "llama-3.1-8b", "method": "lora", "dataset_tokens": 1e8},
    ):
        evaluate = Ranker(Workload.from_dict(kind)).evaluator.evaluate
        assert all(evaluate(o).gpus_needed == 0 and not evaluate(o).rents_surplus for o in OFFERS)
