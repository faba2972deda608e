"""An open-loop finite run's TTFT as its arrival rate crosses the engine's capacity: Poisson arrivals wait
for the prefill budget on both sides of it (the M/D/1 wait of the prompt's own prefill work), so a
higher rate never lowers the mean TTFT. Every expected number is worked out next to it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.throughput import prefill_compute_seconds
from tests.estimate.setups import make_setup

# Llama-3.3-70B in FP8 on one B200 under vLLM, 4096-token prompts and 512-token outputs, 500 requests
_RUN = {"gpus": 1, "precision": "fp8", "engine": "vllm", "context_in": 4096, "context_out": 512}


def _capacity() -> float:
    """Requests/s the setup serves when arrivals outrun it (the saturated branch's throughput)."""
    return estimate("Llama-3.3-70B", "B200", request_rate=1000.0, num_requests=500, **_RUN).requests_per_s


def test_a_finite_run_just_above_capacity_waits_for_the_prefill_budget_too() -> None:
    # just above capacity c the 500 requests never fill the slots (the run ends before the queue for them
    # forms: _finite_run_wait is 0), but the prompts still arrive at random: each waits the M/D/1 wait
    # of one prompt's prefill work s at utilisation rho = rate x s: rho s / (2 (1 - rho)). The old
    # saturated branch counted only evenly spaced arrivals and gave 0 here.
    c = _capacity()
    rate = 1.001 * c
    st = make_setup("llama-3.3-70b", "B200", precision="fp8")
    # timed as the estimate times it: with the engine's measured kernel figures for the B200's generation
    s = prefill_compute_seconds(replace(st, engine=st.engine.on_generation(st.acc.nvidia_cc)), 4096)
    rho = rate * s
    assert 0.0 < rho < 0.95
    md1_ms = rho * s / (2.0 * (1.0 - rho)) * 1000.0
    above = estimate("Llama-3.3-70B", "B200", request_rate=rate, num_requests=500, **_RUN)
    assert above.binding_limit == "queueing"
    assert above.queue_ms == pytest.approx(md1_ms, rel=1e-6)


def test_ttft_does_not_drop_as_the_rate_crosses_capacity() -> None:
    # 0.999 c and 1.001 c: the same engine, nearly the same arrivals; the saturated side's queue adds to
    # the wait below it, so its TTFT is at least as long (the old code fell from ~580 to ~410 ms here)
    c = _capacity()
    below = estimate("Llama-3.3-70B", "B200", request_rate=0.999 * c, num_requests=500, **_RUN)
    above = estimate("Llama-3.3-70B", "B200", request_rate=1.001 * c, num_requests=500, **_RUN)
    assert below.binding_limit != "queueing" and above.binding_limit == "queueing"
    assert above.ttft_ms >= below.ttft_ms
    assert above.queue_ms >= below.queue_ms
