"""A chunked-prefill engine whose budget counts prompt tokens alone (llama.cpp, SGLang, TGI) keeps at most
the sequences its prompts feed decoding (serving.prompt_fed_cap); more clients wait for a prompt slot.

Counted as running, those waiting clients' decodes were added to every step (phantom decodes): requests/s
fell as clients were added below the memory cap, and Little's law broke (TTFT 1 s where 64 clients of a
2.1 requests/s engine wait ~25 s)."""

from __future__ import annotations

import math

import pytest

from gpuscout import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.serving import prompt_fed_cap, token_budget_cap

PROMPT_HEAVY = [
    ("llama-3.1-8b", "H100", {"engine": "llama.cpp", "context_in": 4000, "context_out": 100}),
    ("llama-3.1-8b", "H200", {"engine": "sglang", "context_in": 8000, "context_out": 50}),
    ("llama-3.1-8b", "MI300X", {"engine": "tgi", "gpus": 2, "context_in": 4096, "context_out": 512}),
]


def _little(est: estimate.api.Estimate, output: int) -> float:
    """Requests in the system by Little's law: requests/s x (TTFT + (O - 1) x TPOT)."""
    return est.requests_per_s * (est.ttft_ms + (output - 1) * est.tpot_ms) / 1000.0


@pytest.mark.parametrize(("model", "gpu", "kw"), PROMPT_HEAVY)
def test_closed_loop_keeps_littles_law_past_the_prompt_fed_point(model: str, gpu: str, kw: dict) -> None:
    for c in (16, 64, 128):
        est = estimate(model, gpu, concurrency=c, **kw)
        assert _little(est, kw["context_out"]) == pytest.approx(c, rel=0.03)


@pytest.mark.parametrize(("model", "gpu", "kw"), PROMPT_HEAVY)
def test_clients_past_the_prompt_fed_point_only_wait(model: str, gpu: str, kw: dict) -> None:
    fed = prompt_fed_cap(resolve_engine(kw["engine"]), kw["context_in"], kw["context_out"])
    assert fed is not None
    at = [estimate(model, gpu, concurrency=fed * m, **kw) for m in (2, 4, 8)]
    assert {e.batch for e in at} == {fed}
    assert at[1].requests_per_s == pytest.approx(at[0].requests_per_s, rel=0.01)
    assert at[2].requests_per_s == pytest.approx(at[0].requests_per_s, rel=0.01)
    assert at[2].tpot_ms == pytest.approx(at[0].tpot_ms, rel=0.01)
    assert at[0].ttft_ms < at[1].ttft_ms < at[2].ttft_ms


def test_llama_cpp_hand_case() -> None:
    # llama-server fills a 2,048-token batch an iteration (decodes first): 16,000-token prompts take ~8
    # iterations of ~2,010 prompt tokens, so an iteration replaces 1/8 of a request and 299/8 ~ 37 decode
    # beside the one prompt: 38 run. 4,000-token prompts: 2 chunks of ~2,000, 99/2 + 1 ~ 50 run
    eng = resolve_engine("llama.cpp")
    assert prompt_fed_cap(eng, 16000, 300) == 38
    assert prompt_fed_cap(eng, 4000, 100) == 50
    kw = {"engine": "llama.cpp", "context_in": 4000, "context_out": 100}
    est = estimate("llama-3.1-8b", "H100", concurrency=64, **kw)
    assert est.batch == 50
    assert est.binding_limit == "prefill"
    queued = [w for w in est.warnings if "the rest queue" in w]
    assert len(queued) == 1 and "(the prompts its 2048-token budget per step feeds)" in queued[0]
    assert est.queue_ms > 0.8 * est.ttft_ms
    assert est.ttft_ms / 1000 == pytest.approx(64 / est.requests_per_s - 99 * est.tpot_ms / 1000, rel=0.03)


def test_no_cap_where_prompts_keep_up_or_in_waves() -> None:
    sglang = resolve_engine("sglang")
    assert prompt_fed_cap(sglang, 1000, 1000) is None  # 8,192 prompt tokens a step feed every sequence
    assert token_budget_cap(sglang, 8000, 50, steady=False) is None  # a burst prefills before it decodes
    assert token_budget_cap(sglang, 8000, 50) == prompt_fed_cap(sglang, 8000, 50)
    # vLLM counts decodes in its budget: its own cap, M O / (P + O)
    vllm = resolve_engine("vllm")
    assert token_budget_cap(vllm, 4000, 100) == math.floor(vllm.prefill_chunk_tokens * 100 / 4100)


# (model, card, engine, output tokens, clients): a batch that stays the same over the sweep
MONOTONE_SWEEP = [
    ("llama-3.1-8b", "H100", "vllm", 64, 32),
    ("llama-3.1-8b", "H100", "sglang", 128, 32),
    ("llama-3.1-8b", "H100", "llama.cpp", 16, 8),
    ("qwen2.5-7b", "L40S", "vllm", 64, 12),
    ("qwen2.5-7b", "L40S", "sglang", 64, 16),
    ("qwen2.5-7b", "L40S", "llama.cpp", 32, 16),
]


@pytest.mark.parametrize(("model", "gpu", "engine", "output", "clients"), MONOTONE_SWEEP)
def test_a_longer_prompt_never_serves_more_requests(
    model: str, gpu: str, engine: str, output: int, clients: int
) -> None:
    # In a steady flow the scheduler packs prompt chunks into each step's budget contiguously: a prompt
    # costs P / budget full steps, not ceil(P / budget) equal chunks. Split into two half-full chunks,
    # an 8,167-token prompt hid a plain step's decodes in two compute-bound steps and served ~5 % more
    # requests/s than an 8,142-token one (and came out with a shorter TTFT and TPOT)
    budget = resolve_engine(engine).step_token_budget
    prompts = range(budget - 400, budget + 401, 25)
    runs = [
        estimate(model, gpu, engine=engine, context_in=p, context_out=output, concurrency=clients)
        for p in prompts
    ]
    assert {e.batch for e in runs} == {clients}
    for p, shorter, longer in zip(prompts[1:], runs[:-1], runs[1:], strict=True):
        assert longer.requests_per_s <= shorter.requests_per_s, p
        assert longer.ttft_ms >= shorter.ttft_ms, p
        assert longer.tpot_ms >= shorter.tpot_ms, p
