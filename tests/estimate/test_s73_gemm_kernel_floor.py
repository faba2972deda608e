"""A decode GEMM costs a few microseconds besides streaming its weights. In NVIDIA's aiconfigurator-core
0.12.0 tables (bf16 GEMMs of 1-32 rows, measured in vLLM 0.24.0, SGLang 0.5.14 and TensorRT-LLM 1.3.0rc20
on H100 and H200) ``latency = fixed + bytes / (share x bandwidth)`` fits with ~3.4-4.2 us fixed and
~0.83-0.87 of the datasheet bandwidth: a 2 MB matrix takes ~7 us (6 % of peak), a 537 MB one ~125 us (89 %).
The estimate had folded that fixed part into one streaming share fitted on 8B-70B models, which made the
thin shards of a big model split 8 ways (and a small model's small matrices) look as cheap per byte as a
whole 8B model's. Each weight GEMM of a CUDA-graph step now pays its engine's measured fixed part."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import pytest

from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.throughput import decode_step
from gpuscout.knowledge.models import resolve_model
from tests.conftest import load_benchmark
from tests.estimate.setups import make_setup


@cache
def _gemvs() -> dict[tuple[str, str], tuple[float, float]]:
    bench = load_benchmark("moe_kernels")
    fits: dict[tuple[str, str], tuple[float, float]] = bench.gemv_fits(bench.load(bench.DATA))
    return fits


@pytest.mark.parametrize("engine", ["vllm", "sglang", "tensorrt-llm"])
def test_each_engine_pays_its_measured_gemm_fixed_part(engine: str) -> None:
    bench = load_benchmark("moe_kernels")
    measured = bench.hopper_gemm_fixed(_gemvs(), engine)
    assert 3.0 < measured < 4.5
    assert resolve_engine(engine).gemm_kernel_us == pytest.approx(measured, abs=0.01)


def test_the_tables_fit_a_fixed_part_and_a_streaming_share() -> None:
    # every engine and Hopper system: a few us per kernel, most of the bandwidth for large matrices
    for (_, system), (fixed, share) in _gemvs().items():
        if system in ("h100_sxm", "h200_sxm"):
            assert 3.0 < fixed < 4.5 and 0.8 < share < 0.9


def test_engines_without_measured_gemms_pay_nothing_extra() -> None:
    assert resolve_engine("tgi").gemm_kernel_us == 0.0
    assert resolve_engine("llama.cpp").gemm_kernel_us == 0.0


@pytest.mark.parametrize(
    ("model", "gemms"),
    [
        # 32 layers x (fused QKV + output) + 32 x (fused gate/up + down) + the head
        ("llama-3.1-8b", 32 * 2 + 32 * 2 + 1),
        # 48 layers x 2 attention GEMMs + 48 MoE layers x the router (no shared expert) + the head
        ("qwen3-30b-a3b", 48 * 2 + 48 * 1 + 1),
        # 61 MLA layers x 5 (q_a/kv_a, q_b, the two absorbed kv_b matmuls, output), 3 dense MLPs x 2,
        # 58 MoE layers x (router + the shared expert's gate/up and down), the head
        ("deepseek-v3", 61 * 5 + 3 * 2 + 58 * 3 + 1),
    ],
)
def test_weight_gemms_per_step_by_hand(model: str, gemms: int) -> None:
    spec = resolve_model(model)
    assert model_consts(spec).weight_gemms == gemms


def test_a_cuda_graph_step_adds_each_gemms_fixed_part_once() -> None:
    # Llama 3.1 8B on one H100 under vLLM: 129 GEMMs x 3.64 us = 0.47 ms of the step, whatever the batch
    st = make_setup("llama-3.1-8b", "H100")
    free = dataclasses.replace(st, engine=dataclasses.replace(st.engine, gemm_kernel_us=0.0))
    for batch in (1, 32):
        added = decode_step(st, batch, 1024).total - decode_step(free, batch, 1024).total
        assert added == pytest.approx(129 * st.engine.gemm_kernel_us * 1e-6, rel=0.01)


def test_thin_shards_cost_more_per_byte_than_whole_matrices() -> None:
    """The fixed part is the same for a matrix split 8 ways: Llama 3.1 70B's step on 8 H100s pays
    80 x 4 + 1 GEMMs x 3.64 us = 1.17 ms, ~12 % of its ~10 ms step, where the 8B model's 0.47 ms on one GPU
    is ~6 % of its ~8 ms."""
    share = {}
    for model, gpus in (("llama-3.1-70b", 8), ("llama-3.1-8b", 1)):
        st: Any = make_setup(model, "H100", gpus=gpus)
        fixed = model_consts(st.spec).weight_gemms * st.engine.gemm_kernel_us * 1e-6
        share[model] = fixed / decode_step(st, 1, 1024).total
    assert share["llama-3.1-70b"] > 1.5 * share["llama-3.1-8b"]


def test_the_fixed_costs_assumption_names_the_gemm_part_where_it_is_paid() -> None:
    from gpuscout.estimate.api import estimate

    graphs = estimate("llama-3.1-8b", "H100", batch=1).assumptions["fixed_costs"]
    assert "3.64 us per weight GEMM (129 a step; measured kernels)" in graphs
    # --enforce-eager: every step's Python launches hide the GEMMs' fixed part, which is not added
    eager_engine = "vllm --enforce-eager"
    eager = estimate("llama-3.1-8b", "H100", engine=eager_engine, batch=1).assumptions["fixed_costs"]
    assert "per weight GEMM" not in eager and "(eager)" in eager
