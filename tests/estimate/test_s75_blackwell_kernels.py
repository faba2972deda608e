"""NVFP4 GEMMs and 4-bit MoE experts on datacenter Blackwell, from the engines' measured kernels.

aiconfigurator-core 0.12.0's tables time vLLM 0.24.0's, SGLang 0.5.14's and TensorRT-LLM 1.3.0rc20's
own kernels on H100, H200, B200, GB200, B300 and GB300. There, SGLang's NVFP4 GEMMs of 1-32 rows stream at
0.70-0.76x its bf16 GEMMs' share of the bandwidth on the same GPUs (vLLM's: 0.93-1.03x, as bf16); both
engines' NVFP4 calls (input quantisation + GEMM) cost 4.6-8.4 us besides their bytes against 3.2-3.6 us for
bf16; vLLM's 4-bit MoE experts stream at 0.52-0.63 of the same GPU's dense GEMV rate, against 0.82 on
Hopper.
The estimate streamed NVFP4 as bf16, paid the bf16 fixed part and took Hopper's expert share on every
GPU: the calibration set has no inference row on these GPUs to say otherwise. Each figure here is a ratio
between two kernels on the same GPUs, so it does not depend on which GPUs the streaming shares were
fitted on."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import GenerationKernels, resolve_engine
from gpuscout.estimate.throughput import decode_step
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.conftest import load_benchmark
from tests.estimate.setups import make_setup

Lanes = dict[str, dict[tuple[str, str], tuple[float, float]]]


def _blackwell(engine: str) -> GenerationKernels:
    gen = resolve_engine(engine).generation_for((10, 0))
    assert gen is not None
    return gen


@cache
def _lanes() -> Lanes:
    bench = load_benchmark("moe_kernels")
    rows = bench.load(bench.DATA)
    return {dtype: bench.gemv_fits(rows, dtype) for dtype in bench.GEMM_LANES}


def test_sglang_nvfp4_streams_at_its_measured_ratio_to_bf16() -> None:
    bench = load_benchmark("moe_kernels")
    mean, low, high, _ = bench.blackwell_mean(_lanes(), "sglang", "nvfp4")
    assert 0.6 < low <= mean <= high < 0.8  # the four systems agree
    gen = _blackwell("sglang")
    assert gen.class_stream == {"fp4": pytest.approx(mean, abs=0.001)}


def test_vllm_nvfp4_streams_as_bf16_and_ships_no_ratio() -> None:
    bench = load_benchmark("moe_kernels")
    _, low, high, _ = bench.blackwell_mean(_lanes(), "vllm", "nvfp4")
    assert low < 1.0 < high  # 0.93-1.03: no difference from bf16 beyond the systems' spread
    gen = _blackwell("vllm")
    assert gen.class_stream == {}


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_nvfp4_gemms_pay_their_measured_fixed_part(engine: str) -> None:
    bench = load_benchmark("moe_kernels")
    fixed = bench.blackwell_mean(_lanes(), engine, "nvfp4")[3]
    prof = resolve_engine(engine)
    assert prof.fp4_gemm_kernel_us == pytest.approx(fixed, abs=0.01)
    assert prof.fp4_gemm_kernel_us > prof.gemm_kernel_us + 0.9  # the FP4 quantisation of the input
    assert prof.gemm_fixed_us("fp4") == prof.fp4_gemm_kernel_us
    assert prof.gemm_fixed_us("16bit") == prof.gemm_kernel_us


def test_tensorrt_llm_nvfp4_lane_is_not_taken() -> None:
    # its NVFP4 lane is the same PyTorch-flow call as its FP8 one (9 us fixed, unexplained): not taken
    trt = resolve_engine("tensorrt-llm")
    assert trt.fp4_gemm_kernel_us == 0.0
    assert trt.gemm_fixed_us("fp4") == trt.gemm_kernel_us
    assert trt.generation_kernels == ()


def test_vllm_4bit_experts_on_blackwell_are_the_b200_kernels() -> None:
    bench = load_benchmark("moe_kernels")
    measured = bench.blackwell_moe_weight_only(bench.kernel_fits(bench.load(bench.DATA)), "vllm")
    hopper = resolve_engine("vllm")
    b200 = hopper.on_generation((10, 0))
    mean, low, high = measured
    assert b200.moe_weight_only_share == pytest.approx(mean, abs=0.001)
    assert 0.5 < low <= mean <= high < 0.65 < hopper.moe_weight_only_share  # 0.60 against Hopper's 0.82
    # the 16-bit experts are unchanged (the B200's bf16 fused-MoE kernels: 0.92-1.04x its GEMV rate)
    assert b200.moe_stream_share("16bit") == hopper.moe_stream_share("16bit")


def test_the_streaming_figures_apply_on_sm100_and_sm103_only() -> None:
    for name in ("vllm", "sglang"):
        prof = resolve_engine(name)
        assert prof.on_generation(resolve_gpu("A100").nvidia_cc) is prof
        assert prof.on_generation(None) is prof  # an AMD GPU has no NVIDIA compute capability
        for gpu in ("H100", "H200", "RTX 5090", "L40S"):  # their FP8 compute figure only (stop 76)
            on = prof.on_generation(resolve_gpu(gpu).nvidia_cc)
            assert on.bandwidth_efficiency == prof.bandwidth_efficiency, gpu
            assert on.moe_weight_only_share == prof.moe_weight_only_share, gpu
        for gpu in ("B200", "GB200", "B300", "GB300"):
            on = prof.on_generation(resolve_gpu(gpu).nvidia_cc)
            assert on.generation_note, gpu
            # 16-bit, FP8 and weight-only weights stream as before
            for cls in ("16bit", "fp8", "fp8-block", "weight-only"):
                assert on.bandwidth_eff(cls) == prof.bandwidth_eff(cls), (gpu, cls)
    hopper = resolve_engine("sglang")
    assert hopper.on_generation((10, 0)).bandwidth_eff("fp4") == pytest.approx(
        hopper.bandwidth_eff("16bit") * 0.73
    )


def test_an_nvfp4_step_on_the_b200_adds_the_fp4_fixed_part_per_gemm() -> None:
    # Llama 3.3 70B NVFP4 at batch 1 on one B200 under vLLM: 321 GEMMs (80 layers x 4 + the head) at
    # 7.85 us each, against 3.64 us for a bf16 GEMM
    st = make_setup("llama-3.3-70b", "B200", precision="nvfp4")
    assert st.fmt.efficiency_class == "fp4"
    free = dataclasses.replace(st, engine=dataclasses.replace(st.engine, fp4_gemm_kernel_us=0.0))
    added = decode_step(st, 1, 1024).total - decode_step(free, 1, 1024).total
    assert added == pytest.approx(321 * (7.85 - 3.64) * 1e-6, rel=0.01)


def test_sglang_nvfp4_weights_take_1_over_0_73_as_long_to_stream() -> None:
    st = make_setup("llama-3.3-70b", "B200", precision="nvfp4", engine="sglang")
    on = dataclasses.replace(st, engine=st.engine.on_generation(st.acc.nvidia_cc))
    assert on.achieved_bandwidth == pytest.approx(st.achieved_bandwidth * 0.73)


def test_gpt_oss_experts_on_a_b200_stream_at_the_blackwell_share() -> None:
    # gpt-oss-120b (MXFP4 experts, W4A16) at 64 users on one B200 under vLLM: nearly every expert is read
    # each step (~52 GB), at 0.599 of the dense rate there, not 0.82: ~4 ms more a token
    vllm = resolve_engine("vllm")
    hopper_figures = dataclasses.replace(vllm, generation_kernels=())
    load = {"concurrency": 64, "context_in": 1024, "context_out": 1024}
    before = estimate("gpt-oss-120b", "B200", engine=hopper_figures, **load)
    after = estimate("gpt-oss-120b", "B200", engine=vllm, **load)
    assert before.tpot_ms and after.tpot_ms
    assert 1.2 * before.tpot_ms < after.tpot_ms < 0.82 / 0.599 * before.tpot_ms
    assert "expert weight reads at 0.60" in after.assumptions["moe"]


def test_the_estimate_says_where_the_figures_come_from() -> None:
    b200 = estimate("llama-3.3-70b", "B200", precision="nvfp4", engine="sglang", batch=1)
    note = b200.assumptions["kernel_generation"]
    assert "datacenter Blackwell" in note and "fp4 GEMMs stream at 0.73x" in note and "measured" in note
    assert "4.88 us per weight GEMM" in b200.assumptions["fixed_costs"]
    oss = estimate("gpt-oss-120b", "B200", batch=1).assumptions["kernel_generation"]
    assert "4-bit experts stream at 0.60 of the dense GEMV rate (0.82 on Hopper)" in oss
    assert "kernel_generation" not in estimate("llama-3.1-8b", "H100", batch=1).assumptions
    assert "kernel_generation" not in estimate("llama-3.1-8b", "MI300X", batch=1).assumptions


def test_bf16_and_fp8_on_a_b200_are_unchanged() -> None:
    # no same-GPU ratio moves them: their shares are the fitted ones, as on every other GPU
    for precision in ("bf16", "fp8"):
        res = estimate("llama-3.1-8b", "B200", precision=precision, batch=1)
        assert res.assumptions["bandwidth_efficiency"].startswith("0.69 of 8000")
