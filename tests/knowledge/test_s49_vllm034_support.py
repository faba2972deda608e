"""vLLM support rules read in the vLLM 0.34.0 source (PyPI sdist), where 0.33's were unverified or inferred.

What the source shows, by row (paths as in the sdist, cited at ``blob/v0.34.0``):

* bf16 on ROCm: ``RocmPlatform.check_if_supports_dtype`` refuses bfloat16 only below device capability 8.0,
  which vLLM derives from the gfx name (gfx90a -> 9.0): native on every listed AMD target.
* int4 on ROCm: AWQ through the Triton AWQ kernels, GPTQ through the RDNA3 / RDNA hybrid / Triton W4A16
  kernels (``_POSSIBLE_KERNELS[ROCM]``): weight-only.
* int8 (8-bit GPTQ) on ROCm: Conch (a ROCm requirement) and Exllama accept ``uint8b128``; the Triton W4A16
  and RDNA kernels are 4-bit only: weight-only.
* w8a8 INT8 on ROCm: the Triton scaled-mm kernel on every target (``_POSSIBLE_INT8_KERNELS[ROCM]``): native.
* FP8 on RDNA4 (gfx12xx): torch._scaled_mm and the ROCm FP8 kernel accept gfx12x: native (was refused);
  on MI200 / RDNA3 no per-tensor or per-channel FP8 kernel (refusal, partly sourced).
* NVFP4 and dense MXFP4 on AMD parts without MX math: only the emulation kernels (weights dequantized to bf16
  on every call), a reference path slower than bf16: refused as a way to serve; gpt-oss's MXFP4 experts run
  through the OpenAI Triton MoE kernels on gfx9 and gfx11/12.
* Volta: the 0.34 docs ask for compute capability 7.5+, and CMake keeps sm_70 only below CUDA 12.8.
* dense MXFP4 on the SM100 family: compressed-tensors' W4A4 MXFP4 scheme quantises the activations to MXFP4
  and runs FlashInfer's CuTe DSL MXFP4 GEMM: native W4A4 (0.33's row said W4A16).

The TPU, Gaudi and Neuron rows stay unverified: their kernels live in plugin packages the sdist does not hold.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.support import can_run
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.engine_support import check_support, platform_of, support_rules

V034 = "https://github.com/vllm-project/vllm/blob/v0.34.0/"
ROCM_PLATFORM = V034 + "vllm/platforms/rocm.py"
KERNELS = V034 + "vllm/model_executor/kernels/linear/__init__.py"


def _amd(gfx: str) -> Accelerator:
    """An AMD part with gfx target ``gfx`` (the catalog lists no RDNA card): MI300X's figures, another
    target."""
    return dataclasses.replace(resolve_gpu("MI300X"), name=f"test-{gfx}", compute_capability=gfx)


def _cites(v: object, path: str) -> bool:
    return any(s == V034 + path for s in getattr(v, "sources", ()))


@pytest.mark.parametrize("gpu", ["MI250X", "MI300X", "MI355X"])
def test_vllm_bf16_on_rocm_is_read_in_the_platform_source(gpu: str) -> None:
    v = check_support("vllm", "bf16", resolve_gpu(gpu))
    assert v.mode == "native" and v.tag == "sourced"
    assert v.precision_rule is not None and v.precision_rule.version == "vllm 0.34.0"
    assert ROCM_PLATFORM in v.sources


@pytest.mark.parametrize("gpu", ["MI250X", "MI300X", "MI355X"])
@pytest.mark.parametrize(
    ("precision", "mode", "kernel"),
    [
        ("int4", "weight-only", "triton_w4a16.py"),
        ("int8", "weight-only", "conch.py"),
        ("w8a8", "native", "scaled_mm/triton.py"),
    ],
)
def test_vllm_integer_formats_on_rocm_run_through_the_kernels_the_source_lists(
    gpu: str, precision: str, mode: str, kernel: str
) -> None:
    v = check_support("vllm", precision, resolve_gpu(gpu))
    assert v.mode == mode and v.tag == "sourced", v.message()
    assert KERNELS in v.sources
    assert any(s.startswith(V034) and s.endswith(kernel) for s in v.sources), v.sources


def test_vllm_8bit_gptq_on_rocm_names_the_8bit_kernels_not_the_4bit_ones() -> None:
    v = check_support("vllm", "int8", resolve_gpu("MI300X"))
    assert "Conch" in v.reason and "Exllama" in v.reason and "4-bit weights only" in v.reason
    assert can_run("vllm", "gptq-int8", "MI300X").mode == "weight-only"


@pytest.mark.parametrize("gfx", ["gfx1200", "gfx1201"])
def test_vllm_fp8_runs_natively_on_rdna4(gfx: str) -> None:
    """torch._scaled_mm and the ROCm FP8 kernel accept gfx12x (scaled_mm/pytorch.py, scaled_mm/rocm.py):
    the 0.33 rule refused FP8 on every AMD target but gfx942/gfx950."""
    acc = _amd(gfx)
    assert platform_of(acc).target == gfx
    v = check_support("vllm", "fp8", acc)
    assert v.mode == "native" and v.tag == "sourced", v.message()
    assert any(s.endswith("kernels/linear/scaled_mm/pytorch.py") for s in v.sources)


@pytest.mark.parametrize("gpu", ["MI210", "MI250X"])
def test_vllm_fp8_on_mi200_is_refused_with_the_kernels_it_lacks(gpu: str) -> None:
    v = check_support("vllm", "fp8", resolve_gpu(gpu))
    assert not v.supported and v.tag == "partial"
    assert "gfx942/gfx950/gfx12x" in v.reason and "block-scaled" in v.reason
    for gfx in ("gfx1100", "gfx1151"):  # RDNA3 / RDNA3.5: the same refusal
        assert check_support("vllm", "fp8", _amd(gfx)).precision_rule == v.precision_rule
    for gpu_ok in ("MI300X", "MI355X"):  # CDNA3/4: unchanged
        assert check_support("vllm", "fp8", resolve_gpu(gpu_ok)).mode == "native"


def test_vllm_nvfp4_on_rocm_is_only_emulated_so_refused() -> None:
    v = check_support("vllm", "nvfp4", resolve_gpu("MI300X"))
    assert v.mode == "unsupported" and v.tag == "sourced"
    assert "emulation" in v.reason and "NVFP4A16" in v.reason and "not a way to serve" in v.reason
    assert _cites(v, "vllm/model_executor/kernels/linear/nvfp4/emulation.py")
    est = estimate("llama-3.1-8b", "MI300X", engine="vllm", precision="nvfp4")
    assert not est.supported and "emulation" in (est.unsupported_reason or "")
    tpu = check_support("vllm", "nvfp4", resolve_gpu("TPU-v5e"))  # a plugin: the catch-all, unverified
    assert not tpu.supported and tpu.tag == "unverified"


@pytest.mark.parametrize("gpu", ["MI210", "MI250X"])
def test_vllm_gpt_oss_mxfp4_runs_weight_only_on_mi200(gpu: str) -> None:
    """The OpenAI Triton MoE kernels are enabled on gfx9 and gfx11/gfx12 (gpt_oss_triton_kernels_moe.py)."""
    v = check_support("vllm", "mxfp4", resolve_gpu(gpu))
    assert v.mode == "weight-only" and v.tag == "sourced"
    assert _cites(v, "vllm/model_executor/layers/fused_moe/experts/gpt_oss_triton_kernels_moe.py")
    for gfx in ("gfx1100", "gfx1201"):
        assert check_support("vllm", "mxfp4", _amd(gfx)).mode == "weight-only"
    est = estimate("gpt-oss-20b", gpu, engine="vllm")
    assert est.supported and est.support == "weight-only"


@pytest.mark.parametrize("gpu", ["MI250X", "MI300X"])
def test_vllm_dense_mxfp4_without_mx_math_is_only_emulated_so_refused(gpu: str) -> None:
    """A dense MXFP4 checkpoint on an AMD part without MX math goes to EmulationMxfp4LinearKernel, a reference
    path: refused; gpt-oss (its experts alone) keeps its MoE kernels there."""
    dense = can_run("vllm", "mxfp4", gpu).verdict
    assert dense.mode == "unsupported" and dense.checkpoint == "dense"
    assert "emulation" in dense.reason
    assert can_run("vllm", "mxfp4-moe", gpu).mode == "weight-only"
    assert can_run("vllm", "mxfp4", "MI355X").mode == "native"  # gfx950: AITER's MXFP4 GEMM, unchanged


def test_vllm_on_volta_is_refused_by_the_034_docs_and_cmake() -> None:
    v = check_support("vllm", "bf16", resolve_gpu("V100-SXM2-16GB"))
    assert not v.supported
    assert v.platform_rule is not None and v.platform_rule.tag == "sourced"
    assert v.tag == "sourced"
    assert V034 + "CMakeLists.txt" in v.sources
    assert "7.5 or higher" in v.reason and "sm_70" in v.reason
    assert check_support("vllm", "bf16", resolve_gpu("T4")).mode == "fallback-fp16"  # CC 7.5 runs


@pytest.mark.parametrize("gpu", ["B200", "B300"])
def test_vllm_dense_mxfp4_on_the_sm100_family_is_w4a4(gpu: str) -> None:
    """compressed-tensors' MXFP4 scheme asks MXFP4 activations and FlashInfer's CuTe DSL GEMM (SM100+, a
    default dependency) multiplies MXFP4 x MXFP4: the FP4 rate, where 0.33's row timed W4A16."""
    run = can_run("vllm", "mxfp4", gpu)
    assert run.mode == "native" and run.verdict.tag == "sourced"
    assert run.verdict.precision_rule is not None and run.verdict.precision_rule.precision == "mxfp4:dense"
    assert _cites(run.verdict, "vllm/model_executor/kernels/linear/mxfp4/flashinfer.py")
    est = estimate("llama-3.1-8b", gpu, engine="vllm", precision="mxfp4")
    assert est.support == "native" and est.assumptions["compute_class"] == "fp4"
    # below Blackwell the same checkpoint stays weight-only (Marlin W4A16)
    assert can_run("vllm", "mxfp4", "H100").mode == "weight-only"


def test_every_rule_read_in_034_cites_the_034_source_and_the_plugins_stay_unverified() -> None:
    rows = [r for r in support_rules() if r.engine == "vllm" and r.version == "vllm 0.34.0"]
    assert {(r.precision, r.target) for r in rows} >= {
        ("*", "nvidia"),
        ("bf16", "amd"),
        ("fp8", "amd:gfx1200;gfx1201"),
        ("int8", "amd"),
        ("w8a8", "amd"),
        ("int4", "amd"),
        ("mxfp4:dense", "nvidia"),
    }
    for r in rows:
        assert r.tag in ("sourced", "partial"), r
        assert any(s.startswith(V034) for s in r.sources), r
    # what lives in the TPU, Gaudi and Neuron plugins is not in the sdist: those rows stay as they were
    for r in support_rules():
        if r.engine == "vllm" and r.target.split(":")[0] in ("tpu", "gaudi", "neuron") and r.precision != "*":
            assert r.tag == "unverified" and r.version == "vllm 0.33.0", r
    for precision in ("int8", "w8a8", "int4", "nvfp4", "mxfp4"):  # the catch-all after the specific rows
        last = [r for r in support_rules() if r.engine == "vllm" and r.precision == precision][-1]
        assert last.target == "*" and last.mode == "unsupported", last


def test_a_dense_model_is_not_offered_mxfp4_where_only_gpt_oss_kernels_run_it() -> None:
    """MI300X runs gpt-oss's MXFP4 experts (AITER Triton W4A16 MoE) but a dense MXFP4 checkpoint only through
    the emulation kernel: refusing nvfp4 for a dense model must not propose mxfp4 as what would run."""
    dense = estimate("llama-3.1-8b", "MI300X", engine="vllm", precision="nvfp4")
    assert not dense.supported
    offered = dense.assumptions["alternatives"]
    assert "vllm with int4" in offered and "mxfp4" not in offered
    from gpuscout.knowledge.engine_support import alternatives

    mi300x = resolve_gpu("MI300X")
    assert not [a for a in alternatives("vllm", "nvfp4", mi300x, dense_model=True) if a.precision == "mxfp4"]
    assert [a for a in alternatives("vllm", "nvfp4", mi300x) if a.precision == "mxfp4"]  # gpt-oss's rule
