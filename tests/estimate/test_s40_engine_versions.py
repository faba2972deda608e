"""An engine's era comes from its version, never from a number elsewhere in its text (a launch flag's
value), and TGI's ``--cuda-memory-fraction`` sets TGI's memory budget.

Regression: the TGI 1.x era was searched as a pattern over the whole engine text, so "tgi 3.1.0" (its
"1.0"), "tgi 2.0.4" (its "0.4": both 2.x and 1.x applied) and "tgi --cuda-memory-fraction 0.8" were timed
as TGI 1.x (no CUDA graphs), and that flag was neither read nor named as ignored.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import gpuscout
from gpuscout.estimate.engines import _PROFILES, engine_names, resolve_engine

CSV = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "measurements.csv"


@pytest.mark.parametrize(
    ("text", "era"),
    [
        ("tgi", ""),
        ("tgi 0.9.4", "1.x"),
        ("tgi 1.0.3", "1.x"),
        ("HF TGI 1.0.3", "1.x"),
        ("HF TGI 1.0.3 (SageMaker Hugging Face LLM DLC)", "1.x"),
        ("tgi 2.0.4", "2.x"),
        ("tgi 3.0.1", ""),
        ("tgi 3.1.0", ""),
        ("tgi 3.3.6", ""),
        ("HF TGI v3.0", ""),
        ("tgi --cuda-memory-fraction 0.8", ""),
        ("tgi 1.0.3 --cuda-memory-fraction 0.5", "1.x"),
    ],
)
def test_the_tgi_era_is_the_versions(text: str, era: str) -> None:
    assert resolve_engine(text).era == era


@pytest.mark.parametrize("name", engine_names())
@pytest.mark.parametrize("value", ["0.5", "0.8", "1.0", "0.95"])
def test_a_flags_value_never_selects_an_era(name: str, value: str) -> None:
    """A decimal flag value ("0.8", "1.0") is no version: every engine stays today's engine."""
    assert resolve_engine(f"{name} --gpu-memory-utilization {value}").era == ""


def test_variants_are_still_read_from_the_whole_text() -> None:
    """Variants (a flag, a word, a year) are searched in the whole text, versions matched as versions."""
    assert resolve_engine("vllm 0.6.3 --enforce-eager").era == "v0+eager"
    assert resolve_engine("sglang --enable-dp-attention").era == "dp-attention"
    assert resolve_engine("llama.cpp 2024").era == "2024"
    assert resolve_engine("hf fused").era == "fused"
    for prof in _PROFILES:
        for era in prof.eras:
            # a version era's pattern is matched against a version only (whole), never searched
            assert era.variant or not era.matches("99.99"), (prof.name, era.name)


def test_every_tgi_framework_of_the_calibration_csv_resolves_to_its_versions_era() -> None:
    """Every TGI row of the calibration set keeps its era: "HF TGI 1.0.3" rows are the 1.x era."""
    with CSV.open(newline="", encoding="utf-8") as fh:
        frameworks = {row["framework"] for row in csv.DictReader(fh)}
    tgi = sorted(f for f in frameworks if "tgi" in f.lower())
    assert tgi
    for framework in tgi:
        head = framework.split("(")[0]
        version = re.search(r"(\d+)\.(\d+)", head)
        major = int(version.group(1)) if version else 3
        era = resolve_engine(framework).era
        assert era == {0: "1.x", 1: "1.x", 2: "2.x"}.get(major, ""), framework


def test_cuda_memory_fraction_scales_tgis_budget() -> None:
    """TGI's --cuda-memory-fraction (default 1.0) scales the share the profile holds at that default;
    it is stated, not ignored, and the estimate sizes memory with it."""
    today = resolve_engine("tgi")
    prof = resolve_engine("tgi --cuda-memory-fraction 0.8")
    assert prof.memory_utilization == pytest.approx(today.memory_utilization * 0.8)
    assert prof.stated_flags == ("cuda_memory_fraction 0.8",) and prof.ignored_flags == ()
    full = gpuscout.estimate("llama-3.1-8b", "L40S", engine="tgi", context_in=2000, context_out=500)
    less = gpuscout.estimate(
        "llama-3.1-8b", "L40S", engine="tgi --cuda-memory-fraction 0.8", context_in=2000, context_out=500
    )
    assert less.max_batch < full.max_batch
    assert less.memory.usable_gb == pytest.approx(full.memory.usable_gb * 0.8)
    assert not any("ignored" in w for w in less.warnings)
    # a stated memory share wins over the fraction
    both = resolve_engine("tgi --gpu-memory-utilization 0.5 --cuda-memory-fraction 0.8")
    assert both.memory_utilization == pytest.approx(0.5)


def test_cuda_memory_fraction_is_tgis_flag_only() -> None:
    """Another engine has no such flag: it is named as ignored, and the budget stays the engine's."""
    prof = resolve_engine("vllm --cuda-memory-fraction 0.8")
    assert prof.ignored_flags == ("--cuda-memory-fraction 0.8",)
    assert prof.memory_utilization == resolve_engine("vllm").memory_utilization
    est = gpuscout.estimate("llama-3.1-8b", "L40S", engine="vllm --cuda-memory-fraction 0.8")
    assert any("--cuda-memory-fraction 0.8" in w and "ignored" in w for w in est.warnings)
