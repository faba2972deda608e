"""An endpoint whose renter states latency targets accepts every request latency those targets allow: the
balanced pick's window reaches it, however much faster the fastest row is. 125 users of a 70B held to
TTFT <= 5 s and <= 350 ms per token: one box at $1,444 (68 s a request), two boxes at $1,999 (47 s), 63
boxes at $32,052 (11 s). The 3x window alone (33 s) left only the $32k rig to be "balanced"."""

from __future__ import annotations

from datetime import UTC, datetime

from gpuscout.advise.answer import picks_rule
from gpuscout.advise.api import advise
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.pareto import acceptable_latency, picks
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.offer import Availability, Interconnect
from tests.advise.expert_rules import answer_violations
from tests.advise.helpers import offer

FRONT = [(1444.0, 67.7), (1999.0, 47.5), (32052.0, 11.4)]


def test_the_latency_the_targets_allow_is_within_the_balanced_window() -> None:
    allowed = acceptable_latency(5000.0, 350.0, 256)
    assert allowed == (5000.0 + 256 * 350.0) / 1000.0
    assert picks(FRONT)["balanced"] == 2  # 3x 11.4 s: only the fastest row
    chosen = picks(FRONT, acceptable=allowed)
    assert chosen["balanced"] == 1  # least 1999/1444 x 47.5/11.4 among all three
    assert (chosen["cheapest"], chosen["fastest"]) == (0, 2)


def test_no_target_no_change() -> None:
    assert acceptable_latency(None, 350.0, 256) == acceptable_latency(5000.0, None, 256) == 0.0
    assert picks(FRONT, acceptable=0.0) == picks(FRONT)
    # the chat defaults are a floor of quality, not a statement of what latency is acceptable
    assert ServeWorkload(model="llama-3.1-8b", concurrency=50).stated_latency_s == 0.0
    stated = ServeWorkload(model="llama-3.1-8b", concurrency=50, tpot_ms_max=100.0)
    assert stated.stated_latency_s == (2000.0 + 256 * 100.0) / 1000.0  # with the chat TTFT


def test_the_rule_says_so_for_an_endpoint_with_targets() -> None:
    text = picks_rule(3.0, 0.05, serve=True, acceptable=94.6)
    assert "or within the 94.6 s a request may take by the latency targets stated" in text
    assert "latency targets" not in picks_rule(3.0, 0.05, serve=True)


def test_the_advisor_names_the_two_box_row_balanced() -> None:
    now = datetime(2026, 12, 5, tzinfo=UTC)

    def box(gpus: int, price: float, name: str):  # type: ignore[no-untyped-def]
        return offer(
            name, "RTX4090", gpus, price, memory=24.0, interconnect=Interconnect.PCIE,
            availability=Availability.AVAILABLE, observed_at=now,
        )  # fmt: skip

    w = ServeWorkload(
        model="llama-3.1-70b", precision="awq", engine="vllm", concurrency=125, tpot_ms_max=350.0,
        ttft_ms_max=5000.0,
    )  # fmt: skip
    offers = [box(5, 2.0, "five"), box(8, 2.77, "eight"), box(2, 0.70, "two")]
    advice = advise(w, offers, top=10, now=now)
    by_number = {r.rank: r for r in advice.rows}
    cheapest, balanced, fastest = (by_number[advice.picks[k]] for k in ("cheapest", "balanced", "fastest"))
    assert cheapest.offer.gpu_count == 5 and fastest.offer.gpu_count == 2
    assert balanced.offer.gpu_count == 8  # not the many-box fastest rig
    assert answer_violations(w, advice, Assumptions()) == []


def test_one_target_stated_with_the_other_dropped_bounds_no_whole_request() -> None:
    """--ttft-ms 5000 --latency-targets none: any decode speed is accepted, so no request latency is too
    slow to be balanced (it fell back to the 3x window: relaxing a target made the pick 16x dearer)."""
    import math

    w = ServeWorkload(model="llama-3.1-8b", concurrency=50, ttft_ms_max=5000.0, latency_targets="none")
    assert math.isinf(w.stated_latency_s)
    assert picks(FRONT, acceptable=w.stated_latency_s)["balanced"] == 1
    assert "or any, the latency target stated" in picks_rule(3.0, 0.05, serve=True, acceptable=math.inf)
