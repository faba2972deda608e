"""The block-FP8 path's fixed cost per decoder layer, and SGLang's 16-bit weight stream.

A block-scaled FP8 GEMM takes FP8 activations with one scale per 128-wide group of each token: a
per-token-group quantisation kernel runs before each such GEMM (qkv, o, gate/up, down), not fused with
the norms in front of it. On the H20 that shows as a fixed cost per layer (Qwen3 FP8 at 0.6B-4B gains far
less over BF16 than its bytes say); per-tensor FP8 and 16-bit weights do not pay it. SGLang's 16-bit
linear layers are the same cuBLAS GEMMs as vLLM's, so a 16-bit weight stream runs at one rate in both.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine

VLLM = resolve_engine("vllm")  # host time in series with the GPU's (no overlap): the costs add up exactly


def _ms_per_token(model: str, precision: str, cost_us: float) -> float:
    engine = dataclasses.replace(VLLM, block_fp8_quant_layer_us=cost_us)
    e = estimate(model, "H100", engine=engine, precision=precision, context_in=0, context_out=128)
    return 1e3 / e.decode_tokens_per_s


def test_each_layer_of_a_block_fp8_model_pays_the_cost_once_per_token() -> None:
    """Qwen3-32B (64 layers) at batch 1: 100 us per layer is 6.4 ms more per token."""
    extra = _ms_per_token("qwen3-32b", "fp8-block", 100.0) - _ms_per_token("qwen3-32b", "fp8-block", 0.0)
    assert extra == pytest.approx(64 * 0.1, rel=1e-6)


@pytest.mark.parametrize("precision", ["fp8-tensor", "bf16", "awq"])
def test_other_formats_do_not_pay_it(precision: str) -> None:
    assert _ms_per_token("qwen3-32b", precision, 100.0) == _ms_per_token("qwen3-32b", precision, 0.0)


def test_vllm_and_sglang_pay_one_fitted_cost_and_other_engines_none_unless_measured() -> None:
    # the same quantisation kernel in both engines: one constant, fitted on both engines' rows
    sglang = resolve_engine("sglang").block_fp8_quant_layer_us
    assert 5.0 < sglang < 100.0
    assert resolve_engine("vllm").block_fp8_quant_layer_us == sglang
    assert resolve_engine("vllm 0.7.3").block_fp8_quant_layer_us == sglang  # V0 ran the same kernel
    assert resolve_engine("tensorrt-llm").block_fp8_quant_layer_us == 0.0


def test_sglang_streams_16_bit_weights_at_vllms_rate() -> None:
    sglang = resolve_engine("sglang")
    assert sglang.bandwidth_eff("16bit") == VLLM.bandwidth_eff("16bit")
    # an 8B in BF16 on one H100 at batch 1: within a tenth of vLLM (the fixed costs differ, not the stream)
    kw = {"precision": "bf16", "context_in": 512, "context_out": 256}
    s = estimate("llama-3.1-8b", "H100", engine="sglang", **kw).decode_tokens_per_s
    v = estimate("llama-3.1-8b", "H100", engine="vllm", **kw).decode_tokens_per_s
    assert 0.9 < s / v < 1.1


def test_the_estimate_names_the_cost_where_it_applies() -> None:
    block = estimate("qwen3-32b", "H100", engine="sglang", precision="fp8-block").assumptions["fixed_costs"]
    assert "us/layer for block-FP8 activation quantisation" in block
    plain = estimate("qwen3-32b", "H100", engine="sglang", precision="bf16").assumptions["fixed_costs"]
    assert "block-FP8" not in plain
