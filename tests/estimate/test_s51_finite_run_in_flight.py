"""A finite open-loop run above capacity: the requests in flight are the run's time average (Little's law),
never more than the run holds.

100 requests arriving at 2/s on an L4 that serves ~0.36/s: each spends its wait plus a full engine's
latency in the system, over the ~N / x seconds the run lasts, so the mean in flight is requests/s x
(TTFT + (O - 1) TPOT), ~42 here. Before, the queue's growth rate of an endless run was multiplied by the
finite run's mean wait: 148 requests "in flight" in a run of 100.
"""

from __future__ import annotations

import pytest

from gpuscout import estimate


def _run(n: int | None):
    return estimate(
        "llama-3.1-8b", "L4", engine="vllm", request_rate=2, num_requests=n, context_in=2000, context_out=300
    )


@pytest.mark.parametrize("n", [20, 100, 400])
def test_finite_run_in_flight_is_littles_law_and_at_most_the_run(n: int) -> None:
    e = _run(n)
    assert e.requests_per_s < 2.0  # above capacity: the queue grows while the requests arrive
    latency_s = e.ttft_ms / 1e3 + (300 - 1) * e.tpot_ms / 1e3
    assert e.concurrency <= n
    assert e.concurrency == pytest.approx(e.requests_per_s * latency_s, rel=0.02)


def test_longer_runs_hold_more_in_flight() -> None:
    assert _run(20).concurrency < _run(100).concurrency < _run(400).concurrency


def test_endless_run_counts_the_engine_full() -> None:
    e = _run(None)
    assert e.ttft_ms == float("inf")
    assert e.concurrency == pytest.approx(e.batch)
