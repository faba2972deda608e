"""The training rules' bitsandbytes facts agree with the inference rules' (one fact, two tables: a
Gaudi NF4 backend sourced for inference had no training row, so QLoRA on Gaudi read as unsourced)."""

from __future__ import annotations

import csv
from pathlib import Path

import gpuscout.knowledge as knowledge

DATA = Path(knowledge.__file__).parent / "data"


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="") as f:
        return list(csv.DictReader(f))


def test_every_sourced_bitsandbytes_target_of_inference_has_a_training_row() -> None:
    inference = {
        (r["precision"], r["target"])
        for r in _rows("engine_support.csv")
        if r["engine"] == "hf-transformers"
        and r["precision"] in ("nf4", "int8")
        and r["tag"] == "sourced"
        and r["mode"] != "unsupported"
        and not r["max_cc"]
    }
    training = {
        (r["precision"], r["target"])
        for r in _rows("workload_support.csv")
        if r["engine"] == "pytorch-training"
    }
    assert inference, "the inference table lists bitsandbytes targets"
    assert inference <= training, sorted(inference - training)
