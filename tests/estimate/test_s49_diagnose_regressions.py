"""``diagnose`` regressions from a renter's review.

1. ``diagnose llama-3.1-70b --gpu L40S --gpus 3 --measured-tps 10`` said "bound": "memory", "fits": true and
   "expected_tps": 11.36 with its own memory plan at 49.0 GB per GPU over 43.5 usable: vLLM refuses a tensor
   split of 64 heads over 3 GPUs (``estimate`` refuses it on ``gpus``) and diagnose took any refused
   estimate as fitting. Now it times the layer split the engine runs there instead, says so, and judges
   the fit by that estimate; a refused estimate's own plan is never said to fit where it does not.
2. A setup that does not fit gave "expected_tps": 0.0 in JSON (the text: "none: does not fit") and the
   bandwidth and compute against the GPU's peaks that the text leaves out; the PCIe bound read "at most
   1.35 tokens/s" in the table and "at most 1.4" in the prose.
3. "with the memory to hold it" priced the bigger cards on the user's own count (2 x RTX4080 ->
   "on 2 cards ... H100-SXM", though one holds it).
4. ``diagnose deepseek-r1`` was labelled "deepseek-v3" where vram says "deepseek-r1 (as deepseek-v3)".
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import CARD_COUNTS, HOST_OFFLOAD, diagnose
from gpuscout.knowledge.models import label_as_typed, resolve_model

runner = CliRunner()
CONTEXT = 1024  # diagnose's default: it sizes that prompt and the token after it
# "Fits: gguf-q4_k_m on cards with the memory to hold it — 1 x H100-SXM ~26, 4 x MI300X ~32 tokens/s ..."
BIGGER = re.compile(r"^Fits: (?P<fmt>\S+) on cards with the memory to hold it — (?P<cards>.+?) tokens/s")


def _estimate(model: str, gpu: str, **kw: Any) -> Any:
    return estimate(model, gpu, batch=1, context_in=CONTEXT, context_out=1, **kw)


# ---- 1: the layout estimate judges ----------------------------------------------------------------------
def test_a_refused_tensor_split_is_judged_as_the_layer_split_and_never_said_to_fit() -> None:
    refused = _estimate("llama-3.1-70b", "L40S", gpus=3)
    assert not refused.supported and refused.unsupported_field == "gpus"  # the premise
    assert refused.memory.total_gb > refused.memory.usable_gb
    layered = _estimate("llama-3.1-70b", "L40S", gpus=3, parallel="layer")
    assert layered.supported and not layered.fits

    d = diagnose("llama-3.1-70b", "L40S", gpus=3, measured_tps=10)
    assert not d.fits and d.expected_tps is None
    assert d.memory == layered.memory  # the layer split's plan, as estimate --parallel layer makes it
    assert d.memory is not None and d.memory.total_gb > d.memory.usable_gb
    # said first: the split refused, and the one timed instead
    assert d.verdict.startswith("Tensor parallel over 3 GPUs does not start")
    assert "64 attention heads do not divide by tensor parallel size 3" in d.verdict
    assert "pipeline (layer) split" in d.verdict and "Does not fit:" in d.verdict
    assert "the 3 GPUs take turns" in d.verdict  # the step timed is the layer split's


def test_a_refused_tensor_split_that_fits_as_a_layer_split_is_timed_and_priced_as_one() -> None:
    layered = _estimate("llama-3.1-8b", "L4", gpus=3, parallel="layer")
    assert not _estimate("llama-3.1-8b", "L4", gpus=3).supported and layered.supported and layered.fits
    d = diagnose("llama-3.1-8b", "L4", gpus=3, measured_tps=10)
    assert d.fits and d.bound == "memory" and d.expected_tps is not None
    assert d.expected_tps == pytest.approx(layered.decode_tokens_per_s, rel=0.15)
    assert "pipeline (layer) split" in d.verdict and "Not runnable" not in d.verdict
    # the remedies are priced on the layout that runs (the refused tensor split prices none)
    assert any(s.startswith("Faster memory") for s in d.suggestions), d.suggestions
    assert any(s.startswith("Quantise to fp8") for s in d.suggestions), d.suggestions


def test_an_engine_refusal_does_not_make_a_model_that_cannot_fit_fit() -> None:
    # vLLM FP8 on a V100 is refused; 70B in fp8 (~68 GiB) on 16 GiB still does not fit
    est = _estimate("llama-3.1-70b", "V100", precision="fp8", engine="vllm")
    assert not est.supported and est.memory.total_gb > est.memory.usable_gb
    d = diagnose("llama-3.1-70b", "V100", measured_tps=1, precision="fp8", engine="vllm")
    assert not d.fits and d.bound == HOST_OFFLOAD and d.expected_tps is None
    assert "Not runnable as given" in d.verdict and "Does not fit:" in d.verdict
    # a refused estimate whose plan fits is still diagnosed as fitting (vLLM FP8 8B on a V100)
    small = diagnose("llama-3.1-8b", "V100", measured_tps=28, precision="fp8", engine="vllm")
    assert small.fits and small.memory is not None and small.memory.total_gb <= small.memory.usable_gb


# ---- 2: JSON nulls, one rounding -----------------------------------------------------------------------
def test_json_of_a_setup_that_does_not_fit_has_no_speed_and_no_share_of_the_gpus_peaks() -> None:
    args = ["diagnose", "llama-3.1-70b", "--gpu", "RTX 4090", "--measured-tps", "2", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["fits"] is False and got["bound"] == HOST_OFFLOAD
    for key in ("expected_tps", "achieved_bandwidth_gbps", "bandwidth_fraction", "achieved_tflops"):
        assert got[key] is None, key
    assert got["compute_fraction"] is None
    assert got["peak_bandwidth_gbps"] > 0 and got["roofline_tps"] > 0  # the card's own figures stay
    # where it fits, all are figures
    ok = runner.invoke(
        app, ["diagnose", "llama-3.1-8b", "--gpu", "RTX 4090", "--measured-tps", "20", "--json"]
    )
    small = json.loads(ok.output)
    assert small["fits"] is True and small["expected_tps"] > 0 and small["bandwidth_fraction"] > 0


def test_the_pcie_bound_reads_the_same_in_the_table_and_the_prose() -> None:
    args = ["diagnose", "llama-3.1-70b", "--gpu", "RTX4080", "--gpus", "2", "--precision", "q4_k_m"]
    res = runner.invoke(app, [*args, "--measured-tps", "3"])
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    table = re.search(r"host-held share over PCIe │ at most ([\d.,]+) tokens/s", flat)
    prose = re.search(r"allows at most ([\d.,]+) tokens/s", flat)
    assert table and prose, flat
    assert table[1] == prose[1]
    d = diagnose("llama-3.1-70b", "RTX4080", gpus=2, precision="q4_k_m", measured_tps=3)
    assert prose[1] == f"{d.pcie_ceiling_tps:,.2f}"


# ---- 3: the fewest bigger cards -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "gpu", "gpus", "at_least_one_fewer"),
    [("llama-3.1-70b", "RTX4080", 2, "H100-SXM"), ("deepseek-r1", "RTX 4090", 8, "MI300X")],
)
def test_bigger_cards_are_priced_on_the_fewest_that_hold_it(
    model: str, gpu: str, gpus: int, at_least_one_fewer: str
) -> None:
    d = diagnose(model, gpu, gpus=gpus, precision="q4_k_m", measured_tps=1)
    assert not d.fits
    (line,) = [m for s in d.suggestions if (m := BIGGER.match(s))]
    counts = {}
    for card in line["cards"].split(", "):
        n, name = card.split(" ~")[0].split(" x ")
        counts[name] = int(n)
    assert counts[at_least_one_fewer] < gpus  # the user's count copied was the fault
    for name, n in counts.items():
        assert n in CARD_COUNTS and n <= gpus
        e = _estimate(model, name, gpus=n, precision=line["fmt"], engine=d.engine)
        assert e.supported and e.fits, (name, n)
        fewer = [k for k in CARD_COUNTS if k < n]
        if fewer:  # one step fewer does not hold it
            f = _estimate(model, name, gpus=fewer[-1], precision=line["fmt"], engine=d.engine)
            assert not (f.supported and f.fits), (name, fewer[-1])


# ---- 4: the label as typed ----------------------------------------------------------------------------
def test_the_label_is_the_model_as_typed() -> None:
    d = diagnose("deepseek-r1", "H200", gpus=8, measured_tps=20)
    assert d.model == "deepseek-v3"  # the entry sized
    assert (
        d.label
        == "deepseek-r1 (as deepseek-v3)"
        == label_as_typed(resolve_model("deepseek-r1"), "deepseek-r1")
    )
    # a face that resolves the name itself passes the spec and what was typed
    spec = resolve_model("deepseek-r1")
    assert diagnose(spec, "H200", gpus=8, measured_tps=20, typed="deepseek-r1").label == d.label
    assert diagnose(spec, "H200", gpus=8, measured_tps=20).label == "deepseek-v3"
    assert diagnose("deepseek-v3", "H200", gpus=8, measured_tps=20).label == "deepseek-v3"


def test_a_setup_the_engine_cannot_run_gets_no_estimate_figure() -> None:
    """vLLM FP8 on a V100 (Volta refused): estimate gives no speed, so diagnose's "gpuscout estimate" is none,
    in the JSON and in the table; the roofline (physics of the format) stays."""
    from typer.testing import CliRunner

    from gpuscout.cli import app

    d = diagnose("llama-3.1-8b", "V100-SXM2-16GB", engine="vllm", precision="fp8", measured_tps=20.0)
    assert d.fits and d.expected_tps is None and d.roofline_tps > 0
    out = (
        CliRunner()
        .invoke(
            app,
            [
                "diagnose",
                "llama-3.1-8b",
                "--gpu",
                "V100-SXM2-16GB",
                "--engine",
                "vllm",
                "--precision",
                "fp8",
                "--measured-tps",
                "20",
            ],
        )
        .output
    )
    assert "none: not runnable as given" in " ".join(out.split())
