"""Support rules checked against the reference matrix (``tests/fixtures/reference/engine_support.md``):
CC 12.x is not "newer than" 10.0 for SM100 kernels (section 1's trap), a platform refusal that is only
inferred does not hide the precision's sourced one, and a reason given for an AMD, Gaudi, TPU or Neuron part
does not speak of CUDA compute capabilities.
"""

from __future__ import annotations

import re

import pytest

from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu
from gpuscout.knowledge.engine_support import (
    CHECKPOINTS,
    ENGINES,
    PRECISIONS,
    _cc,
    check_support,
    platform_of,
    support_rules,
)

VLLM_FP8 = "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/model_executor/layers/quantization/fp8.py"
VLLM_MXFP4_ORACLE = "vllm/model_executor/layers/fused_moe/oracle/mxfp4.py"
BNB_DOC = "bitsandbytes/blob/95f9af309d4d5793847169c39288dcd3fcbdf564/docs/source/installation.mdx"
CC12 = ("RTX5090", "RTX5080", "RTXPRO6000-WS", "RTXPRO6000-Server", "RTXPRO6000-MaxQ")

# 1. CC 12.x and the SM100 family


@pytest.mark.parametrize("gpu", CC12)
def test_vllm_mxfp4_on_cc12_runs_weight_only_through_marlin(gpu: str) -> None:
    """md section 3 (vLLM MXFP4): "on SM12x Marlin preferred"; section 5: RTX 5090 / RTX PRO 6000 "MXFP4 via
    Marlin". The FlashInfer TRTLLM kernels are the SM100 family's (B200/B300): native there only."""
    v = check_support("vllm", "mxfp4", resolve_gpu(gpu))
    assert v.mode == "weight-only" and v.tag == "sourced"
    assert "Marlin" in v.reason and "SM12x" in v.reason
    assert any(s.endswith(VLLM_MXFP4_ORACLE) for s in v.sources)


@pytest.mark.parametrize("gpu", ["B200", "B300", "GB200"])
def test_vllm_mxfp4_stays_native_on_the_sm100_family(gpu: str) -> None:
    v = check_support("vllm", "mxfp4", resolve_gpu(gpu))
    assert v.mode == "native" and v.tag == "sourced" and "SM100" in v.reason


def test_a_sourced_native_row_from_cc10_names_cc12_when_it_covers_it() -> None:
    """Every sourced `native` NVIDIA row that starts at CC 10.0 or later and reaches CC 12.x says 12.x in
    its rule (vLLM NVFP4: "10.0, 10.3, 12.x"; TensorRT-LLM FP4: "sm100/sm120"; llama.cpp: "120a"): a
    Blackwell floor alone does not make an SM12x claim."""
    for r in support_rules():
        if r.mode != "native" or not r.target.startswith("nvidia") or r.tag != "sourced" or not r.min_cc:
            continue
        lo, hi = _cc(r.min_cc), _cc(r.max_cc) or (99, 0)
        assert lo is not None
        if lo >= (10, 0) and hi >= (12, 0):
            assert re.search(r"12\.x|sm_?120|SM120|120a", r.rule), r


@pytest.mark.parametrize(
    ("engine", "precision"),
    [("sglang", "nvfp4"), ("sglang", "mxfp4"), ("hf-transformers", "nvfp4"), ("tgi", "fp8")],
)
def test_a_cc12_verdict_the_reference_does_not_give_is_tagged(engine: str, precision: str) -> None:
    """Where the reference is silent on CC 12.x (SGLang's FP4 kernels, transformers' NVFP4 beyond its
    gate, TGI's FP8 beyond "CUTLASS W8A8 on 9.x"), the verdict stays native but its precision rule is not
    tagged sourced, and the reason does not present a 9.x or SM100 path as the 12.x one."""
    for gpu in CC12:
        v = check_support(engine, precision, resolve_gpu(gpu))
        assert v.mode == "native" and v.precision_rule is not None
        assert v.precision_rule.tag in ("inferred", "unverified", "partial"), (gpu, v.reason)
        assert v.tag != "sourced"
        assert "12.x" in v.reason


def test_the_sm100_rows_keep_their_tags() -> None:
    b200 = resolve_gpu("B200")
    assert check_support("sglang", "nvfp4", b200).tag == "sourced"
    assert check_support("hf-transformers", "nvfp4", b200).tag == "sourced"
    assert check_support("sglang", "mxfp4", b200).tag == "inferred"
    tgi_h100 = check_support("tgi", "fp8", resolve_gpu("H100-SXM"))
    assert tgi_h100.mode == "native" and tgi_h100.tag == "sourced" and "9.x" in tgi_h100.reason


# 4a. an inferred platform refusal and the precision's sourced one


def test_vllm_fp8_on_a_v100_is_refused_by_the_sourced_volta_rule() -> None:
    """vLLM 0.34 documents compute capability 7.5+ and its CMake keeps sm_70 only below CUDA 12.8: the
    platform refusal is sourced, so it alone decides (no precision rule is needed beside it)."""
    v = check_support("vllm", "fp8", resolve_gpu("V100-SXM2-16GB"))
    assert not v.supported
    assert v.reason.startswith("Volta (CC 7.0)") and "sm_70" in v.reason and "source build" in v.reason
    assert v.platform_rule is not None and v.platform_rule.tag == "sourced"
    assert v.precision_rule is None and v.tag == "sourced"
    assert "https://github.com/vllm-project/vllm/blob/v0.34.0/CMakeLists.txt" in v.sources
    assert VLLM_FP8 not in v.sources


def test_sglang_fp8_on_turing_gives_its_gate_beside_the_kernel_caveat() -> None:
    """SGLang's Fp8Config gate is CC 8.0 (get_min_capability 80): said on a T4 beside the inferred
    sglang-kernel caveat."""
    v = check_support("sglang", "fp8", resolve_gpu("T4"))
    assert not v.supported
    assert "get_min_capability 80" in v.reason and "sm_75" in v.reason


def test_a_precision_that_would_run_does_not_change_a_platform_refusal() -> None:
    """fp16 would run on a V100 with a source build: the verdict stays the platform's alone."""
    v = check_support("vllm", "fp16", resolve_gpu("V100-SXM2-16GB"))
    assert not v.supported and v.precision_rule is None and "platform: " not in v.reason


def test_two_guesses_are_not_stacked() -> None:
    """An unverified precision catch-all adds nothing to an unverified platform refusal (gpt-fast on a
    TPU): the reason stays the platform's."""
    v = check_support("gpt-fast", "int4", resolve_gpu("TPU-v5e"))
    assert not v.supported and v.precision_rule is None
    assert v.platform_rule is not None and v.reason == v.platform_rule.rule


# 4b. bitsandbytes off NVIDIA, and no CUDA words for a non-CUDA part


@pytest.mark.parametrize("gpu", ["Gaudi2", "Gaudi3"])
def test_transformers_nf4_runs_on_gaudi_through_bitsandbytes(gpu: str) -> None:
    """The reference lists an Intel Gaudi backend of bitsandbytes (v1.21+)."""
    v = check_support("hf-transformers", "nf4", resolve_gpu(gpu))
    assert v.mode == "weight-only"
    assert v.precision_rule is not None and v.precision_rule.tag == "sourced"
    assert "Gaudi" in v.reason
    assert any(s.endswith(BNB_DOC) for s in v.sources)


@pytest.mark.parametrize("gpu", ["MI300X", "MI250X", "MI355X"])
def test_transformers_int8_runs_on_rocm_through_the_same_wheels_as_nf4(gpu: str) -> None:
    acc = resolve_gpu(gpu)
    int8 = check_support("hf-transformers", "int8", acc)
    nf4 = check_support("hf-transformers", "nf4", acc)
    assert int8.mode == nf4.mode == "weight-only"
    assert int8.tag == "sourced" and "ROCm" in int8.reason and "LLM.int8()" in int8.reason


_CUDA_WORDS = re.compile(r"compute capability|\bCC\b|\bsm_?\d{2,3}|major >= ", re.IGNORECASE)


def test_no_reason_speaks_cuda_compute_capability_on_a_non_cuda_part() -> None:
    """For every engine, precision and checkpoint format on every AMD, Gaudi, TPU and Neuron part, the
    reason never words its verdict in CUDA compute capabilities (transformers NVFP4 on an MI300X said
    "raises unless compute capability major >= 10"; bitsandbytes NF4 on a Gaudi "needs CC 6.0+")."""
    for acc in all_accelerators():
        if platform_of(acc).family == "nvidia":
            continue
        for engine in ENGINES:
            for precision in PRECISIONS:
                for checkpoint in ("", *CHECKPOINTS.get(precision, ())):
                    reason = check_support(engine, precision, acc, checkpoint).reason
                    assert not _CUDA_WORDS.search(reason), (acc.name, engine, precision, checkpoint, reason)


def test_transformers_nvfp4_off_nvidia_says_what_it_needs_in_plain_words() -> None:
    for gpu in ("MI300X", "Gaudi3", "TPU-v5e"):
        v = check_support("hf-transformers", "nvfp4", resolve_gpu(gpu))
        assert not v.supported and "NVIDIA Blackwell" in v.reason
    h100 = check_support("hf-transformers", "nvfp4", resolve_gpu("H100-SXM"))
    assert not h100.supported and "compute capability major >= 10" in h100.reason
