"""An engine version newer than the newest the profiles describe is timed as that one, and says so.

Regression: ``--engine "vllm 99.0"`` was silently timed as today's vLLM; ``"vllm 0.x"`` too, though it
reads as no version at all. The framework strings of the calibration CSV resolve as before and none of
them gains the warning (none names a release newer than the profiles').
"""

from __future__ import annotations

import csv
import dataclasses
import re
import sys
from pathlib import Path

import pytest

import gpuscout
from gpuscout.errors import GpuscoutError
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.engines import NEWEST_RELEASES, profile_for, resolve_engine
from gpuscout.estimate.types import Estimate
from gpuscout.knowledge.accelerators import assumed_variant_warning
from gpuscout.knowledge.engine_support import support_rules

ROOT = Path(__file__).resolve().parents[2]
MEASUREMENTS = ROOT / "benchmarks" / "data" / "measurements.csv"
NEWER_VLLM = "vLLM 99.0 is newer than the newest version gpuscout has a profile for (0.33): timed as 0.33"


def _timing(est: Estimate) -> tuple[float, ...]:
    return (est.decode_tokens_per_s, est.ttft_ms, est.tpot_ms, est.memory.total_gb)


def test_a_newer_vllm_is_timed_as_the_newest_profile_and_says_so() -> None:
    newer = gpuscout.estimate("llama-3.1-8b", "L4", engine="vllm 99.0")
    today = gpuscout.estimate("llama-3.1-8b", "L4", engine="vllm")
    assert NEWER_VLLM in newer.warnings and not any("newer" in w for w in today.warnings)
    assert _timing(newer) == _timing(today)
    assert newer.warnings == [NEWER_VLLM, *today.warnings]


@pytest.mark.parametrize(
    ("engine", "said"),
    [
        ("vLLM 0.34", "vLLM 0.34 is newer than the newest version gpuscout has a profile for (0.33)"),
        ("vllm 1", "vLLM 1 is newer than"),  # a bare major release
        ("vllm v99.0", "vLLM 99.0 is newer than"),
        ("sglang 0.6.1", "SGLang 0.6.1 is newer than the newest version gpuscout has a profile for (0.5)"),
        ("trtllm 1.3", "TensorRT-LLM 1.3 is newer than the newest version gpuscout has a profile for (1.2)"),
        (
            "TGI 4.0",
            "TGI 4.0 is newer than the newest version gpuscout has a profile for (3.3): timed as 3.3",
        ),
        ("hf tgi 4", "TGI 4 is newer than"),
        ("transformers 6.0", "HF transformers 6.0 is newer than the newest version gpuscout has a profile"),
        ("vllm 99.0 --max-num-seqs 64", "vLLM 99.0 is newer than"),  # the flags are not the version
    ],
)
def test_every_versioned_engine_says_a_newer_release_is_timed_as_its_newest(engine: str, said: str) -> None:
    assert said in resolve_engine(engine).version_note


@pytest.mark.parametrize(
    "engine",
    [
        "vllm",
        "vllm 0.33",
        "vllm 0.33.7",  # a patch release is timed as its minor one
        "vLLM 0.6.3",  # an era
        "vllm v1",  # vLLM's engine generation, not a release
        "vllm V0",
        "sglang 0.5.23",
        "TensorRT-LLM 1.2.1",
        "tgi 3",
        "HF TGI v3.0",
        "transformers 5.24.0",
        "NVIDIA NIM 1.8.0",  # NIM's number, not TensorRT-LLM's
        "nim 9.9",
        "AutoAWQ 0.1.6",  # AutoAWQ's, not transformers'
        "litgpt 9.0",
        "llama.cpp 2024",  # a year: the 2023-2024 builds
        "llama.cpp 99.0",  # llama.cpp numbers builds, not releases
        "ollama 0.5.7",
        "gpt-fast",
        "vllm serve llama-3.1-8b",  # a model's name, not a version
        "vLLM (recipe Aug 2025; version not stated), DATA PARALLEL 4 (not TP)",  # free text
        "HF transformers Trainer + PEFT (Qwen finetune.py; CUDA 11.8, PyTorch 2.0)",  # in parentheses
        "vllm --gpu-memory-utilization 0.95",  # a flag's value
    ],
)
def test_no_warning_for_a_known_release_or_a_number_that_is_no_release(engine: str) -> None:
    assert resolve_engine(engine).version_note == ""


@pytest.mark.parametrize(
    ("engine", "said"),
    [
        ("vllm 0.x", "'0.x' after the engine's name does not read as a version (major.minor, e.g. 0.33): "
         "timed as today's vLLM (0.33)"),
        ("vllm 1.2beta", "'1.2beta' after the engine's name does not read as a version"),
        ("llama.cpp 0.x", "'0.x' after the engine's name does not read as a version (major.minor): timed "
         "as today's llama.cpp"),
    ],
)  # fmt: skip
def test_a_version_that_does_not_parse_says_so(engine: str, said: str) -> None:
    assert resolve_engine(engine).version_note.startswith(said)
    precision = "q4_k_m" if engine.startswith("llama.cpp") else None
    est = gpuscout.estimate("llama-3.1-8b", "L4", engine=engine, precision=precision)
    assert est.supported and any(w.startswith(said) for w in est.warnings)


def test_the_warning_stays_where_the_engine_cannot_run_it_and_in_memory_needed() -> None:
    refused = gpuscout.estimate("llama-3.1-8b", "V100", precision="fp8", engine="vllm 99.0")
    assert not refused.supported
    # read from the newest's rules; "V100" said as the variant it was read as, after the reason
    assert refused.warnings == [refused.unsupported_reason, assumed_variant_warning("V100"), NEWER_VLLM]
    assert NEWER_VLLM in memory_needed("llama-3.1-8b", "L4", engine="vllm 99.0").warnings


def test_the_newest_releases_are_those_the_support_rules_were_read_from() -> None:
    """engine_support.csv names the release its rules were read from; the profiles describe that one
    (TensorRT-LLM's rules cite its support matrix: no release there to check)."""
    products = {"vllm": "vllm", "sglang": "sglang", "hf-transformers": "transformers", "tgi": "tgi"}
    for engine, product in products.items():
        # rules bounded to past releases ("<0.20": vLLM ran Volta through 0.19) were read in those
        versions = {r.version for r in support_rules() if r.engine == engine and "<" not in r.versions}
        found = {m.group(1) for v in versions if (m := re.match(rf"{product} (\d+\.\d+)", v))}
        # every other rule was read from the profile's release, or re-checked in a newer one (vLLM 0.34.0)
        newest = NEWEST_RELEASES[engine].newest
        assert newest in found, (engine, versions)
        assert all(tuple(map(int, f.split("."))) >= tuple(map(int, newest.split("."))) for f in found)
    assert set(NEWEST_RELEASES) == {"vllm", "sglang", "tensorrt-llm", "tgi", "hf-transformers"}


def _framework_texts() -> set[str]:
    """Every framework of the calibration CSV, as written and as the accuracy benchmark rewrites it."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import accuracy
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    texts: set[str] = set()
    with MEASUREMENTS.open(newline="") as f:
        for row in csv.DictReader(f):
            texts.add(row["framework"])
            for dated in (False, True):
                texts.add(accuracy._engine_text(row["framework"], row["precision"], llama_cpp_2024=dated))
    return texts


# the calibration's pre-releases are its vLLM dev builds ("vLLM 0.7.3.dev138 ROCm ..."), named here
# independently of the parser's pattern
_PRE_RELEASE = re.compile(r"\d+\.\d+\.\d+\.dev\d+")


def test_no_framework_of_the_calibration_rows_gains_a_version_note() -> None:
    """None but a pre-release's (stop 58: "vLLM 0.6.3.dev116" is judged and timed as 0.6.3, and says so)."""
    resolved = pre = 0
    for text in sorted(_framework_texts()):
        try:
            prof = resolve_engine(text)
        except GpuscoutError:  # training frameworks, diffusers...: not an inference engine
            continue
        resolved += 1
        found = _PRE_RELEASE.search(text.split("(")[0])
        expected = (
            f"{found.group(0)} is a pre-release of {prof.version}: judged and timed as {prof.version}"
            if found
            else ""
        )
        pre += bool(found)
        assert prof.version_note == expected, text
        base = resolve_engine(prof.name)
        assert profile_for(base, text).version_note == expected  # as the benchmark builds it
        assert dataclasses.replace(prof, version_note=expected) == prof
    assert resolved >= 60 and pre == 3  # 0.6.3.dev116, 0.7.3.dev138, 0.7.4.dev181


@pytest.mark.parametrize(
    ("engine", "product"), [("vllm 2024", "vLLM"), ("tgi 2023", "TGI"), ("sglang 2025", "SGLang")]
)
def test_a_year_where_a_release_number_goes_is_said(engine: str, product: str) -> None:
    """'vllm 2024' was timed as today's vLLM with no word (a renter meant 2024's engine: about half today's
    throughput); llama.cpp, whose eras are years, reads it as its era."""
    from gpuscout.estimate import estimate

    e = estimate("llama-3-8b", "H100-SXM", engine=engine)
    (note,) = [w for w in e.warnings if "is a year, not a release" in w]
    assert f"{product} numbers its releases" in note and "name the release" in note
    assert (
        resolve_engine("llama.cpp 2024").version_note == "" and resolve_engine("llama.cpp 2024").era == "2024"
    )
