"""Each GEMM at the rate its operands run at.

1. Meta's Llama 3.1 FP8 checkpoints (``fp8-ffn``, fbgemm_fp8) leave the attention projections and the first
   and last decoder layers in bf16 (Llama 3 paper, section 6.2): those GEMMs run at the 16-bit rate, the FP8
   MLPs at the FP8 one. They had all been timed at the FP8 rate.
2. Decode attention (QK^T and AV over the KV cache) runs in the cache's dtype: an FP8 or W8A8 model with a
   bf16 cache at the 16-bit rate, at the FP8 rate only with an FP8 cache. It had been timed at the weight
   GEMMs' FP8 / INT8 rate.
3. gpt-oss's W4A16 MXFP4 experts run in warpgroup-MMA kernels on Hopper (Triton ``matmul_ogs``) and on the
   SM100 family (FlashInfer TRT-LLM-gen / CUTLASS MoE), not Marlin's mma.sync: no halving of their rate
   there (their token tiles follow the tokens per expert: 16 rows kept). Marlin runs them on Ampere / Ada
   and SM12x (no halving: those parts' full rate is mma.sync's) and, in vLLM, on cc 11.x (halved).
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.estimate.throughput import (
    Setup,
    _attn_flops_per_token,
    _prefill_attention_flops,
    decode_step,
    prefill_compute_seconds,
    wide_body_params,
)
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model
from tests.estimate.setups import make_setup

H100 = resolve_gpu("H100")
VLLM = resolve_engine("vllm")


def _rate(cls: str, peak_tflops: float) -> float:
    """vLLM's achieved FLOP/s for ``cls`` GEMMs at ``peak_tflops`` (its fitted efficiency for the class)."""
    return VLLM.achieved_tflops(cls, peak_tflops) * 1e12


# --- 1. fp8-ffn: the bf16 share of the GEMMs at the 16-bit rate ------------------------------------------


def test_fp8_ffn_bf16_share_comes_from_the_layout() -> None:
    """Llama 3.1 70B: q, k, v, o of 80 layers (8192 x (8192 + 2 x 1024) + 8192 x 8192 each: 151M, 12.08B in
    all) plus the MLPs of the first and last layers (3 x 8192 x 28672: 705M each), of a 68.45B body."""
    st = make_setup("llama-3.1-70b", "H100", "fp8-ffn")
    spec, c = st.spec, model_consts(st.spec)
    h, kv = spec.hidden_size, spec.num_key_value_heads * (spec.hidden_size // spec.num_attention_heads)
    attention = (2 * h * h + 2 * h * kv) * spec.num_hidden_layers
    mlp = 3 * h * spec.intermediate_size
    assert c.attn_per_layer * c.layers == pytest.approx(attention, rel=1e-3)  # + the layer norms' few weights
    assert wide_body_params(st) == pytest.approx(attention + 2 * mlp, rel=1e-3)
    assert 0.18 < wide_body_params(st) / c.dense_body < 0.21  # a fifth of the body, at the 16-bit rate
    # plain FP8 (ModelOpt / llm-compressor: every linear layer FP8) and bf16 leave none
    assert wide_body_params(make_setup("llama-3.1-70b", "H100", "fp8")) == 0.0
    assert wide_body_params(make_setup("llama-3.1-70b", "H100", "bf16")) == 0.0


def test_fp8_ffn_prefill_times_its_bf16_share_at_the_16bit_rate() -> None:
    st = make_setup("llama-3.1-70b", "H100", "fp8-ffn")
    assert H100.fp8_tflops and H100.bf16_tflops
    fp8_rate, rate16 = _rate("fp8", H100.fp8_tflops), _rate("16bit", H100.bf16_tflops)  # 950 and 469 TFLOPS
    assert st.achieved_flops == pytest.approx(fp8_rate)
    assert st.dense_flops == pytest.approx(rate16)
    spec, c, tokens = st.spec, model_consts(st.spec), 4096.0
    attention = c.attn_per_layer * c.layers
    wide = attention + 2 * (c.dense_body - attention) / c.layers  # bf16: attention, first and last layers
    expected = (
        2.0 * (c.dense_body - wide) * tokens / fp8_rate  # the FP8 MLPs of layers 2..79
        + 2.0 * wide * tokens / rate16  # the bf16 GEMMs
        + 2.0 * c.lm_head / fp8_rate  # the head, the last token's only
        + _prefill_attention_flops(spec, tokens) / st.attn_flops  # scores, bf16 cache: 16-bit rate
    )
    assert prefill_compute_seconds(st, tokens) == pytest.approx(expected, rel=1e-9)
    # all at the FP8 rate, as before, would have been ~16 % faster on the GEMMs
    all_fp8 = expected - 2.0 * wide * tokens * (1 / rate16 - 1 / fp8_rate)
    assert prefill_compute_seconds(st, tokens) > 1.1 * all_fp8


def test_fp8_ffn_estimate_says_which_parts_run_at_which_rate() -> None:
    said = estimate("llama-3.1-70b", "H200", precision="fp8-ffn", context_in=8192, context_out=1).assumptions
    note = said["wide_gemms"]
    assert "20% of the body's weights left in bf16" in note and "at the 16-bit rate" in note
    assert "the rest at the fp8 rate" in note
    assert "wide_gemms" not in estimate("llama-3.1-70b", "H200", precision="fp8").assumptions


def test_fp8_ffn_data_parallel_attention_times_its_extra_projections_at_the_16bit_rate() -> None:
    tp = make_setup("llama-3.1-70b", "H100", "fp8-ffn", "sglang", gpus=8)
    dp = make_setup("llama-3.1-70b", "H100", "fp8-ffn", "sglang --enable-dp-attention", gpus=8)
    c, tokens = model_consts(tp.spec), 1000
    projections = 2.0 * c.attn_per_layer * c.layers * tokens
    scores = _prefill_attention_flops(tp.spec, tokens)
    excess = (projections / tp.dense_flops + scores / tp.attn_flops) * (1 - 1 / 8)
    diff = prefill_compute_seconds(dp, tokens) - prefill_compute_seconds(tp, tokens)
    assert diff == pytest.approx(excess, rel=1e-9)
    assert tp.dense_flops < tp.achieved_flops / 1.9  # 16-bit, not FP8


# --- 2. decode attention at the KV cache's rate -----------------------------------------------------------


def _decode_attention_rate(st: Setup) -> float:
    """FLOP/s one more context token's attention costs in a decode step of 64 sequences."""
    batch = 64
    short, long = decode_step(st, batch, 8000.0), decode_step(st, batch, 16000.0)
    flops = (_attn_flops_per_token(st.spec, 16000.0) - _attn_flops_per_token(st.spec, 8000.0)) * batch
    return flops / (long.compute - short.compute)


@pytest.mark.parametrize("precision", ["fp8", "fp8-ffn", "w8a8"])
def test_fp8_and_w8a8_decode_attention_over_a_bf16_cache_runs_at_the_16bit_rate(precision: str) -> None:
    st = make_setup("llama-3.1-8b", "H100", precision, kv="bf16")
    assert H100.bf16_tflops
    rate16 = _rate("16bit", H100.bf16_tflops) * VLLM.attn_decode_efficiency
    assert _decode_attention_rate(st) == pytest.approx(rate16, rel=1e-9)
    assert st.achieved_flops > 1.9 * rate16  # the FP8 / INT8 rate it had been timed at


def test_fp8_decode_attention_over_an_fp8_cache_keeps_the_fp8_rate() -> None:
    st = make_setup("llama-3.1-8b", "H100", "fp8", kv="fp8")
    assert _decode_attention_rate(st) == pytest.approx(
        st.achieved_flops * VLLM.attn_decode_efficiency, rel=1e-9
    )


def test_16bit_decode_attention_is_unchanged() -> None:
    st = make_setup("llama-3.1-8b", "H100", "bf16")
    assert _decode_attention_rate(st) == pytest.approx(
        st.achieved_flops * VLLM.attn_decode_efficiency, rel=1e-9
    )


# --- 3. gpt-oss's experts: the mma.sync share only where Marlin runs them ---------------------------------


def _gpt_oss(acc: Accelerator) -> Setup:
    """gpt-oss-120b as the estimate runs it under vLLM: MXFP4 experts x bf16 activations (weight-only class,
    16-bit rate; api._as_run)."""
    return Setup(
        resolve_model("gpt-oss-120b"),
        acc,
        resolve_precision("mxfp4-moe"),
        resolve_kv_dtype("bf16"),
        VLLM,
        1,
        "tensor",
        "weight-only",
        rate_fmt=resolve_precision("bf16"),
    )


@pytest.mark.parametrize("gpu", ["H100", "B200"])
def test_gpt_oss_experts_keep_the_full_rate_in_warpgroup_mma_kernels(gpu: str) -> None:
    acc = resolve_gpu(gpu)
    assert acc.bf16_tflops
    st = _gpt_oss(acc)
    assert st.wgmma_experts
    # vLLM's weight-only efficiency (0.45) of the 16-bit peak, not half of it (mma.sync's share)
    assert st.achieved_flops == pytest.approx(_rate("weight-only", acc.bf16_tflops))
    assert st.gemm_tile == 16  # token tiles sized by the tokens per expert, not a dense GEMM's 64 rows


@pytest.mark.parametrize("gpu", ["A100", "RTX 5090"])
def test_gpt_oss_experts_through_marlin_where_mma_sync_is_the_full_rate(gpu: str) -> None:
    acc = resolve_gpu(gpu)
    assert acc.bf16_tflops
    st = _gpt_oss(acc)
    assert not st.wgmma_experts
    assert st.achieved_flops == pytest.approx(_rate("weight-only", acc.bf16_tflops))
    assert st.gemm_tile == 16  # Marlin's m16n8k16


def test_gpt_oss_experts_through_marlin_on_cc_11_keep_the_mma_sync_share() -> None:
    """vLLM runs them through Marlin on cc 11.x / 12.x (engine_support.csv); cc 11.x has tcgen05, so
    Marlin's mma.sync keeps half the rate there (no such part in the table: a B200 relabelled)."""
    acc = dataclasses.replace(resolve_gpu("B200"), compute_capability="11.0")
    assert acc.bf16_tflops
    st = _gpt_oss(acc)
    assert not st.wgmma_experts
    assert st.achieved_flops == pytest.approx(0.5 * _rate("weight-only", acc.bf16_tflops))
    assert st.gemm_tile == 16


def test_gpt_oss_estimate_names_the_expert_kernel() -> None:
    said = estimate("gpt-oss-120b", "H100", context_in=8192, context_out=1).assumptions
    assert "not Marlin's mma.sync" in said["gemm_kernel"]
    assert "gemm_kernel" not in estimate("gpt-oss-120b", "A100", context_in=8192, context_out=1).assumptions
