"""Weight formats, KV dtypes and compute-rate classes."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.precision import (
    CLASS_16BIT,
    CLASS_FP8,
    CLASS_GGUF,
    compute_rate,
    resolve_kv_dtype,
    resolve_precision,
    weight_bytes,
)
from gpuscout.knowledge.accelerators import resolve_gpu

GIB = 1 << 30


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("bf16", "bf16"),
        ("fp16", "fp16"),
        ("f16", "gguf-f16"),
        ("q4_k_m", "gguf-q4_k_m"),
        ("Q4_K_M", "gguf-q4_k_m"),
        ("GGUF Q4_K_M", "gguf-q4_k_m"),
        ("awq", "int4"),
        ("gptq", "int4"),
        ("int4", "int4"),
        ("nf4", "nf4"),
        ("fp8", "fp8"),
        ("fp4", "nvfp4"),
        ("mxfp4", "mxfp4"),
        ("nvfp4", "nvfp4"),
        ("GGUF Q8_0", "gguf-q8_0"),
        ("Q6_K", "gguf-q6_k"),
        ("int8 weight-only", "int8"),
        ("int4 weight-only G=32", "int4-g32"),
    ],
)
def test_user_spellings_resolve(spelling: str, canonical: str) -> None:
    assert resolve_precision(spelling).name == canonical


def test_unknown_precision_names_field_and_accepted_values() -> None:
    with pytest.raises(InvalidInputError) as err:
        resolve_precision("int3")
    assert err.value.field == "precision"
    assert err.value.accepted and "bf16" in err.value.accepted


@pytest.mark.parametrize(
    ("name", "bits"),
    [
        ("fp32", 32),
        ("bf16", 16),
        ("fp8", 8),
        ("int4", 4.25),
        ("nf4", 4.127),
        ("nvfp4", 4.5),
        ("mxfp4", 4.25),
        ("gguf-q4_0", 4.5),
        ("gguf-q6_k", 6.5625),
        ("gguf-q8_0", 8.5),
    ],
)
def test_bits_per_weight(name: str, bits: float) -> None:
    assert resolve_precision(name).bits_per_weight == pytest.approx(bits, abs=1e-3)


def test_q4_k_m_reproduces_llama_cpp_file_sizes() -> None:
    """Llama 3 8B Q4_K_M is a 4.58 GiB file, Llama 3 70B 39.6 GiB (llama.cpp tables)."""
    fmt = resolve_precision("Q4_K_M")
    embd_8b = 128256 * 4096
    size_8b = weight_bytes(fmt, 8.030e9 - 2 * embd_8b, embd_8b, embd_8b) / GIB
    assert size_8b == pytest.approx(4.58, rel=0.02)
    embd_70b = 128256 * 8192
    size_70b = weight_bytes(fmt, 70.554e9 - 2 * embd_70b, embd_70b, embd_70b) / GIB
    assert size_70b == pytest.approx(39.6, rel=0.02)
    # lm_head stays Q6_K, the body averages 4.8 bits: effective ~4.85-4.9 bits/weight overall
    assert fmt.lm_head_bits == pytest.approx(6.5625)
    assert 4.8 < size_8b * GIB * 8 / 8.03e9 < 5.0


def test_kv_dtypes() -> None:
    assert resolve_kv_dtype("bf16").bytes_per_element == 2
    assert resolve_kv_dtype("fp8").bytes_per_element == 1
    assert resolve_kv_dtype("q8_0").bytes_per_element == pytest.approx(34 / 32)
    assert resolve_kv_dtype("q4_0").bytes_per_element == pytest.approx(18 / 32)
    with pytest.raises(InvalidInputError) as err:
        resolve_kv_dtype("int2")
    assert err.value.field == "kv_dtype"


def test_fp8_on_a100_is_weight_only_and_flagged() -> None:
    a100 = resolve_gpu("A100 SXM 80GB")
    rate = compute_rate(resolve_precision("fp8"), a100)
    assert not rate.native
    assert rate.rate_name == "bf16"
    assert "FP8" in rate.warning


def test_fp8_on_h100_is_native() -> None:
    h100 = resolve_gpu("H100 SXM")
    rate = compute_rate(resolve_precision("fp8"), h100)
    assert rate.native and rate.rate_name == "fp8"
    assert rate.tflops == pytest.approx(h100.fp8_tflops or 0)


def test_compute_classes() -> None:
    assert resolve_precision("bf16").compute_class == CLASS_16BIT
    assert resolve_precision("fp8").compute_class == CLASS_FP8
    assert resolve_precision("q4_k_m").compute_class == CLASS_GGUF


def test_missing_tensor_rate_is_derived_from_fp32_and_marked() -> None:
    gpu = dataclasses.replace(resolve_gpu("RTX 4090"), bf16_tflops=None, fp16_tflops=None)
    rate = compute_rate(resolve_precision("bf16"), gpu)
    assert rate.derived
    assert rate.tflops == pytest.approx(2 * (gpu.fp32_tflops or 0))


@pytest.mark.parametrize(
    ("gpu_name", "ratio"),
    [
        ("T4", 8.0),  # Turing datacenter: 8.1 TFLOPS FP32, 65 fp16 tensor
        ("V100", 8.0),  # Volta: 15.7 -> 125
        ("RTX 2080 Ti", 4.0),  # Turing GeForce: 13.45 -> 53.8 (fp32 accumulate is halved)
        ("RTX 3090", 2.0),  # GA102 doubled the FP32 lanes, not the tensor cores
        ("L40S", 4.0),
    ],
)
def test_a_derived_tensor_rate_follows_the_architectures_ratio_to_fp32(gpu_name: str, ratio: float) -> None:
    gpu = dataclasses.replace(resolve_gpu(gpu_name), bf16_tflops=None, fp16_tflops=None)
    expected = ratio * (gpu.fp32_tflops or 0)
    assert compute_rate(resolve_precision("fp16"), gpu).tflops == pytest.approx(expected)


def test_llama_cpp_quants_on_pascal_multiply_at_the_dp4a_int8_rate() -> None:
    p40 = resolve_gpu("P40")  # 11.76 TFLOPS FP32; the datasheet's 47 INT8 TOPS is 4x that
    quant = compute_rate(resolve_precision("q4_0"), p40)
    assert quant.rate_name == "int8" and quant.tflops == pytest.approx(4 * 11.76)
    assert "dp4a" in quant.warning and quant.derived  # the P40's row has no INT8 figure: said, and marked
    # a part of this kind without an FP32 figure gets the table's placeholder rate, never zero
    bare = dataclasses.replace(p40, fp32_tflops=None)
    assert compute_rate(resolve_precision("q4_0"), bare).tflops > 0
    # its 1/64-rate fp16 figure, were the table to list it, is not what dp4a runs at
    listed = dataclasses.replace(p40, fp16_tflops=0.18)
    assert compute_rate(resolve_precision("q4_0"), listed).tflops == pytest.approx(4 * 11.76)
    # F16 GGUF and 16-bit formats still multiply at the FP32 rate (no tensor cores, fp16 at 1/64)
    assert compute_rate(resolve_precision("f16"), p40).tflops == pytest.approx(11.76)
    assert compute_rate(resolve_precision("fp16"), p40).tflops == pytest.approx(11.76)
    # P100 (6.0) has no dp4a but fast fp16; Turing's tensor rate stays the one quants use
    p100 = resolve_gpu("P100-PCIe-16GB")
    assert compute_rate(resolve_precision("q4_0"), p100).rate_name != "int8"
    # the 16-bit tensor rate, named as T4 computes it (no bf16)
    assert compute_rate(resolve_precision("q4_0"), resolve_gpu("T4")).rate_name == "fp16"


def test_bf16_on_a_gpu_without_bf16_is_flagged_as_fp16_not_treated_as_native() -> None:
    from gpuscout.estimate.api import estimate

    # vLLM's default wheel has no V100 kernels; HF transformers runs there, in fp16 (support rules)
    volta = estimate("llama-3.1-8b", "V100", gpus=2, precision="bf16", engine="hf")
    assert volta.precision == "fp16" and volta.support == "fallback-fp16"
    assert any("runs as fp16" in w for w in volta.warnings)
    ampere = estimate("llama-3.1-8b", "A100", precision="bf16")
    assert not any("BF16" in w or "fp16" in w for w in ampere.warnings)
    fp16 = estimate("llama-3.1-8b", "V100", gpus=2, precision="fp16", engine="hf")
    assert fp16.support == "native" and not any("fp16" in w for w in fp16.warnings)
