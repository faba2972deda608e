"""A static batch (HF ``generate``, gpt-fast, TensorRT-LLM's 0.5-era session benchmark) prefills all its
prompts in one forward pass: its activations grow with the batch, where a continuous-batching engine
sizes them for its step budget whatever the load."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate, memory_needed
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import activation_bytes, max_batch, plan_memory, prefill_pass
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model

BF16 = resolve_precision("bf16")
BF16_KV = resolve_kv_dtype("bf16")


def test_the_same_tokens_in_one_forward_take_the_same_activations() -> None:
    # 1 x 30,720 tokens and 8 x 3,840 tokens are both 30,720 tokens in one HF forward pass
    one = memory_needed("llama-3.1-8b", "L40S", batch=1, context=30720, engine="hf").memory
    eight = memory_needed("llama-3.1-8b", "L40S", batch=8, context=3840, engine="hf").memory
    # the same pass but for seven more fp32 logits rows (128,256 x 4 B each)
    assert eight.activations_gb == pytest.approx(one.activations_gb + 7 * 128256 * 4 / 1e9, rel=1e-6)
    assert one.activations_gb > 3.0


def test_a_static_batch_of_48_long_prompts_does_not_fit_an_l40s() -> None:
    # 48 x 3,500 tokens = 168,000 tokens in one pass: ~19 GB of activations next to 16 GB of weights and
    # 22 GB of cache (the old reading charged one sequence's pass, 0.43 GB, and said it fits in 39.4 GB)
    spec, eng = resolve_model("llama-3.1-8b"), resolve_engine("hf")
    need = memory_needed(spec, "L40S", batch=48, context=3500, engine="hf")
    expected = activation_bytes(spec, BF16, eng, 48 * 3500, 3500, sequences=48)
    assert need.memory.activations_gb == pytest.approx(expected / 1e9, rel=1e-9)
    assert need.memory.activations_gb > 15.0
    assert not need.fits
    assert 0 < need.max_batch < 48
    fit = need.max_batch
    assert any(f"{fit} sequences of this length fit" in w for w in need.warnings)


def test_max_batch_of_a_static_batch_counts_its_prefill_pass() -> None:
    need = memory_needed("llama-3.1-8b", "L40S", batch=1, context=3500, engine="hf")
    n = need.max_batch
    assert memory_needed("llama-3.1-8b", "L40S", batch=n, context=3500, engine="hf").fits
    assert not memory_needed("llama-3.1-8b", "L40S", batch=n + 1, context=3500, engine="hf").fits
    # batch "max" runs that many, and the memory it reports is that whole batch's pass
    est = estimate("llama-3.1-8b", "L40S", engine="hf", batch="max", context_in=3000, context_out=500)
    # (its pass is the 3,000-token prompts', a little less than memory_needed's whole 3,500 tokens)
    spec, acc, eng = resolve_model("llama-3.1-8b"), resolve_gpu("L40S"), resolve_engine("hf")
    m = max_batch(plan_memory(spec, acc, BF16, BF16_KV, eng, batch=1, context=3500, prompt=3000))
    assert est.fits and est.batch == m and est.max_batch == m and n <= m < n * 1.2
    assert est.memory.total_gb <= est.memory.usable_gb
    one = memory_needed("llama-3.1-8b", "L40S", batch=1, context=3500, engine="hf").memory
    assert est.memory.activations_gb > (n - 1) * one.activations_gb * 0.9


def test_an_explicit_static_batch_too_large_runs_what_fits_and_says_so() -> None:
    est = estimate("llama-3.1-8b", "L40S", engine="hf", batch=48, context_in=3000, context_out=500)
    # the pass is the prompts' (3,000 tokens each), the KV cache the whole sequences'
    spec, acc, eng = resolve_model("llama-3.1-8b"), resolve_gpu("L40S"), resolve_engine("hf")
    n = max_batch(plan_memory(spec, acc, BF16, BF16_KV, eng, batch=1, context=3500, prompt=3000))
    assert est.fits and est.batch == n < 48
    assert any(f"at most {n} sequences run at once" in w for w in est.warnings)


def test_the_static_pass_is_sized_on_the_prompts_not_the_whole_sequences() -> None:
    # same sequence length, short prompts: the one-pass prefill is 100 tokens a sequence, not 3,500
    long = estimate("llama-3.1-8b", "L40S", engine="hf", batch="max", context_in=3000, context_out=500)
    short = estimate("llama-3.1-8b", "L40S", engine="hf", batch="max", context_in=100, context_out=3400)
    assert short.max_batch > long.max_batch * 1.5
    assert short.memory.activations_gb < long.memory.activations_gb / 10


def test_max_batch_search_agrees_with_brute_force() -> None:
    spec, acc, eng = resolve_model("llama-3.1-8b"), resolve_gpu("L4"), resolve_engine("gpt-fast")
    plan = plan_memory(spec, acc, BF16, BF16_KV, eng, batch=1, context=1000)
    n = max_batch(plan)
    fits = [plan_memory(spec, acc, BF16, BF16_KV, eng, batch=b, context=1000).fits for b in range(1, n + 3)]
    assert fits == [True] * n + [False, False]
    # any plan of the setup gives the same answer, whatever batch it was made for
    assert max_batch(plan_memory(spec, acc, BF16, BF16_KV, eng, batch=n + 5, context=1000)) == n


def test_nothing_fits_gives_zero() -> None:
    spec, eng = resolve_model("llama-3.1-70b"), resolve_engine("hf")
    plan = plan_memory(spec, resolve_gpu("L4"), BF16, BF16_KV, eng, batch=1, context=1000)
    assert not plan.fits and max_batch(plan) == 0


def test_prefill_pass_static_whole_prompts_within_the_step_budget() -> None:
    hf, trt05 = resolve_engine("hf"), resolve_engine("tensorrt-llm 0.5")
    assert not hf.continuous_batching and not trt05.continuous_batching
    assert prefill_pass(hf, 48, 3000) == (48, 144000)  # no budget: the whole batch at once
    assert prefill_pass(trt05, 8, 2048) == (4, 8192)  # 8,192-token budget: 4 whole prompts per pass
    assert prefill_pass(trt05, 8, 16384) == (1, 16384)  # a prompt longer than the budget: one, whole
    assert prefill_pass(hf, 1, 0) == (1, 1)


@pytest.mark.parametrize("engine", ["vllm", "sglang", "tensorrt-llm", "tgi", "llama.cpp"])
def test_continuous_batching_engines_keep_their_step_budget(engine: str) -> None:
    eng = resolve_engine(engine)
    assert eng.continuous_batching
    assert prefill_pass(eng, 48, 3000) == (48, eng.prefill_chunk_tokens)
    spec, acc = resolve_model("llama-3.1-8b"), resolve_gpu("H100")
    fmt = resolve_precision("q4_k_m" if engine == "llama.cpp" else "bf16")
    one = plan_memory(spec, acc, fmt, BF16_KV, eng, batch=1, context=3500)
    many = plan_memory(spec, acc, fmt, BF16_KV, eng, batch=48, context=3500)
    # only the fp32 logits rows grow with the batch (llama.cpp: its n_ubatch rows, fixed)
    rows = 0 if eng.kv_allocates_full_context else 47 * spec.vocab_size * 4.0
    assert many.activations == pytest.approx(one.activations + rows, rel=1e-9)
    assert one.at_batch is None
