"""TGI admits waiting requests only every ``max_waiting_tokens`` decode steps, so of C clients fewer than C
decode at a time: C x O / (O + k/2) on average, a mean that is rarely a whole number. Rounding it (2 clients
of 12-token prompts and 50 outputs: 1.67 -> 2 decoding, plus the 10-step admission wait) broke Little's law
by ~20 %; the estimate now weighs the two whole batches around the mean (serving._blended_state)."""

from __future__ import annotations

import itertools

import pytest

from gpuscout import estimate


def _in_system(est: estimate.api.Estimate, output: int) -> float:
    """Requests in the system by Little's law: requests/s x (TTFT + (O - 1) x TPOT)."""
    return est.requests_per_s * (est.ttft_ms + (output - 1) * est.tpot_ms) / 1000.0


@pytest.mark.parametrize("gpu", ["A10G", "H100-SXM"])
@pytest.mark.parametrize("clients", [2, 3, 4, 5, 6])
def test_tgi_admission_wait_keeps_littles_law(gpu: str, clients: int) -> None:
    est = estimate("llama-3.1-8b", gpu, engine="tgi", context_in=12, context_out=50, concurrency=clients)
    assert _in_system(est, 50) == pytest.approx(clients, rel=0.03)


def test_one_more_client_never_lowers_tgi_requests_per_s_below_the_admission_point() -> None:
    rates = [
        estimate(
            "llama-3.1-8b", "A10G", engine="tgi", context_in=12, context_out=50, concurrency=c
        ).requests_per_s
        for c in range(1, 9)
    ]
    assert all(b >= a for a, b in itertools.pairwise(rates)), rates
