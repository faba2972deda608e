"""A chunk step carries the prompts the flow needs on average (fractional: 1.01 prompts a step), not the next
whole number: one more client past the point where a step needs more than one prompt cut requests/s by
18 % (every chunk step carried two whole prompts). A physics review."""

from __future__ import annotations

import itertools

import pytest

from gpuscout import estimate

KW = {"gpus": 2, "context_in": 4000, "context_out": 100}


@pytest.mark.parametrize("engine", ["vllm", "sglang", "tensorrt-llm"])
def test_one_more_client_never_costs_requests_per_second(engine: str) -> None:
    rates = [
        estimate("qwen3-30b-a3b", "H100", engine=engine, concurrency=c, **KW).requests_per_s
        for c in (99, 100, 101, 102)
    ]
    assert all(b >= a * 0.995 for a, b in itertools.pairwise(rates)), rates
    assert rates[-1] < rates[0] * 1.05  # and it does not jump up either
