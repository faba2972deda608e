"""A speed is calibrated only where the calibration set measures that kind of work on that generation.

``speed_calibrated`` was true for every NVIDIA and AMD part in inference and every NVIDIA part in
training, while ``benchmarks/data/measurements.csv`` has no inference row on Blackwell (B200, B300,
RTX 50), Volta or CDNA 4 (MI355X), and no training row off NVIDIA's Ampere / Ada / Hopper / B200 / B300.
Now the package keeps which generations the calibration measures (``knowledge.calibration_coverage``,
recomputed here from the CSV), an estimate's flag follows it (MI325X counts: CDNA 3, like the measured
MI300X), and an uncalibrated inference estimate says so as training did, naming the nearest measured
part.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.calibration_coverage import (
    MEASURED,
    generation,
    nearest_calibrated,
    speed_calibrated,
    uncalibrated_warning,
)
from tests.conftest import CALIBRATION, load_benchmark

# the rows of the inference benchmark that are not speeds
_NOT_SPEEDS = ("weights", "fits", "peak_memory")


def _measured_inference() -> dict[str, set[str]]:
    bench = load_benchmark("accuracy")
    cases = [
        c
        for c in bench.build_cases(bench.load(CALIBRATION))
        if not c.skip and not c.suspect and c.metric not in _NOT_SPEEDS
    ]
    out: dict[str, set[str]] = defaultdict(set)
    for result in bench.evaluate(cases):
        if result.error:  # a row the estimator cannot time measures nothing of it
            continue
        base = resolve_gpu(result.case.gpu_name.split("(")[0].strip())  # "MI250X (one GCD)": an MI250X
        out[generation(base)].add(base.name)
    return dict(out)


def _measured_training() -> dict[str, set[str]]:
    bench = load_benchmark("accuracy_training")
    out: dict[str, set[str]] = defaultdict(set)
    for case in bench.fit_cases(bench.build_cases(bench.load(CALIBRATION))):
        acc = case.kwargs["gpu"]
        out[generation(acc)].add(acc.name)
    return dict(out)


def test_the_package_table_is_the_calibration_set() -> None:
    table = {kind: {g: set(parts) for g, parts in by_gen.items()} for kind, by_gen in MEASURED.items()}
    assert table["inference"] == _measured_inference(), "recompute MEASURED['inference'] from the CSV"
    assert table["training"] == _measured_training(), "recompute MEASURED['training'] from the CSV"


@pytest.mark.parametrize(
    ("gpu", "inference", "training"),
    [
        ("H100", True, True),
        ("A100-80GB", True, True),
        ("L40S", True, True),
        ("MI300X", True, False),  # measured serving, never training
        ("MI325X", True, False),  # CDNA 3 like the MI300X, never measured itself
        ("MI355X", False, False),  # CDNA 4: a new generation
        ("B200", False, True),  # training runs on B200, no inference row on Blackwell
        ("B300", False, True),
        ("RTX5090", False, False),  # Blackwell CC 12.x: not the B200's CC 10.x kernels
        ("V100", False, False),
        ("T4", True, False),  # Turing: one RTX 2080 Ti llama.cpp row
        ("TPU-v6e", False, False),
        ("Gaudi3", False, False),
        ("Trainium2", False, False),
    ],
)
def test_calibrated_by_generation(gpu: str, inference: bool, training: bool) -> None:
    acc = resolve_gpu(gpu)
    assert speed_calibrated(acc, "inference") is inference
    assert speed_calibrated(acc, "training") is training


@pytest.mark.parametrize(
    ("gpu", "calibrated"), [("MI355X", False), ("B200", False), ("MI325X", True), ("H100", True)]
)
def test_an_estimate_carries_the_rule(gpu: str, calibrated: bool) -> None:
    # on 2 H100s in bf16: vLLM's FP8 efficiencies are not fitted, so an FP8 estimate is uncalibrated on any
    # GPU (test_s62_calibrated_parts); the generation rule is what this checks
    e = estimate("llama-3.1-70b", gpu, gpus=2 if gpu == "H100" else 1)
    assert e.fits and e.speed_calibrated is calibrated
    said = [w for w in e.warnings if "is uncalibrated" in w]
    assert bool(said) is not calibrated


def test_an_uncalibrated_inference_speed_says_so_and_names_the_nearest_calibrated_part() -> None:
    e = estimate("llama-3.1-70b", "MI355X")
    (said,) = [w for w in e.warnings if "is uncalibrated" in w]
    assert said.startswith(
        "inference speed on AMD MI355X is uncalibrated: no calibration run measures CDNA 4"
    )
    assert said.endswith("the nearest calibrated part is MI300X (CDNA 3)")
    tpu = estimate("llama-3.1-8b", "TPU-v6e")
    assert tpu.fits and not tpu.speed_calibrated
    assert any(w.startswith("inference speed on Google TPU-v6e is uncalibrated") for w in tpu.warnings)
    b200 = estimate("llama-3.1-70b", "B200")
    assert uncalibrated_warning(resolve_gpu("B200"), "inference") in b200.warnings
    assert "nearest calibrated part is H200-SXM (Hopper)" in uncalibrated_warning(
        resolve_gpu("B200"), "inference"
    )


def test_an_estimate_without_a_speed_still_flags_the_part() -> None:
    # an 8B model in bf16 does not fit a 16 GB TPU v5e, and vLLM has no FP8 path there: no speed is
    # given, and the part's flag is still the rule's, not a default "calibrated"
    assert not estimate("llama-3.1-8b", "TPU-v5e").fits
    assert not estimate("llama-3.1-8b", "TPU-v5e").speed_calibrated
    unsupported = estimate("llama-3.1-8b", "TPU-v5e", precision="fp8")
    assert not unsupported.supported and not unsupported.speed_calibrated


def test_training_follows_the_same_rule_and_names_the_nearest_part() -> None:
    kw = {"gpus": 8, "method": "full", "seq_len": 4096, "tokens": 1e9}
    v100 = estimate_training("llama-3.1-8b", "V100-SXM2-32GB", **kw)  # type: ignore[arg-type]
    assert not v100.speed_calibrated  # NVIDIA, but no Volta training run
    assert any(w.startswith("training speed on NVIDIA V100-SXM2-32GB is uncalibrated") for w in v100.warnings)
    amd = estimate_training("llama-3.1-8b", "MI300X", **kw)  # type: ignore[arg-type]
    (said,) = [w for w in amd.warnings if "is uncalibrated" in w]
    assert "no calibration run measures CDNA 3 training" in said
    assert said.endswith("the nearest calibrated part is H200-SXM (Hopper)")
    b200 = estimate_training("llama-3.1-8b", "B200", **kw)  # type: ignore[arg-type]
    assert b200.speed_calibrated and not any("uncalibrated" in w for w in b200.warnings)


def test_the_nearest_part_is_of_the_same_vendor_and_class_first() -> None:
    def near(gpu: str, kind: str) -> str | None:
        found = nearest_calibrated(resolve_gpu(gpu), kind)
        return None if found is None else found.name

    assert near("MI355X", "inference") == "MI300X"  # AMD before any NVIDIA part
    assert near("RTX5090", "inference") == "RTX4090"  # a desk card for a desk card
    assert near("B200", "inference") == "H200-SXM"
    assert near("MI300X", "training") == "H200-SXM"  # no AMD training run: the closest figures


def test_an_unknown_kind_is_refused_with_what_is_accepted() -> None:
    from gpuscout.errors import InvalidInputError

    with pytest.raises(InvalidInputError) as err:
        speed_calibrated(resolve_gpu("H100"), "serving")
    assert "inference" in str(err.value) and "training" in str(err.value)
