"""Which accelerator generations the estimator's speed constants were fitted on, per kind of work.

The rule: an estimate's speed is *calibrated* (``Estimate.speed_calibrated``,
``TrainingEstimate.speed_calibrated``) when the calibration set has rows of that kind (``"inference"``
or ``"training"``) on the accelerator's generation. A generation is the accelerator's ``architecture``
("Hopper", "CDNA 3"); where one architecture name spans several NVIDIA compute-capability majors, the
major is part of it ("Blackwell (CC 10.x)" for B200 / GB200, "Blackwell (CC 12.x)" for RTX 50 and RTX
PRO: other tensor-core instructions, other kernels). So a part never measured itself counts as
calibrated when a part of its generation was (MI325X: CDNA 3, like the measured MI300X); a new
generation does not (MI355X: CDNA 4; Volta; TPU, Gaudi, Trainium). Otherwise the speed is the same
efficiencies applied to the part's datasheet figures: :func:`uncalibrated_warning` says so and names
the nearest measured part.

The calibration set is ``benchmarks/data/measurements.csv`` (sources in
``benchmarks/data/SOURCES-2026-12.md``), which the package cannot read at run time: :data:`MEASURED`
copies what it covers, each generation with the parts its rows measure. Inference rows are those
``benchmarks/accuracy.py`` scores (applicable, not SUSPECT, a speed: not weights, fits or peak
memory); training rows those ``benchmarks/accuracy_training.py`` fits its speed constants on
(``fit_cases``: tokens/s and unpaired MFU rows on registry GPUs). ``tests/estimate/
test_s46_calibrated.py`` recomputes the table from the CSV and fails when the two drift.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import all_accelerators

#: The kinds of work the calibration set measures speeds of.
KINDS = ("inference", "training", "images")

#: kind -> generation -> the accelerators (registry names) its calibration rows measure, as of the
#: calibration set of 2026-12 (benchmarks/data/measurements.csv).
MEASURED: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "inference": {
        "Ada Lovelace": ("L4", "L40S", "RTX4000-Ada", "RTX4070Ti", "RTX4090", "RTX5000-Ada", "RTX6000-Ada"),
        "Ampere": (
            "A10G",
            "A100-PCIe-80GB",
            "A100-SXM4-40GB",
            "A100-SXM4-80GB",
            "A6000",
            "RTX3070",
            "RTX3080",
            "RTX3090",
            "RTX3090Ti",
        ),
        "CDNA 2": ("MI250X",),  # gpt-fast on one GCD of an MI250X, 2 rows
        "CDNA 3": ("MI300X",),
        "Hopper": ("H100-PCIe", "H100-SXM", "H20", "H200-SXM"),
        "Pascal": ("P40",),  # llama.cpp, 2 rows
        "Turing": ("RTX2080Ti",),  # llama.cpp prefill, 1 row
    },
    "training": {
        "Ada Lovelace": ("L40S",),
        "Ampere": ("A100-SXM4-40GB", "A100-SXM4-80GB"),
        "Blackwell (CC 10.x)": ("B200",),
        "Blackwell Ultra": ("B300",),
        "Hopper": ("H100-SXM", "H200-SXM"),
    },
    # none: the set's only seconds-per-image rows (one vendor blog, RTX 4090) need more than the card's
    # peak, so no image-speed efficiency is fitted (estimate.diffusion; docs/accuracy.md)
    "images": {},
}

# kinds of parts a renter compares with each other (the nearest measured part is sought among the same)
_DESK = frozenset({"consumer", "workstation"})


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InvalidInputError("kind", f"unknown kind of work {kind!r}", ", ".join(KINDS))


@functools.cache
def _split_architectures() -> frozenset[str]:
    """The NVIDIA architecture names that span several compute-capability majors in the registry."""
    majors: dict[str, set[int]] = {}
    for acc in all_accelerators():
        cc = acc.nvidia_cc
        if cc is not None:
            majors.setdefault(acc.architecture, set()).add(cc[0])
    return frozenset(arch for arch, seen in majors.items() if len(seen) > 1)


def generation(acc: Accelerator) -> str:
    """The accelerator's generation: its architecture, with the NVIDIA compute-capability major where the
    architecture name spans several ("Blackwell (CC 10.x)", "Blackwell (CC 12.x)")."""
    cc = acc.nvidia_cc
    if cc is not None and acc.architecture in _split_architectures():
        return f"{acc.architecture} (CC {cc[0]}.x)"
    return acc.architecture


def speed_calibrated(acc: Accelerator, kind: str) -> bool:
    """Whether the calibration set has ``kind`` rows (``"inference"`` / ``"training"`` / ``"images"``) on
    ``acc``'s generation (see the module's rule)."""
    _check_kind(kind)
    return generation(acc) in MEASURED[kind]


# a figure one of two parts lacks counts as a tenfold gap (never as a match)
_MISSING_GAP = math.log(10.0)


def _log_gap(a: float | None, b: float | None) -> float:
    if a is None or b is None or a <= 0 or b <= 0:
        return _MISSING_GAP
    return abs(math.log(a / b))


def _rate16(acc: Accelerator) -> float | None:
    """The dense 16-bit tensor rate (bf16, else fp16, else the fp32 rate of a part without either)."""
    return acc.tflops("fp16") or acc.fp32_tflops


@functools.cache
def nearest_calibrated(acc: Accelerator, kind: str) -> Accelerator | None:
    """The measured part (:data:`MEASURED`) nearest ``acc`` for ``kind``: of its vendor where one is
    measured, then of its class (desk cards with desk cards, datacenter parts with datacenter parts),
    then closest in memory bandwidth and dense 16-bit rate (log ratios, summed). ``None`` when
    nothing is measured."""
    _check_kind(kind)
    by_name = {a.name: a for a in all_accelerators()}
    measured = [by_name[n] for parts in MEASURED[kind].values() for n in parts if n in by_name]
    measured = [a for a in measured if a.name != acc.name]
    if not measured:
        return None
    desk = acc.kind in _DESK

    def distance(m: Accelerator) -> tuple[bool, bool, float, str]:
        gap = _log_gap(m.bandwidth_gbps, acc.bandwidth_gbps) + _log_gap(_rate16(m), _rate16(acc))
        return (m.vendor != acc.vendor, (m.kind in _DESK) != desk, gap, m.name)

    return min(measured, key=distance)


def uncalibrated_warning(acc: Accelerator, kind: str) -> str:
    """What an estimate on an uncalibrated generation says: "inference speed on AMD MI355X is
    uncalibrated: no calibration run measures CDNA 4 inference; efficiencies fitted on other
    generations' runs are applied to its datasheet figures; the nearest calibrated part is MI300X
    (CDNA 3)"."""
    _check_kind(kind)
    text = (
        f"{kind} speed on {acc.vendor} {acc.name} is uncalibrated: no calibration run measures "
        f"{generation(acc) or 'its architecture'} {kind}; efficiencies fitted on other generations' runs "
        "are applied to its datasheet figures"
    )
    near = nearest_calibrated(acc, kind)
    if near is not None:
        text += f"; the nearest calibrated part is {near.name} ({generation(near)})"
    return text
