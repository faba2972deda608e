"""vLLM's AWQ on ROCm runs the Triton AWQ fallback, not the Marlin kernels whose rows fitted the
weight-only efficiency: no calibration row runs a weight-only format on an AMD GPU under vLLM, SGLang,
TGI or HF transformers, so such a speed is said to be uncalibrated (no constant is invented for it).

Regression: ``gpuscout estimate llama-3.1-70b --gpu MI300X --precision awq --batch 1`` was
``speed_calibrated: true`` with no word of the kernels it times.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import gpuscout
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_precision

CSV = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "measurements.csv"
AMD = ("mi2", "mi3", "amd", "radeon", "rx 7", "instinct")
WEIGHT_ONLY = ("awq", "gptq", "int4", "weight-only", "w4a16", "marlin")


def test_vllm_awq_on_mi300x_is_said_uncalibrated() -> None:
    est = gpuscout.estimate("llama-3.1-70b", "MI300X", precision="awq", batch=1)
    assert est.engine == "vllm" and est.support == "weight-only"
    assert est.speed_calibrated is False
    [warning] = [w for w in est.warnings if "not calibrated" in w]
    assert "AWQ: the Triton fallback" in warning and "MI300X" in warning and "INT4 AWQ" in warning
    assert "on AMD GPUs" in est.assumptions["uncalibrated"]


def test_the_same_on_nvidia_and_16_bit_on_amd_stay_calibrated() -> None:
    h100 = gpuscout.estimate("llama-3.1-70b", "H100-SXM", precision="awq", batch=1)
    assert h100.speed_calibrated is True
    assert not [w for w in h100.warnings if "not calibrated" in w]
    bf16 = gpuscout.estimate("llama-3.1-8b", "MI300X", precision="bf16", batch=1)
    assert bf16.speed_calibrated is True


@pytest.mark.parametrize("engine", ["vllm", "sglang", "tgi", "hf-transformers"])
def test_the_profiles_say_it_and_the_calibration_set_agrees(engine: str) -> None:
    assert resolve_engine(engine).foreign_kernels("AMD", "weight-only")
    assert not resolve_engine(engine).foreign_kernels("NVIDIA", "weight-only")
    # the data behind it: no weight-only row of this engine on an AMD GPU
    key = {"hf-transformers": "transformers"}.get(engine, engine)
    with CSV.open(newline="") as f:
        rows = [
            r
            for r in csv.DictReader(f)
            if any(a in r["gpu"].lower() for a in AMD)
            and any(w in r["precision"].lower() for w in WEIGHT_ONLY)
            and key in r["framework"].lower()
        ]
    assert rows == []


def test_the_warning_names_the_format_asked_not_only_awq() -> None:
    # int8 and NF4 on an MI300X were said to run "AWQ / GPTQ through ..." kernels (stop 60 review)
    for engine, precision in (("vllm", "int8"), ("hf-transformers", "nf4")):
        est = estimate("llama-3.1-8b", "MI300X", precision=precision, engine=engine)
        (warning,) = [w for w in est.warnings if "is not calibrated" in w and "ROCm" in w]
        assert "its weight-only formats run" in warning and not est.speed_calibrated
        assert resolve_precision(precision).label in warning
