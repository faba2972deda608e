"""An uncalibrated pick's calibrated substitute says how far it is, not just its number.

``recommend batch llama-3.1-8b --output-total 1B --top 6`` read "fastest on the front #3 (speed
uncalibrated for B200 batch inference; calibrated: #374, not shown: --explain 374)". #374 was right by the
rule (the fastest row among the calibrated ones: 64 MI300X, 45 min against the B200s' 38 min) but numbered
far down a ranking by cost, so the number alone read as "no help". The substitute now says what it is and
how far from the pick ("the fastest calibrated row is #374: 1.2x the time at 3.2x the cost")."""

from __future__ import annotations

from datetime import UTC, datetime

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from tests.advise.helpers import offer

NOW = datetime(2025, 6, 1, tzinfo=UTC)

# a cheap B200 (uncalibrated batch inference) is the fastest and cheapest row; the fastest calibrated row,
# an H200, is numbered after the A100 rows a cost ranking puts ahead of it
OFFERS = [
    offer("p", "B200", 1, 1.00, memory=180.0, instance="1x-B200"),
    *(
        offer("p", "A100-SXM4-80GB", 1, 1.50 + i / 1000, instance=f"1x-A100-{i}", region=f"r{i}")
        for i in range(5)
    ),
    offer("p", "H200-SXM", 1, 4.00, memory=141.0, instance="1x-H200"),
]
WORKLOAD = Workload.from_dict(
    {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e8, "spot_allowed": False}
)


def test_the_calibrated_substitute_says_how_far_it_is() -> None:
    answer = advise(WORKLOAD, OFFERS, now=NOW, top=None)
    rows = {r.rank: r for r in answer.rows}
    fastest = next(u for u in answer.uncalibrated_picks if u.pick == "fastest")
    own, sub = rows[fastest.number], rows[fastest.calibrated]  # type: ignore[index]
    assert own.offer.accelerator == "B200" and sub.offer.instance_type == "1x-H200"
    assert own.time_to_result_s and sub.time_to_result_s and own.total_usd and sub.total_usd
    t = sub.time_to_result_s / own.time_to_result_s
    c = sub.total_usd / own.total_usd
    assert t > 1.0 and c > 1.0
    assert fastest.text == (
        f"speed uncalibrated for B200 batch inference; the fastest calibrated row is #{fastest.calibrated}: "
        f"{t:.1f}x the time at {c:.1f}x the cost"
    )
    cheapest = next(u for u in answer.uncalibrated_picks if u.pick == "cheapest")
    said = f"the cheapest calibrated row is #{cheapest.calibrated}: "
    assert cheapest.text.startswith(f"speed uncalibrated for B200 batch inference; {said}")
