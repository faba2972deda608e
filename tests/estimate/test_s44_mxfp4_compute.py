"""Which tensor rate each part of an FP4 model runs at: gpt-oss's MXFP4 experts are W4A16 by default, its
bf16 attention / router / lm_head GEMMs and every format's attention scores run at the 16-bit rate, and only
a W4A4 checkpoint's linear layers (dense NVFP4 on Blackwell) get the FP4 rate.

A renter review: ``gpuscout estimate gpt-oss-120b --gpu B200 --prompt 8192 --output 1`` gave ~207,000 prompt
tokens/s, 11.5x an H100's: 2 x 4.55B active linear parameters x 207k tok/s = 1.9 PFLOP/s of linear math alone
(2.4 with the attention), near or above B200's whole dense BF16 peak (2.25 PFLOP/s): the whole model had been
timed at the 9 PFLOP/s FP4 rate.
vLLM / SGLang run the gpt-oss experts as MXFP4 weights x bf16 activations (FlashInfer TRT-LLM-gen MoE on
SM100), so the experts run at the bf16 rate too, and a B200 over an H100 is about their 16-bit peak ratio.
"""

from __future__ import annotations

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
)
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model
from tests.estimate.setups import make_setup

B200, H100 = resolve_gpu("B200"), resolve_gpu("H100")
PROMPT = {"context_in": 8192, "context_out": 1}


def _peak16_ratio() -> float:
    """B200 over H100 in dense 16-bit tensor rate, from the accelerator table (2250 / 989.5 = 2.27)."""
    assert B200.bf16_tflops and H100.bf16_tflops
    return B200.bf16_tflops / H100.bf16_tflops


@pytest.mark.parametrize("model", ["gpt-oss-120b", "gpt-oss-20b"])
def test_gpt_oss_prefill_b200_over_h100_stays_near_the_16bit_peak_ratio(model: str) -> None:
    b200 = estimate(model, "B200", **PROMPT).prefill_tokens_per_s
    h100 = estimate(model, "H100", **PROMPT).prefill_tokens_per_s
    # was 11.5x (120b: 207,303 / 17,951) and 11.8x (20b): the FP4 rate for the whole model on the B200
    assert 1.0 < b200 / h100 < 1.2 * _peak16_ratio()


def test_gpt_oss_prefill_math_stays_under_the_b200_16bit_peak() -> None:
    est = estimate("gpt-oss-120b", "B200", **PROMPT)
    c = model_consts(resolve_model("gpt-oss-120b"))
    # 2 FLOPs per active linear parameter and prompt token: 0.97B attention/router + 4 x 128 experts' 3.58B
    active = c.dense_body + c.expert_params * c.experts_per_token * c.moe_layers
    assert active == pytest.approx(4.55e9, rel=0.02)
    assert B200.bf16_tflops
    # the review's 207k tok/s needed ~1.9 PFLOP/s of linear math, 84 % of the 2250 TFLOPS peak; no engine
    # reaches that: it must now stay well under half of it
    assert 2.0 * active * est.prefill_tokens_per_s < 0.5 * B200.bf16_tflops * 1e12


def test_the_assumptions_name_the_expert_rate() -> None:
    said = estimate("gpt-oss-120b", "B200", **PROMPT).assumptions
    assert said["compute_class"] == "weight-only"  # W4A16: narrow weights, 16-bit math
    note = said["expert_rate"]
    assert "MXFP4 weights x bf16 activations (W4A16" in note
    assert "at the bf16 rate (2250 TFLOPS peak)" in note
    assert "not the FP4 rate" in note and "W4A8 reaches at most the FP8 rate" in note
    assert "attention scores, at the 16-bit rate" in note
    hopper = estimate("gpt-oss-120b", "H100", **PROMPT).assumptions["expert_rate"]
    assert "dequantised for 16-bit math" in hopper and "(989.5 TFLOPS peak)" in hopper
    assert "expert_rate" not in estimate("llama-3.1-8b", "B200", precision="nvfp4").assumptions


def test_mi355x_runs_gpt_oss_experts_w4a16_too() -> None:
    """engine_support.csv marks MXFP4 native on gfx950 (vLLM line 46, SGLang's): the same W4A16 experts."""
    mi355x = estimate("gpt-oss-120b", "MI355X", **PROMPT)
    assert mi355x.support == "native"
    assert mi355x.assumptions["compute_class"] == "weight-only"
    assert "at the bf16 rate (2500 TFLOPS peak)" in mi355x.assumptions["expert_rate"]
    sglang = estimate("gpt-oss-120b", "B200", engine="sglang", **PROMPT).assumptions
    assert "bf16 activations (W4A16" in sglang["expert_rate"]


def test_the_bf16_parts_of_gpt_oss_run_at_the_16bit_efficiency_on_every_gpu() -> None:
    eng = resolve_engine("vllm")
    fmt, bf16 = resolve_precision("mxfp4-moe"), resolve_precision("bf16")
    for acc in (B200, H100):
        spec, kv = resolve_model("gpt-oss-120b"), resolve_kv_dtype("bf16")
        st = Setup(spec, acc, fmt, kv, eng, 1, "tensor", "weight-only", rate_fmt=bf16)
        assert acc.bf16_tflops
        # experts: vLLM's weight-only 0.45 of the peak; no mma.sync share (their kernels are wgmma / tcgen05
        # ones on Hopper and datacenter Blackwell, not Marlin: test_s44_part_rates)
        assert st.achieved_flops == pytest.approx(0.45 * acc.bf16_tflops * 1e12)
        # attention projections, router, lm_head: cuBLAS bf16 at vLLM's 16-bit efficiency, 0.4647
        assert st.dense_flops == pytest.approx(0.4647 * acc.bf16_tflops * 1e12)
        assert st.attn_flops == st.dense_flops


def test_dense_nvfp4_keeps_the_fp4_rate_for_its_linear_layers() -> None:
    """A W4A4 NVFP4 checkpoint multiplies FP4 weights by FP4 activations on Blackwell: the FP4 rate is
    right for its linear layers; its attention scores still run at the 16-bit rate."""
    est = estimate("llama-3.1-8b", "B200", precision="nvfp4", **PROMPT)
    assert est.assumptions["compute_class"] == "fp4"
    assert est.assumptions["compute_efficiency"].startswith("0.40 of 9000 TFLOPS fp4")
    st = make_setup("llama-3.1-8b", "B200", "nvfp4")
    assert B200.fp4_tflops
    assert st.achieved_flops == st.dense_flops == pytest.approx(0.40 * B200.fp4_tflops * 1e12)
    assert st.attn_flops == pytest.approx(0.4647 * 2250e12)
    bf16 = estimate("llama-3.1-8b", "B200", precision="bf16", **PROMPT)
    # 0.40 x 9000 against 0.47 x 2250 for the GEMMs: ~3.4x, less the 16-bit attention
    assert est.prefill_tokens_per_s > 2.0 * bf16.prefill_tokens_per_s


def test_fp4_decode_attention_runs_at_the_16bit_rate() -> None:
    """Decode attention FLOPs grow with the context; their rate is what one more context token costs."""
    st = make_setup("llama-3.1-8b", "B200", "nvfp4")
    spec, batch = st.spec, 64
    short, long = decode_step(st, batch, 8000.0), decode_step(st, batch, 16000.0)
    flops = (_attn_flops_per_token(spec, 16000.0) - _attn_flops_per_token(spec, 8000.0)) * batch
    assert flops / (long.compute - short.compute) == pytest.approx(st.attn_flops, rel=1e-9)
    assert st.attn_flops < st.achieved_flops / 3  # not the FP4 rate


def test_fp4_data_parallel_attention_times_its_extra_scores_at_the_16bit_rate() -> None:
    """Under SGLang's DP attention the prompt's rank runs all its attention; the scores of that extra
    share run at the 16-bit rate, the projections at the format's."""
    tp = make_setup("deepseek-v3", "B200", "nvfp4", "sglang", gpus=8)
    dp = make_setup("deepseek-v3", "B200", "nvfp4", "sglang --enable-dp-attention", gpus=8)
    tokens = 1000
    c = model_consts(tp.spec)
    projections = 2.0 * c.attn_per_layer * c.layers * tokens
    scores = _prefill_attention_flops(tp.spec, tokens)
    excess = (projections / tp.achieved_flops + scores / tp.attn_flops) * (1 - 1 / 8)
    diff = prefill_compute_seconds(dp, tokens) - prefill_compute_seconds(tp, tokens)
    assert diff == pytest.approx(excess, rel=1e-9)


def test_llama_cpp_native_blackwell_mxfp4_keeps_fp4_experts() -> None:
    """llama.cpp's native Blackwell MXFP4 MMA quantises activations to MXFP4 (W4A4): its experts keep the
    FP4 rate, its bf16 parts run at the 16-bit rate."""
    said = estimate("gpt-oss-20b", "RTX 5090", engine="llama.cpp", **PROMPT).assumptions
    assert said["compute_class"] == "fp4"
    assert "x activations quantised to MXFP4, at the fp4 rate" in said["expert_rate"]
