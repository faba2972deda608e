"""One unit for GPU memory in what a person reads: GiB (2**30 bytes), the unit GPU memory is sold in.

Regression: ``gpuscout vram`` printed the estimator's GB (1e9 bytes) as "GB per GPU needed" beside a
"card 180 GiB" column, so a renter compared "147.8 GB needed" with "180 GiB" and was off by 7 %. Every
memory figure the CLI prints is now GiB: the estimator's GB converted once (``estimate.memory.gib``),
the card's own figure (the vendor's "80 GB" is 80 GiB) shown as stated. The JSON keeps its ``*_gb``
fields and values (GB). The figures below are checked against ones worked out by hand from the card's
MiB or GiB, not only against ``gib()``: a figure labelled GiB that still carried GB would be 7 % off.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import estimate, memory_needed
from gpuscout.estimate.memory import gib

runner = CliRunner()
WIDE = {"COLUMNS": "200"}  # one line per row and message

# vLLM keeps 0.9 of an "80 GB" A100 (80 GiB, less the driver's 0.44 %): 80 x 0.9956 x 0.9 GiB
A100_80_USABLE_GIB = 80 * (1 - 0.0044) * 0.9  # 71.68
# an L4 reports 23,034 MiB with ECC on; vLLM keeps 0.9 of it
L4_GIB = 23034 / 1024  # 22.49
L4_USABLE_GIB = L4_GIB * 0.9  # 20.24
# Llama 3.1 70B's 70.55 B parameters in bf16, in GiB (141.1 GB)
LLAMA_70B_WEIGHTS_GIB = 70.55e9 * 2 / 2**30  # 131.4


def _out(*args: str) -> str:
    res = runner.invoke(app, list(args), env=WIDE)
    assert res.exit_code == 0, res.output
    return res.stdout


def _cells(out: str, label: str) -> list[str]:
    """The cells of the first table row that starts with ``label``."""
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and re.sub(r"\[/?bold\]", "", cells[0]) == label:
            return cells
    raise AssertionError(f"no row {label!r} in:\n{out}")


def test_the_vram_breakdown_is_in_gib_and_the_usable_figure_is_the_cards_gib() -> None:
    out = _out("vram", "llama-3.1-70b", "--gpu", "A100-SXM4-80GB")
    assert "GiB per GPU" in out and "GB per GPU" not in out
    mem = json.loads(_out("vram", "llama-3.1-70b", "--gpu", "A100-SXM4-80GB", "--json"))["memory"]
    usable = float(_cells(out, "usable on this GPU")[1])
    assert usable == pytest.approx(A100_80_USABLE_GIB, abs=0.01)  # was 76.97: GB beside a GiB card
    weights = float(_cells(out, "weights")[1])
    assert weights == pytest.approx(LLAMA_70B_WEIGHTS_GIB, rel=0.002)
    assert weights == pytest.approx(gib(mem["weights_gb"]), abs=0.005)
    total = float(_cells(out, "total")[1].replace(",", ""))
    parts = ("weights_gb", "kv_cache_gb", "activations_gb", "overhead_gb")
    assert total == pytest.approx(gib(sum(mem[k] for k in parts)), abs=0.005)
    assert mem["weights_gb"] == pytest.approx(70.55e9 * 2 / 1e9, rel=0.002)  # the JSON stays GB


def test_the_fits_table_needs_and_holds_in_the_cards_unit() -> None:
    out = _out("vram", "llama-3.1-70b", "--gpu", "A100-SXM4-80GB")
    assert "needed GiB/GPU" in out and "usable GiB/GPU" in out
    fits = {
        r["gpu"]: r for r in json.loads(_out("vram", "llama-3.1-70b", "--gpu", "A100", "--json"))["fits_on"]
    }
    row = _cells(out, "A100-SXM4-80GB")
    count, needed, usable, card = row[1], float(row[2]), float(row[3]), row[4]
    assert (count, card) == ("2", "80 GiB")
    assert usable == pytest.approx(A100_80_USABLE_GIB, abs=0.05)  # the card's 80 GiB, less its shares
    assert needed == pytest.approx(gib(fits["A100-SXM4-80GB"]["per_gpu_gb"]), abs=0.05)
    assert fits["A100-SXM4-80GB"]["usable_gb"] == pytest.approx(A100_80_USABLE_GIB * 2**30 / 1e9, abs=0.01)
    # the JSON names the card's unit: GiB as sold, beside the 1e9-byte GB of the need and the usable share
    card80 = fits["A100-SXM4-80GB"]["card_memory_gib"]
    assert card80 == 80 and fits["A100-SXM4-80GB"]["usable_gb"] < card80 * 2**30 / 1e9
    # every row: the needed figure no more than the usable one, both below the card's memory
    for line in out.split("Fits on")[1].splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 5:
            need, have, card_gib = float(cells[2]), float(cells[3]), float(cells[4].removesuffix(" GiB"))
            assert need <= have < card_gib, cells


def test_a_training_breakdown_says_the_usable_gib_the_card_reports() -> None:
    out = _out("vram", "llama-3.1-8b", "--gpu", "L4", "--task", "lora")
    assert float(_cells(out, "usable on this GPU")[1]) == pytest.approx(L4_GIB, abs=0.01)  # was 24.15


def test_estimate_says_what_does_not_fit_in_gib() -> None:
    out = " ".join(_out("estimate", "llama-3.1-70b", "--gpu", "A100-SXM4-80GB").split())
    est = estimate("llama-3.1-70b", "A100-SXM4-80GB")
    found = re.search(
        r"does not fit: needs ([\d.]+) GiB per GPU \(weights ([\d.]+),.*\), ([\d.]+) GiB usable", out
    )
    assert found, out
    needed, weights, usable = map(float, found.groups())
    assert needed == pytest.approx(gib(est.memory.total_gb), abs=0.05)
    assert weights == pytest.approx(LLAMA_70B_WEIGHTS_GIB, abs=0.1)
    assert usable == pytest.approx(A100_80_USABLE_GIB, abs=0.05)
    # what would hold it, in the same unit: two A100s hold half the weights each
    would = re.search(r"bf16 on 2 x A100-SXM4-80GB \(tensor parallel, ([\d.]+) GiB per GPU\)", out)
    assert would and LLAMA_70B_WEIGHTS_GIB / 2 < float(would[1]) < A100_80_USABLE_GIB


def test_the_estimate_table_and_its_budget_are_in_gib() -> None:
    out = _out("estimate", "llama-3.1-8b", "--gpu", "L4")
    est = estimate("llama-3.1-8b", "L4")
    found = re.fullmatch(r"([\d.]+) of ([\d.]+) GiB usable", _cells(out, "memory per GPU")[1])
    assert found, out
    assert float(found[1]) == pytest.approx(gib(est.memory.total_gb), abs=0.005)
    assert float(found[2]) == pytest.approx(L4_USABLE_GIB, abs=0.005)  # was "21.74 GB"
    assert _cells(out, "weights")[1] == f"{gib(est.memory.weights_gb):,.2f} GiB"
    # the budget starts from the card's GiB: "0.90 of 22.5 GiB (22.5 GiB usable of the card's 24 GiB, ..."
    assert est.assumptions["memory_budget"].startswith(
        f"0.90 of {L4_GIB:.1f} GiB (22.5 GiB usable of the card's 24"
    )


def test_the_python_api_warnings_say_gib() -> None:
    need = memory_needed("llama-3.1-70b", "A100-SXM4-80GB")
    warning = next(w for w in need.warnings if w.startswith("does not fit"))
    found = re.search(r"need ([\d.]+) GiB per GPU, ([\d.]+) GiB usable", warning)
    assert found, warning
    assert float(found[1]) == pytest.approx(gib(need.memory.total_gb), abs=0.05)
    assert float(found[2]) == pytest.approx(A100_80_USABLE_GIB, abs=0.05)  # was "77.0 GB usable"


def test_images_and_transcription_memory_against_the_cards_gib() -> None:
    images = _out("images", "flux.1-dev", "--gpu", "L4")
    found = re.fullmatch(r"([\d.]+) GiB of ([\d.]+) GiB", _cells(images, "memory")[1])
    assert found and float(found[2]) == pytest.approx(L4_GIB, abs=0.05), images  # was "of 24.2 GB"
    speech = _out("transcribe", "whisper-large-v3", "--gpu", "L4")
    found = re.fullmatch(r"([\d.]+) GiB of ([\d.]+) GiB", _cells(speech, "memory")[1])
    assert found and float(found[2]) == pytest.approx(L4_GIB, abs=0.05), speech


def test_gpu_and_offer_memory_is_the_vendors_figure_in_gib_never_converted() -> None:
    detail = _out("gpus", "H100-SXM")
    assert _cells(detail, "Memory")[1] == "80 GiB HBM3"  # the vendor's "80 GB": 80 GiB, not 74.5
    header = _out("gpus").split("┡")[0]
    assert "GiB" in header and "Memory" in header
    h200 = _cells(_out("gpus"), "H200-SXM")
    assert h200[1] == "141"  # as stated, not 131
    offers = _out("offers", "--gpu", "H100-SXM", "--limit", "3")
    assert "GiB/gpu" in offers and "GB/gpu" not in offers
    assert all(row[4] == "80" for row in _rows(offers)), offers  # as sold, not 74.5


def _rows(out: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("│")[1:-1]] for line in out.splitlines() if line.startswith("│")]
