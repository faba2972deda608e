"""Monotonicity properties of the physics (hypothesis)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.estimate.api import estimate
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.estimate.physics_specs import DEEPSEEK_V3, GEMMA2_9B, LLAMA2_7B, LLAMA3_8B, LLAMA3_70B

# the physics at any context: each window stretched to hold the longest one drawn (an estimate refuses a
# context past the model's max_position_embeddings)
MODELS = st.sampled_from(
    [
        dataclasses.replace(m, max_position_embeddings=max(m.max_position_embeddings, 131_072))
        for m in (LLAMA3_8B, LLAMA3_70B, LLAMA2_7B, GEMMA2_9B, DEEPSEEK_V3)
    ]
)
ENGINES = st.sampled_from(["vllm", "llama.cpp", "tensorrt-llm", "sglang", "hf", "gpt-fast"])
PRECISIONS = st.sampled_from(["bf16", "fp8", "int4", "q4_k_m", "nf4"])
H100 = resolve_gpu("H100 SXM")
FAST = settings(max_examples=40, deadline=None)


@FAST
@given(MODELS, ENGINES, PRECISIONS, st.integers(0, 60_000), st.integers(1, 60_000), st.integers(1, 4000))
def test_more_context_never_needs_less_memory(model, engine, precision, ctx_in, ctx_out, extra) -> None:
    a = estimate(model, H100, engine=engine, precision=precision, context_in=ctx_in, context_out=ctx_out)
    b = estimate(
        model, H100, engine=engine, precision=precision, context_in=ctx_in, context_out=ctx_out + extra
    )
    assert b.memory.total_gb >= a.memory.total_gb - 1e-9


@FAST
@given(MODELS, ENGINES, st.integers(1, 1000), st.integers(1, 1000), st.integers(1, 8192))
def test_more_batch_never_needs_less_memory(model, engine, batch, extra, ctx) -> None:
    a = estimate(model, H100, engine=engine, batch=batch, context_in=ctx, context_out=16)
    b = estimate(model, H100, engine=engine, batch=batch + extra, context_in=ctx, context_out=16)
    assert b.memory.total_gb >= a.memory.total_gb - 1e-9


@FAST
@given(
    MODELS,
    ENGINES,
    PRECISIONS,
    st.floats(100, 10_000),
    st.floats(1.0, 5.0),
    st.integers(1, 256),
    st.integers(0, 8192),
)
def test_more_bandwidth_never_makes_decode_slower(model, engine, precision, bw, factor, batch, ctx) -> None:
    slow = dataclasses.replace(H100, bandwidth_gbps=bw)
    fast = dataclasses.replace(H100, bandwidth_gbps=bw * factor)
    a = estimate(model, slow, engine=engine, precision=precision, batch=batch, context_in=ctx, context_out=64)
    b = estimate(model, fast, engine=engine, precision=precision, batch=batch, context_in=ctx, context_out=64)
    assert b.decode_tokens_per_s >= a.decode_tokens_per_s * (1 - 1e-9)


@FAST
@given(MODELS, st.sampled_from([1, 2, 4, 8]), st.sampled_from([2, 4, 8]), st.integers(1, 32_000))
def test_more_gpus_under_tp_never_less_free_memory_per_gpu(model, gpus, more, ctx) -> None:
    a = estimate(model, H100, gpus=gpus, context_in=ctx, context_out=128)
    b = estimate(model, H100, gpus=gpus * more, context_in=ctx, context_out=128)
    free_a = a.memory.usable_gb - a.memory.total_gb
    free_b = b.memory.usable_gb - b.memory.total_gb
    assert free_b >= free_a - 1e-9


# A newer part of the same vendor that has at least the older one's memory bandwidth, tensor rates and
# capacity. Whatever kernels an engine runs there, the estimate must never make the newer part slower.
SUCCESSORS = [
    ("A100 SXM 80GB", "H100 SXM"),
    ("H100 SXM", "H200"),
    ("H200", "B200"),
    ("L4", "L40S"),
    ("RTX 4090", "RTX 5090"),
    ("MI300X", "MI325X"),
]


def _speeds(model: str, gpu: str, engine: str, precision: str | None) -> tuple[float, float, float] | None:
    kw = dict(engine=engine, precision=precision, context_in=1000, context_out=256)
    one = estimate(model, gpu, batch=1, **kw)
    many = estimate(model, gpu, batch=32, **kw)
    if not (one.supported and one.fits and many.fits):
        return None
    # at batch 32 the whole batch's tokens: a card that holds fewer sequences decodes each one faster
    return one.decode_tokens_per_s, many.decode_tokens_per_s * many.batch, one.prefill_tokens_per_s


@pytest.mark.parametrize(("older", "newer"), SUCCESSORS)
@pytest.mark.parametrize("engine", ["vllm", "sglang", "tgi", "tensorrt-llm", "llama.cpp", "hf"])
@pytest.mark.parametrize(
    ("model", "precision"),
    [
        ("Llama-3.1-8B", None),
        ("Llama-3.1-8B", "fp8"),
        ("Llama-3.1-8B", "int4"),
        ("Llama-3.1-8B", "q4_k_m"),
        ("gpt-oss-20b", None),
        ("Qwen3-30B-A3B", "int4"),
        ("Llama-3.1-70B", "int4"),
    ],
)
def test_a_successor_gpu_is_never_slower(older, newer, engine, model, precision) -> None:
    old = _speeds(model, older, engine, precision)
    new = _speeds(model, newer, engine, precision)
    if old is None or new is None:
        return  # the engine cannot run it on one of the two (its own tests say why)
    for what, a, b in zip(
        ("batch-1 decode", "batch-32 decode, all sequences", "prefill"), old, new, strict=True
    ):
        assert b >= a * 0.999, f"{what}: {newer} {b:.0f} < {older} {a:.0f} tokens/s"
