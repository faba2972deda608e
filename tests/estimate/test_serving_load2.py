"""Hand-checkable serving physics of the second load round: the token budget a chunked engine shares
between decodes and prompt chunks, and finite runs whose output lengths vary (ShareGPT). Every expected
number is worked out in the comment next to it."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpuscout.estimate.api import _for_model, estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.estimate.serving import _harmonic, _levels, _varied_excess, drain_seconds, token_budget_cap
from gpuscout.estimate.throughput import Setup, decode_step
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model


def test_a_token_budget_shared_with_decodes_caps_the_running_batch() -> None:
    # vLLM 0.6 with --max-num-batched-tokens 1024 serving Llama-3.1-405B (context 131072 > 32K: V0 turns
    # chunked prefill on): ShareGPT requests of 220 + 200 tokens. B decodes + (B / 200 completions per
    # step) x 220 prompt tokens <= 1024: B <= 1024 x 200 / 420 = 487.6 -> 487
    v0 = dataclasses.replace(resolve_engine("vLLM 0.6.2"), max_num_batched_tokens=1024, max_num_seqs=1024)
    eng = _for_model(v0, resolve_model("llama-3.1-405b"))
    assert eng.chunked_prefill and eng.prefill_chunk_tokens == 1024
    assert token_budget_cap(eng, 220, 200) == 487
    # requests in waves prefill before they decode: only B <= M binds
    assert token_budget_cap(eng, 220, 200, steady=False) == 1024
    # prefills as their own steps (TGI 2, vLLM V0 without chunking): no such cap
    assert token_budget_cap(resolve_engine("TGI 2.3"), 220, 200) is None
    # budgets of prompt tokens alone (SGLang chunked_prefill_size, TGI 3 max_batch_prefill_tokens): none
    assert token_budget_cap(resolve_engine("sglang"), 220, 200) is None
    assert token_budget_cap(resolve_engine("tgi"), 220, 200) is None
    # TensorRT-LLM's max_num_tokens 8192 counts generation tokens: 8192 x 200 / 420 = 3900.9 -> 3900
    assert token_budget_cap(resolve_engine("tensorrt-llm"), 220, 200) == 3900


def test_the_budget_cap_sets_the_batch_of_an_overloaded_engine() -> None:
    # 16 requests/s of 1000 ShareGPT prompts against the 8x MI300X box of the vLLM AMD blog's default
    # config: the engine runs 487 sequences (not 1024, at which no prompt would be admitted), and the
    # capacity stays near the measured 4.05 requests/s instead of collapsing to ~0.01
    v0 = dataclasses.replace(resolve_engine("vLLM 0.6.2"), max_num_batched_tokens=1024, max_num_seqs=1024)
    est = estimate(
        "llama-3.1-405b",
        "MI300X",
        gpus=8,
        precision="bf16",
        engine=v0,
        request_rate=16.0,
        num_requests=1000,
        context_in=220,
        context_out=200,
    )
    assert est.batch == 487
    assert 1.0 < est.requests_per_s < 16.0


# ------------------------------------------------------------------------ varied output lengths (ShareGPT)


def _vllm_setup() -> Setup:
    return Setup(
        resolve_model("llama-3.1-8b"),
        resolve_gpu("A100 SXM 80GB"),
        resolve_precision("bf16"),
        resolve_kv_dtype("bf16"),
        resolve_engine("vllm"),
        1,
        "tensor",
    )


def test_draining_exponential_outputs_pays_the_fixed_step_for_the_longest_request() -> None:
    # four running sequences with exponential outputs of mean 200 tokens: with k running the next one
    # ends after 200 / k steps, so the drain takes 200 x (s4/4 + s3/3 + s2/2 + s1/1) seconds
    st = _vllm_setup()
    s = {k: decode_step(st, k, 220 + 200).total for k in (1, 2, 3, 4)}
    total, tpot = drain_seconds(st, 4, 220, 200)
    assert total == pytest.approx(200 * (s[4] / 4 + s[3] / 3 + s[2] / 2 + s[1]))
    # the request leaving at level 4 saw only level 4; the one leaving at level 1 saw all four levels,
    # 200/4, 200/3, 200/2 and 200/1 steps of each: TPOTs weighted by 1/j, averaged over the four
    w = {k: 1.0 / k for k in s}

    def seen(k: int) -> float:
        levels = range(k, 5)
        return sum(w[j] * s[j] for j in levels) / sum(w[j] for j in levels)

    assert tpot == pytest.approx(sum(seen(k) for k in (1, 2, 3, 4)) / 4)
    # longer than the mean-length model's 200 steps at batch 4: the fixed part of the step is paid
    # for 200 x H_4 = 417 steps
    assert total > 200 * s[4]


def test_level_bins_cover_every_level_once() -> None:
    # the bins stand for levels 1..1000: counts add up to 1000, weights to H_1000 = 7.4855
    bins = _levels(1000)
    assert sum(n for _, _, n in bins) == pytest.approx(1000)
    assert sum(w for _, w, _ in bins) == pytest.approx(7.4855, abs=1e-3)
    assert _harmonic(4) == pytest.approx(1 + 1 / 2 + 1 / 3 + 1 / 4)


def test_a_finite_sharegpt_burst_ends_with_its_longest_requests() -> None:
    # 1000 ShareGPT prompts at once on Llama-3.1-405B BF16, 8x MI300X, vLLM 0.6 (all admitted: 1024
    # slots): with mean lengths the run is 200 decode steps at ~1000 sequences; with exponential
    # lengths the last requests decode on at small batch for ~200 x H_1000 steps of mostly fixed cost,
    # so requests/s falls (the vLLM AMD blog measured 5.76 requests/s here)
    kwargs = dict(
        gpus=8,
        precision="bf16",
        engine="vLLM 0.6.2",
        request_rate=math.inf,
        num_requests=1000,
        context_in=220,
        context_out=200,
    )
    same = estimate("llama-3.1-405b", "MI300X", **kwargs)  # type: ignore[arg-type]
    varied = estimate("llama-3.1-405b", "MI300X", varied_output=True, **kwargs)  # type: ignore[arg-type]
    assert varied.requests_per_s < 0.8 * same.requests_per_s
    # the prompts are the same: the first tokens come out at the same time
    assert varied.ttft_ms == pytest.approx(same.ttft_ms)


def test_a_static_batch_waits_for_its_longest_output() -> None:
    # HF generate keeps every row of a batch until its longest output ends: with exponential lengths of
    # mean 200, E[max of 4] = 200 x H_4 = 200 x 2.0833 = 416.7 steps at batch 4, i.e. 216.7 steps more
    # than the mean-length wave (the step taken at the wave's mean context, 220 + 100 tokens)
    st = dataclasses.replace(_vllm_setup(), engine=resolve_engine("hf-transformers"))
    step = decode_step(st, 4, 220 + 100).total
    extra, tpot = _varied_excess(st, 4, 220, 200)
    assert extra == pytest.approx(200 * (1 / 2 + 1 / 3 + 1 / 4) * step)
    assert extra == pytest.approx(216.67 * step, rel=1e-3)
    assert tpot == pytest.approx(step)


def _vllm_on(gpu: str, model: str = "llama-3.1-8b", **flags: int) -> tuple[str, str]:
    eng = dataclasses.replace(resolve_engine("vllm"), **flags) if flags else resolve_engine("vllm")
    est = estimate(model, gpu, engine=eng, context_in=1000, context_out=200, concurrency=2000)
    return est.assumptions["batching"], est.assumptions["load"]


def test_vllm_v1_sizes_its_sequence_cap_and_step_budget_by_the_gpus_memory() -> None:
    # vLLM V1's OpenAI server (EngineArgs.get_batch_defaults, 0.34.0): 16384 tokens per step and 1024
    # sequences from 160 GiB; 8192 and 1024 from 70 GiB unless the GPU is an A100; 2048 and 256 elsewhere
    batching, load = _vllm_on("H100-SXM")  # 79.6 GiB: the ~460 sequences the KV cache holds bind
    assert "8192 tokens/step" in batching and "KV cache" in load and "cap 256" not in load
    # 1024 allowed; ~990 fit at the full 1,200 tokens, all 1024 at the ~1,100 staggered requests hold
    batching, load = _vllm_on("B200")
    assert "16384 tokens/step" in batching and "(cap 1024, scheduler)" in load
    batching, load = _vllm_on("MI300X")  # 192 GB: the engine's 1024 bind
    assert "16384 tokens/step" in batching and "(cap 1024, scheduler)" in load
    batching, load = _vllm_on("A100-SXM4-80GB")  # the A100 exception
    assert "2048 tokens/step" in batching and "(cap 256, scheduler)" in load
    # 48 GB: a 0.5B model's cache holds thousands of 1.2k-token sequences, the engine runs 256
    batching, load = _vllm_on("L40S", "qwen2.5-0.5b")
    assert "2048 tokens/step" in batching and "(cap 256, scheduler)" in load
    batching, load = _vllm_on("H100-SXM", "qwen2.5-0.5b")  # on an H100: 1024
    assert "(cap 1024, scheduler)" in load
    # stated flags stand on every GPU
    batching, load = _vllm_on("H100-SXM", max_num_batched_tokens=4096, max_num_seqs=128)
    assert "4096 tokens/step" in batching and "(cap 128, scheduler)" in load
    # V0 (0.4-0.7) did not look at the GPU: 256 sequences on an H100 (Llama 3 8B: 8192-token context,
    # unchunked, so the step budget does not bind first)
    v0 = estimate(
        "llama-3-8b", "H100-SXM", engine="vLLM 0.6.3", context_in=1000, context_out=200, concurrency=2000
    )
    assert "(cap 256, scheduler)" in v0.assumptions["load"]
