"""A per-tensor FP8 (W8A8) decode GEMM costs more besides its bytes than a bf16 one. In the same
aiconfigurator-core 0.12.0 tables, the fp8 lane (vLLM 0.24.0's CUTLASS scaled-mm, SGLang 0.5.14's
sgl-kernel fp8_scaled_mm: each call quantises its input to FP8, then multiplies) fits ``latency = fixed +
bytes / (share x bandwidth)`` with 5.3-5.9 us fixed on H100 and H200, against 3.4-4.2 us for bf16. An FP8
model halves its weight bytes but not its kernels' fixed part, so at batch 1 its step is not half a bf16
step. Each weight GEMM of a CUDA-graph step in that class now pays the FP8 figure."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest

from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.throughput import decode_step
from tests.conftest import load_benchmark
from tests.estimate.setups import make_setup


@cache
def _fits(dtype: str) -> dict[tuple[str, str], tuple[float, float]]:
    bench = load_benchmark("moe_kernels")
    fits: dict[tuple[str, str], tuple[float, float]] = bench.gemv_fits(bench.load(bench.DATA), dtype)
    return fits


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_fp8_gemms_pay_their_measured_fixed_part(engine: str) -> None:
    bench = load_benchmark("moe_kernels")
    measured = bench.hopper_gemm_fixed(_fits("fp8"), engine)
    assert 5.0 < measured < 6.0
    prof = resolve_engine(engine)
    assert prof.fp8_gemm_kernel_us == pytest.approx(measured, abs=0.01)
    # more than the bf16 kernels' on the same systems: the input quantisation and the scaled epilogue
    assert measured > bench.hopper_gemm_fixed(_fits("bfloat16"), engine) + 1.0


def test_the_fp8_figure_is_for_per_tensor_fp8_only() -> None:
    prof = resolve_engine("vllm")
    assert prof.gemm_fixed_us("fp8") == prof.fp8_gemm_kernel_us
    # bf16, Marlin weight-only and block-FP8 (whose quantisation is its own per-layer kernel) keep bf16's
    for cls in ("16bit", "weight-only", "fp8-block"):
        assert prof.gemm_fixed_us(cls) == prof.gemm_kernel_us
    # an engine without a measured FP8 lane keeps its bf16 figure for FP8 too (TensorRT-LLM's FP8 lane
    # is not taken: engines.py says why)
    trt = resolve_engine("tensorrt-llm")
    assert trt.gemm_fixed_us("fp8") == trt.gemm_kernel_us


def test_an_fp8_step_adds_the_fp8_fixed_part_per_gemm() -> None:
    # Llama 3.1 8B FP8 on one H100 under vLLM: 129 GEMMs x 5.71 us = 0.74 ms of the step (3.64 us: 0.47)
    st = make_setup("llama-3.1-8b", "H100", precision="fp8")
    assert st.fmt.efficiency_class == "fp8"
    free = dataclasses.replace(st, engine=dataclasses.replace(st.engine, fp8_gemm_kernel_us=0.0))
    for batch in (1, 32):
        added = decode_step(st, batch, 1024).total - decode_step(free, batch, 1024).total
        expected = 129 * (st.engine.fp8_gemm_kernel_us - st.engine.gemm_kernel_us) * 1e-6
        assert added == pytest.approx(expected, rel=0.01)


def test_fp8_on_a_gpu_without_fp8_runs_weight_only_and_pays_the_bf16_part() -> None:
    from gpuscout.estimate.api import estimate

    # an A100 has no FP8 tensor cores: vLLM runs FP8 weights through Marlin (weight-only), whose GEMMs
    # are not the scaled-mm kernels the FP8 figure was measured on
    res = estimate("llama-3.1-8b", "A100", precision="fp8", batch=1)
    assert res.assumptions["compute_class"] == "weight-only"
    assert "3.64 us per weight GEMM" in res.assumptions["fixed_costs"]


def test_the_fixed_costs_assumption_names_the_fp8_figure() -> None:
    from gpuscout.estimate.api import estimate

    fixed = estimate("llama-3.1-8b", "H100", precision="fp8", batch=1).assumptions["fixed_costs"]
    assert "5.71 us per weight GEMM (129 a step; measured kernels)" in fixed
