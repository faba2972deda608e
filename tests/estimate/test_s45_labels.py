"""An estimate names the rate it times at (review s45 item 2): a rate derived from the FP32 one says
both figures ("bf16 rate 59.5 TFLOPS derived from FP32 29.8 TFLOPS", not "derived from FP32 (60
TFLOPS)", which read as the FP32 figure), and a part without bfloat16 (V100, T4) has its FP16 rate
named fp16, not bf16."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import derived_rate_warning, estimate, rate_label
from gpuscout.estimate.precision import ComputeRate, bf16_tflops
from gpuscout.knowledge.accelerators import resolve_gpu


def test_a_derived_rate_names_the_derived_figure_and_the_fp32_one() -> None:
    est = estimate("qwen2.5-1.5b", "RTX3080")
    [said] = [w for w in est.warnings if "no tensor-core rate" in w]
    head = "RTX3080: no tensor-core rate in the table; "
    assert said == head + "bf16 rate 59.5 TFLOPS derived from FP32 29.8 TFLOPS (2x)"
    assert "0.46 of 59.54 TFLOPS bf16 (dense)" in est.assumptions["compute_efficiency"]


def test_a_geforce_turing_card_without_bf16_says_fp16_and_its_4x() -> None:
    est = estimate("qwen2.5-1.5b", "RTX 2080 Ti")
    [said] = [w for w in est.warnings if "no tensor-core rate" in w]
    assert said.startswith("RTX2080Ti: no tensor-core rate in the table; fp16 rate 53.8 TFLOPS")
    assert said.endswith("derived from FP32 13.4 TFLOPS (4x)")
    assert "TFLOPS fp16 (dense)" in est.assumptions["compute_efficiency"]


@pytest.mark.parametrize(("gpu", "peak"), [("V100", "125"), ("T4", "65")])
def test_a_part_without_bf16_has_its_fp16_rate_named_fp16(gpu: str, peak: str) -> None:
    est = estimate("llama-3.1-8b", gpu, engine="llama.cpp", precision="q4_k_m")
    line = est.assumptions["compute_efficiency"]
    assert f"of {peak} TFLOPS fp16 (dense" in line and "bf16" not in line, line


def test_a_part_with_bf16_keeps_bf16() -> None:
    est = estimate("llama-3.1-8b", "L40S", engine="llama.cpp", precision="q4_k_m")
    assert "TFLOPS bf16 (dense" in est.assumptions["compute_efficiency"]


def test_the_derivation_wording_for_a_part_without_tensor_cores() -> None:
    p40 = resolve_gpu("P40")
    rate, derived = bf16_tflops(p40)
    assert derived and rate == p40.fp32_tflops  # no tensor cores: 16-bit GEMMs at the FP32 rate
    said = derived_rate_warning(p40, ComputeRate(rate, "bf16", True, True))
    assert said.endswith("no tensor cores, so taken as its FP32 rate") and "fp16 rate" in said
    assert rate_label(ComputeRate(rate, "fp8", True, False), p40) == "fp8"


def test_a_large_derived_rate_is_written_without_an_exponent() -> None:
    l40s = resolve_gpu("L40S")
    said = derived_rate_warning(l40s, ComputeRate(1466.0, "bf16", True, True))
    assert "bf16 rate 1,466 TFLOPS derived from FP32 91.6 TFLOPS (16x)" in said, said
