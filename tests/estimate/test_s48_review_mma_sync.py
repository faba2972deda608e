"""Every weight-only format timed at mma.sync's share of the tensor rate says so, with the factor.

Regression (renter review, stop 48): ``gpuscout estimate llama-3.1-8b --gpu H100 --precision nvfp4``
listed "0.45 of 989.5 TFLOPS" and prefilled at 15,621 tokens/s where AWQ on the same GPU gets 30,616:
the hidden factor was :func:`throughput.legacy_mma_share` (Marlin's mma.sync keeps half of Hopper's
rate). Only vLLM's Machete (AWQ/GPTQ on sm_90) had a ``gemm_kernel`` line.
"""

from __future__ import annotations

import re

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.throughput import legacy_mma_share
from gpuscout.knowledge.accelerators import resolve_gpu

_RATE = re.compile(r"timed at ([\d.]+) of the weight-only compute efficiency, ([\d.]+) of ([\d,.]+) TFLOPS")


@pytest.mark.parametrize(
    ("model", "gpu", "precision", "engine", "kernel", "mma"),
    [
        ("llama-3.1-8b", "H100", "nvfp4", "vllm", "Marlin", "Hopper's wgmma"),  # Marlin FP4, W4A16
        ("llama-3.1-8b", "H100", "int8", "sglang", "Marlin", "Hopper's wgmma"),  # GPTQ 8-bit, W8A16
        # (vLLM's 8-bit GPTQ on sm_90 is Machete, as its int4: tests/estimate/test_decode_kernels.py)
        ("llama-3.1-8b", "H100", "awq", "sglang", "Marlin", "Hopper's wgmma"),
        ("mixtral-8x7b", "H100", "awq", "vllm", "fused MoE kernel", "Hopper's wgmma"),  # no Machete for MoE
        ("llama-3.1-8b", "B200", "awq", "vllm", "Marlin", "Blackwell's tcgen05"),  # Machete is sm_90 only
        (
            "llama-3.1-8b",
            "H100",
            "awq",
            "hf-transformers",
            "taken as Ampere-style mma.sync",
            "Hopper's wgmma",
        ),
    ],
)
def test_the_mma_sync_share_is_stated_with_its_kernel_and_rate(
    model: str, gpu: str, precision: str, engine: str, kernel: str, mma: str
) -> None:
    est = estimate(model, gpu, precision=precision, engine=engine, context_in=4096, context_out=1)
    said = est.assumptions["gemm_kernel"]
    assert kernel in said and "mma.sync" in said and f"not {mma}" in said
    found = _RATE.search(said)
    assert found, said
    share, eff, peak = float(found.group(1)), float(found.group(2)), float(found.group(3).replace(",", ""))
    assert share == legacy_mma_share(resolve_gpu(gpu)) == 0.5
    # the rate stated is the one the compute line's efficiency becomes: its efficiency x the share
    compute = re.match(r"([\d.]+) of ([\d,.]+) TFLOPS", est.assumptions["compute_efficiency"])
    assert compute, est.assumptions["compute_efficiency"]
    assert float(compute.group(2).replace(",", "")) == peak
    assert eff == pytest.approx(float(compute.group(1)) * share, abs=0.006)


def test_the_halved_nvfp4_prefill_is_explained_against_machete_awq() -> None:
    # same GPU, same weight-only efficiency prior: AWQ through Machete at the full rate, NVFP4 through
    # Marlin FP4 at half of it; the two lines say which is which
    nvfp4 = estimate("llama-3.1-8b", "H100", precision="nvfp4", engine="vllm", context_in=4096, context_out=1)
    awq = estimate("llama-3.1-8b", "H100", precision="awq", engine="vllm", context_in=4096, context_out=1)
    assert 1.6 < awq.prefill_tokens_per_s / nvfp4.prefill_tokens_per_s < 2.2
    assert "Machete" in awq.assumptions["gemm_kernel"]
    assert "0.5 of the weight-only compute efficiency" in nvfp4.assumptions["gemm_kernel"]
    # no such line where nothing is halved: mma.sync is the full rate before Hopper and on sm_120, and
    # FP8 on an H100 is native W8A8, not weight-only
    for gpu, precision, engine in (
        ("A100", "nvfp4", "vllm"),
        ("RTX 5090", "awq", "vllm"),
        ("H100", "fp8", "vllm"),
    ):
        assert (
            "gemm_kernel" not in estimate("llama-3.1-8b", gpu, precision=precision, engine=engine).assumptions
        )
