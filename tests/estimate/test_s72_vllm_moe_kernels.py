"""Today's vLLM streams an MoE layer's experts as fast as a dense layer's weights (its fused-MoE kernel,
measured by NVIDIA's aiconfigurator collector with vLLM 0.24.0 on H100 and H200: 1.02-1.03x the dense GEMV
rate, ~25 us fixed per layer), where the estimate had carried the V0 era's fitted 0.57 of it and a 50 us
prior: a Qwen3-30B-A3B decode step at 32 sequences on an H200 came out ~1.5x too slow. The V0 era keeps
its own fitted figures; 4-bit experts (Marlin INT4, MXFP4) stream at 0.82 of the dense rate. SGLang runs
the same kernel and takes its own tables' figures (0.5.14: 0.94x, ~15 us)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import CLASS_16BIT, CLASS_WEIGHT_ONLY, KERNEL_FP8_BLOCK
from tests.conftest import load_benchmark

V1 = resolve_engine("vllm")


@cache
def _hopper(engine: str, cls: str) -> tuple[float, float, float, float]:
    """(mean ratio, lowest, highest, mean fixed us) of ``engine``'s ``cls`` kernels, from the shipped table
    through the benchmark's own fit (read and fitted once for the module)."""
    return _bench().hopper_figures(_fits(), engine, cls)


@cache
def _bench() -> Any:
    return load_benchmark("moe_kernels")


@cache
def _fits() -> list[Any]:
    bench = _bench()
    return bench.kernel_fits(bench.load(bench.DATA))


V0 = resolve_engine("vllm 0.7.3")


def test_the_v1_constants_are_the_kernel_tables() -> None:
    ratio_16, low_16, _, fixed_16 = _hopper("vllm", CLASS_16BIT)
    ratio_wo, *_ = _hopper("vllm", CLASS_WEIGHT_ONLY)
    # bf16 experts at the dense rate or a little above: the share is capped at the dense rate
    assert 1.0 <= low_16 <= ratio_16 < 1.1
    assert V1.moe_stream_share(CLASS_16BIT) == 1.0
    assert V1.moe_stream_share(KERNEL_FP8_BLOCK) == 1.0
    assert V1.moe_stream_share(CLASS_WEIGHT_ONLY) == pytest.approx(ratio_wo, abs=0.01)
    assert V1.moe_layer_overhead_us == pytest.approx(fixed_16, abs=0.1)
    # the MoE layer's constants are now measured, not a prior the estimate warns about
    assert "moe_layer_overhead_us" not in V1.uncalibrated


def test_sglang_takes_its_own_kernel_tables_and_its_0_4_rows_keep_theirs() -> None:
    """SGLang 0.5.14 runs the same Triton fused-MoE kernel: 0.92-0.96x its dense GEMV rate, ~15 us a
    layer. Its 0.4.4-0.4.x releases keep what their Qwen3 MoE rows fit (0.4.6 on an H20)."""
    ratio, low, high, fixed = _hopper("sglang", CLASS_16BIT)
    today, rows_era = resolve_engine("sglang"), resolve_engine("SGLang 0.4.6.post1")
    assert 0.9 < low <= ratio <= high < 1.0
    assert today.moe_stream_share(CLASS_16BIT) == pytest.approx(ratio, abs=0.01)
    assert today.moe_layer_overhead_us == pytest.approx(fixed, abs=0.1)
    assert rows_era.era == "0.4.4-0.4.x" and rows_era.moe_efficiency < 0.6 and not rows_era.moe_source
    assert "SGLang 0.5.14's fused-MoE kernel times" in today.moe_source


def test_todays_tensorrt_llm_takes_its_cutlass_moe_tables() -> None:
    """TensorRT-LLM 1.3.0rc20's CUTLASS MoE (PyTorch flow): 1.07-1.08x its dense GEMV rate, ~26 us a
    layer, its grouped GEMMs at 0.97-0.99x its dense GEMMs' rate (stop 76: was a prior, said
    uncalibrated); its 0.5-0.16 releases keep the priors."""
    ratio, low, _, fixed = _hopper("tensorrt-llm", CLASS_16BIT)
    today, old = resolve_engine("tensorrt-llm"), resolve_engine("TensorRT-LLM v0.9")
    assert 1.0 <= low <= ratio < 1.15
    assert today.moe_stream_share(CLASS_16BIT) == 1.0
    assert today.moe_layer_overhead_us == pytest.approx(fixed, abs=0.1)
    assert today.uncalibrated == ()
    assert 0.95 < today.moe_compute_efficiency < 1.0
    assert old.moe_efficiency == 0.5 and "moe_layer_overhead_us" in old.uncalibrated


def test_v0_keeps_its_fitted_moe_figures() -> None:
    assert V0.moe_efficiency < 0.6
    assert V0.moe_stream_share(CLASS_WEIGHT_ONLY) == V0.moe_stream_share(CLASS_16BIT) == V0.moe_efficiency
    assert V0.moe_layer_overhead_us > 200.0


def test_qwen3_moe_decode_step_by_hand() -> None:
    """Qwen3-30B-A3B, bf16, 32 sequences on one H200: 48 MoE layers of 128 experts (hidden 2048,
    intermediate 768, top-8). 32 tokens touch 128 x (1 - (1 - 8/128)^32) = 111.8 experts per layer
    (uniform routing): 111.8 x 3 x 2048 x 768 x 2 bytes x 48 layers = 50.6 GB, read at the dense
    streaming rate (4,800 GB/s x vLLM's 16-bit efficiency, 0.69) in ~15 ms, plus 48 x 24.6 us (the V0
    era's figures, 0.52 of that rate and 256 us a layer, would have taken ~32 ms: it cannot run Qwen3)."""
    kw = dict(batch=32, context_in=2000, context_out=400)
    now = estimate("qwen3-30b-a3b", "H200-SXM", engine="vllm", **kw)
    experts = 128 * (1 - (1 - 8 / 128) ** 32)
    expert_bytes = experts * 3 * 2048 * 768 * 2 * 48
    rate = 4800e9 * V1.bandwidth_efficiency["16bit"]
    reads_now = expert_bytes / rate
    assert reads_now == pytest.approx(0.0153, rel=0.02)
    # the expert reads are most of a step: the step is at least them and at most them plus the rest
    step_now = now.tpot_ms / 1e3
    assert reads_now < step_now < reads_now + 0.010
    assert "expert weight reads at 1.00" in now.assumptions["moe"]


def test_four_bit_experts_stream_slower_than_bf16_ones() -> None:
    """gpt-oss-120b's MXFP4 experts (weight-only on an H100: dequantised to bf16 in the kernel) are
    read at 0.82 of the weight-only streaming rate, bf16 experts at the full 16-bit one."""
    e = estimate("gpt-oss-120b", "H100-SXM", engine="vllm", batch=16, context_in=1000, context_out=200)
    assert "expert weight reads at 0.82" in e.assumptions["moe"]
    b = estimate("qwen3-30b-a3b", "H100-SXM", engine="vllm", batch=16, context_in=1000, context_out=200)
    assert "expert weight reads at 1.00" in b.assumptions["moe"]
