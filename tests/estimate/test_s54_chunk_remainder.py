"""A chunked engine fills its first chunks to the full token budget and the last one takes the rest, and
every step reads all the weights: a prompt one token past a budget multiple waits a memory-bound step
more for its first token. The prompt was split into equal chunks (2,049 tokens as two 1,024.5-token
steps under a 2,048-token budget), which hid that step's weight read under the compute: llama-3.1-8b on
an L40S under vLLM gave 208 ms at 2,048 prompt tokens and 209 ms at 2,049. A renter's report."""

from __future__ import annotations

import itertools
import math

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.serving import _state
from gpuscout.estimate.throughput import Setup, step_weight_bytes
from tests.estimate.setups import make_setup

OUT = 256

SETUPS = {
    "vllm L40S 8B": ("llama-3.1-8b", "L40S", "bf16", "vllm"),
    "llama.cpp L40S 8B": ("llama-3.1-8b", "L40S", "q4_k_m", "llama.cpp"),
}


def _weight_read(st: Setup) -> float:
    """Seconds one step takes to read the weights a single token touches (all of a dense model's)."""
    return sum(step_weight_bytes(st, 1)) / st.achieved_bandwidth


@pytest.mark.parametrize("name", SETUPS)
@pytest.mark.parametrize("running", [1, 4])
def test_one_token_past_the_budget_costs_a_weight_read_step(name: str, running: int) -> None:
    # the budget a step leaves for prompt tokens beside the other running - 1 decodes; at k budgets the
    # prompt is k full steps, one token more is k full steps and a 1-token step that reads the weights
    st = make_setup(*SETUPS[name])
    budget = st.engine.step_token_budget - (running - 1)
    for k in (1, 2, 3):
        at = _state(st, running, k * budget, OUT).ttft_s
        past = _state(st, running, k * budget + 1, OUT).ttft_s
        assert past - at >= _weight_read(st), (k, at, past)


@pytest.mark.parametrize("name", SETUPS)
@pytest.mark.parametrize("running", [1, 4])
def test_ttft_never_falls_as_the_prompt_grows_across_budget_multiples(name: str, running: int) -> None:
    st = make_setup(*SETUPS[name])
    budget = st.engine.step_token_budget - (running - 1)
    prompts = sorted(
        {
            p
            for k in (1, 2, 3)
            for p in (*range(k * budget - 6, k * budget + 7), *range(k * budget - 500, k * budget + 501, 61))
        }
    )
    ttfts = [_state(st, running, p, OUT).ttft_s for p in prompts]
    for (p0, t0), (p1, t1) in itertools.pairwise(zip(prompts, ttfts, strict=True)):
        assert t1 >= t0, (p0, t0, p1, t1)
        if math.ceil(p1 / budget) > math.ceil(p0 / budget):  # a step more: a partial one after full ones
            assert t1 - t0 >= _weight_read(st), (p0, t0, p1, t1)


def test_the_renters_case_through_the_estimate() -> None:
    # vLLM on an L40S steps 2,048 tokens at most: 2,049 prompt tokens are a full step then a 1-token step
    # that reads the 16 GB of weights again, about a plain decode step at one request (its TPOT)
    kw = {"engine": "vllm", "concurrency": 1, "context_out": OUT}
    at = estimate("llama-3.1-8b", "L40S", context_in=2048, **kw)
    past = estimate("llama-3.1-8b", "L40S", context_in=2049, **kw)
    assert past.ttft_ms - at.ttft_ms >= 0.9 * at.tpot_ms, (at.ttft_ms, past.ttft_ms, at.tpot_ms)


def test_a_one_token_remainder_pays_its_own_all_reduce_not_a_full_chunks() -> None:
    """70B over 4x L40S (PCIe): the one-prompt prefill time of 8,193 tokens is that of 8,192 plus about one
    weight-read step, not plus a whole 2,048-token chunk's all-reduces (~1.4 s over PCIe)."""
    from gpuscout import estimate as run

    def prefill_s(prompt: int) -> tuple[float, float]:
        e = run("llama-3.1-70b", "L40S", gpus=4, engine="vllm", context_in=prompt, context_out=64, batch=1)
        return prompt / e.prefill_tokens_per_s, e.tpot_ms / 1000.0

    at, step = prefill_s(8192)
    past, _ = prefill_s(8193)
    assert step * 0.5 < past - at < step * 2.0
