"""Per-GPU inference memory: weights by format, KV, activations, overhead, fit verdict."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import (
    GIB,
    body_bytes,
    capacity_bytes,
    gpu_weight_bytes,
    model_consts,
    plan_memory,
)
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.estimate.physics_specs import DEEPSEEK_V3, LLAMA3_8B, LLAMA3_70B

BF16 = resolve_kv_dtype("bf16")


def card(gb: float) -> object:
    return dataclasses.replace(resolve_gpu("RTX 4090"), name=f"test-{gb:g}GB", memory_gb=gb)


# today's llama.cpp (flash attention, no score buffer) fits it with 0.3 GB to spare:
# tests/estimate/test_llamacpp_eras.py
@pytest.mark.parametrize("engine", ["llama.cpp 2024", "vllm", "hf"])
def test_llama3_8b_f16_does_not_fit_16gb_at_8192_generated(engine: str) -> None:
    # "f16" is llama.cpp's GGUF F16; the serving engines take the same 16-bit weights as "fp16"
    precision = "f16" if engine.startswith("llama.cpp") else "fp16"
    est = estimate(LLAMA3_8B, card(16), precision=precision, engine=engine, context_in=0, context_out=8192)
    assert not est.fits
    assert est.binding_constraint in ("weights", "kv_cache", "activations")
    assert any("does not fit" in w for w in est.warnings)


def test_llama3_8b_q4_fits_16gb_card() -> None:
    est = estimate(
        LLAMA3_8B, card(16), precision="q4_k_m", engine="llama.cpp", context_in=0, context_out=8192
    )
    assert est.fits
    assert est.binding_constraint == "fits"


def test_param_split_matches_official_totals() -> None:
    assert model_consts(LLAMA3_8B).total / 1e9 == pytest.approx(8.03, rel=0.005)
    assert model_consts(LLAMA3_70B).total / 1e9 == pytest.approx(70.55, rel=0.005)
    v3 = model_consts(DEEPSEEK_V3)
    assert v3.total / 1e9 == pytest.approx(671, rel=0.01)
    assert v3.active_body / 1e9 == pytest.approx(37, rel=0.06)


def test_weights_scale_with_format_and_tp() -> None:
    vllm = resolve_engine("vllm")
    bf16 = gpu_weight_bytes(LLAMA3_70B, resolve_precision("bf16"), vllm)
    assert bf16 / 1e9 == pytest.approx(141.1, rel=0.01)
    fp8 = gpu_weight_bytes(LLAMA3_70B, resolve_precision("fp8"), vllm)
    assert fp8 < 0.55 * bf16  # body halves, embeddings and lm_head stay bf16
    assert gpu_weight_bytes(LLAMA3_70B, resolve_precision("bf16"), vllm, gpus=4) == pytest.approx(bf16 / 4)


def test_llama_cpp_keeps_token_embeddings_in_host_memory() -> None:
    fmt = resolve_precision("f16")
    on_gpu = gpu_weight_bytes(LLAMA3_8B, fmt, resolve_engine("llama.cpp"))
    assert on_gpu == pytest.approx((8.03e9 - 128256 * 4096) * 2, rel=0.01)


def test_vllm_budget_is_gpu_memory_utilization_of_capacity() -> None:
    h100 = resolve_gpu("H100 SXM")
    plan = plan_memory(
        LLAMA3_8B, h100, resolve_precision("bf16"), BF16, resolve_engine("vllm"), batch=1, context=1024
    )
    assert plan.usable == pytest.approx(0.9 * capacity_bytes(h100))
    assert capacity_bytes(h100) == pytest.approx(80 * GIB, rel=0.005)


def test_kv_and_logits_buffers_counted() -> None:
    h100 = resolve_gpu("H100 SXM")
    fmt, eng = resolve_precision("bf16"), resolve_engine("vllm")
    a = plan_memory(LLAMA3_8B, h100, fmt, BF16, eng, batch=1, context=1024)
    b = plan_memory(LLAMA3_8B, h100, fmt, BF16, eng, batch=8, context=1024)
    assert b.kv_cache == pytest.approx(8 * a.kv_cache)
    assert a.kv_cache == pytest.approx(1024 * 128 * 1024)  # 1024 tokens, 16-token blocks, 128 KiB/token
    assert a.activations >= 128256 * 4  # at least one row of fp32 logits
    assert a.overhead > 0.5e9  # CUDA context + engine reserve


def test_layer_split_spreads_weights() -> None:
    # llama.cpp: 80 layers + the output layer over 4 GPUs, 21 / 20 / 20 / 19 + output; the fullest holds
    # 21 of the 80 (equal) layers, a quarter of a layer more than the average GPU (one / 4)
    eng = resolve_engine("llama.cpp")
    fmt = resolve_precision("q4_k_m")
    one = gpu_weight_bytes(LLAMA3_70B, fmt, eng, gpus=1, parallel="layer")
    four = gpu_weight_bytes(LLAMA3_70B, fmt, eng, gpus=4, parallel="layer")
    assert four == pytest.approx(body_bytes(fmt, model_consts(LLAMA3_70B)) * 21 / 80, rel=1e-6)
    assert one / 4 < four < one / 4 * 1.05


def test_max_batch_reported_and_used_for_max() -> None:
    est = estimate(
        LLAMA3_8B,
        "H100 SXM",
        precision="bf16",
        engine="tensorrt-llm",
        batch="max",
        context_in=1000,
        context_out=1000,
    )
    assert est.batch == min(est.max_batch, resolve_engine("tensorrt-llm").max_num_seqs)
    assert est.fits
    assert est.memory.total_gb <= est.memory.usable_gb
