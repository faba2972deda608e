"""A client that sends its next request only when one completes cannot complete more than one per
request latency: with one request in flight, requests/s = 1 / (TTFT + (O - 1) x TPOT), the engine's
per-request overhead (tokenisation, API server: part of the TTFT) included, and a one-token answer
costs its prefill alone (the forward pass over the prompt's last token samples the first token)."""

from __future__ import annotations

import pytest

from gpuscout import estimate


@pytest.mark.parametrize("engine", ["vllm", "sglang", "tgi", "tensorrt-llm"])
@pytest.mark.parametrize("output", [1, 2, 100])
def test_one_request_in_flight_completes_once_per_latency(engine: str, output: int) -> None:
    e = estimate("llama-3.1-8b", "H100", engine=engine, context_in=512, context_out=output)
    latency_s = (e.ttft_ms + (output - 1) * e.tpot_ms) / 1000.0
    assert e.requests_per_s == pytest.approx(1.0 / latency_s, rel=0.01)
    assert e.output_tokens_per_s_total == pytest.approx(output * e.requests_per_s, rel=1e-9)


def test_overhead_outside_the_engine_does_not_lower_a_saturated_engine() -> None:
    # far more clients than the engine runs at once: the engine sets the pace; a client's time outside
    # it (the request overhead) only shortens its wait in the queue
    e = estimate("llama-3.1-8b", "L4", engine="vllm", context_in=2000, context_out=500, concurrency=5000)
    assert e.binding_limit in {"kv_cache", "scheduler", "prefill"}
    running = e.batch
    latency_s = (e.ttft_ms + (500 - 1) * e.tpot_ms) / 1000.0
    assert e.requests_per_s == pytest.approx(5000 / latency_s, rel=0.02)
    assert e.requests_per_s < 5000 / latency_s * 1.02
    assert running < 5000
