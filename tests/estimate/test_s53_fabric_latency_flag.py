"""A TP degree on Infinity Fabric that no calibration row runs says its all-reduce latency is assumed."""

from __future__ import annotations

import csv
from pathlib import Path

from gpuscout import estimate
from gpuscout.estimate.parallel import NODE_GPUS

CSV = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "measurements.csv"


def _flag(est: estimate.api.Estimate) -> list[str]:
    return [w for w in est.warnings if "Infinity Fabric" in w and "assumption" in w]


def test_tp2_and_tp4_on_mi300x_are_flagged_tp8_and_one_gpu_are_not() -> None:
    assert len(_flag(estimate("gpt-oss-120b", "MI300X", gpus=2))) == 1
    assert len(_flag(estimate("gpt-oss-120b", "MI300X", gpus=4))) == 1
    assert not _flag(estimate("gpt-oss-120b", "MI300X", gpus=NODE_GPUS))
    assert not _flag(estimate("gpt-oss-120b", "MI300X"))
    assert not _flag(estimate("llama-3.1-70b", "H100", gpus=2))  # NVLink: calibrated at TP 2-8
    # PCIe cards (whose assumed all-reduce latency happens to be the same 25 us) are not on a fabric
    assert not _flag(estimate("llama-3.1-8b", "L40S", gpus=2))
    assert not _flag(estimate("llama-3.1-8b", "RTX 4090", gpus=4))


def test_the_premise_no_calibration_row_runs_tp_below_8_on_an_amd_mesh() -> None:
    with CSV.open(newline="", encoding="utf-8") as fh:
        counts = {
            int(r["gpu_count"] or 1)
            for r in csv.DictReader(fh)
            if r["gpu"].startswith(("MI300", "MI325", "MI355")) and "train" not in r["task"]
        }
    assert counts == {NODE_GPUS}
