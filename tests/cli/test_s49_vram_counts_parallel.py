"""Whole-layer splits are offered on any GPU count, and `vram` takes the split as `estimate` does.

Regression (renter review, stop 49): 70B Q4_K_M fits 3 x RTX 4080 as a llama.cpp layer split (`vram --gpus 3`
said so), yet the same screen's "Fits on (smallest GPU count)" listed the RTX 4080 at 4, and `estimate` on 2
suggested 4: llama.cpp has no power-of-two rule, and 3-, 5- and 6-GPU rigs are rented. `vram` had no
`--parallel`, though the refusal of `--pipeline-parallel-size` told the user to give one."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import estimate

runner = CliRunner()


def _vram(*args: str) -> dict:  # type: ignore[type-arg]
    res = runner.invoke(app, ["vram", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)  # type: ignore[no-any-return]


def test_a_layer_split_is_listed_at_its_smallest_count_not_the_next_power_of_two() -> None:
    data = _vram("llama-3.1-70b", "--precision", "q4_k_m", "--gpu", "RTX4080", "--gpus", "3")
    assert data["fits"] is True
    counts = {r["gpu"]: r["gpus"] for r in data["fits_on"]}
    assert counts["RTX4080"] == 3


def test_estimates_would_fit_names_the_smallest_layer_split() -> None:
    est = estimate("llama-3.1-70b", "RTX4080", gpus=2, precision="q4_k_m")
    assert not est.fits
    assert est.assumptions["would_fit"].startswith("gguf-q4_k_m on 3 x RTX4080 (layer parallel")


def test_a_tensor_parallel_engine_keeps_the_counts_it_is_set_up_on() -> None:
    # vLLM's tensor parallel divides the heads: 3, 5, 6 or 7 GPUs are not tried
    data = _vram("llama-3.1-70b", "--gpu", "L40S")
    assert {r["gpus"] for r in data["fits_on"]} <= {1, 2, 4, 8}


def test_vram_takes_the_split_as_estimate_does() -> None:
    data = _vram("llama-3.1-70b", "--gpu", "L40S", "--gpus", "3", "--parallel", "layer")
    assert data["fits"] is False  # 3 pipeline stages of 70B bf16 on 48 GB cards: ~45 GiB of weights each
    counts = {r["gpu"]: r["gpus"] for r in data["fits_on"]}
    assert counts["L40S"] == 4  # as a layer split, 4 stages hold it
    res = runner.invoke(app, ["vram", "llama-3.1-8b", "--task", "lora", "--parallel", "layer"])
    assert res.exit_code != 0 and "--parallel" in res.output and "Traceback" not in res.output
