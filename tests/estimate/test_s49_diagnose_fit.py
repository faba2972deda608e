"""``diagnose`` checks the fit as ``estimate`` does before it reads a measured speed.

Regression (a renter's review): ``gpuscout diagnose llama-3.1-70b --gpu "RTX 4090" --measured-tps 2``
timed Llama-3.1-70B in bf16 (131 GiB of weights) as if it sat on a 24 GiB card: an "estimate" of 4.7
tokens/s, "check that every layer is on the GPU (no CPU offload)", "Quantise to fp8: ~9" and "int4: ~17
tokens/s", though neither fp8 (~65 GiB) nor int4 (~37 GiB) fits either. Most of such a model sits in host
memory, and 2 tokens/s is what that gives. Likewise Qwen3-30B-A3B on a T4, which it also called bf16 where
``estimate`` runs fp16 (no bfloat16 below CC 8.0: the support rules' fallback-fp16). Now the verdict says
first that it does not fit, with the estimator's own figures, and every remedy is a setup that fits.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import ABOVE_ROOFLINE, HOST_OFFLOAD, diagnose
from gpuscout.estimate.memory import gib
from gpuscout.estimate.parallel import host_link_gbps, host_pcie_generation
from gpuscout.estimate.types import Diagnosis, Estimate
from gpuscout.knowledge.accelerators import resolve_gpu

runner = CliRunner()
CONTEXT = 1024  # diagnose's default context: the estimate below sizes that prompt and the token after it

CASES = [("llama-3.1-70b", "RTX 4090", 2.0), ("qwen3-30b-a3b", "T4", 10.0)]
OFFLOAD_CHECK = "every layer is on the GPU"

# "Fits: bf16 on 8 x RTX4090 (tensor parallel, ...)": one of estimate's would-fit setups
ON_MORE = re.compile(r"^Fits: (?P<fmt>\S+) on (?P<gpus>\d+) x (?P<gpu>\S+) \(")
# "Fits: bf16 on cards with the memory to hold it — 1 x MI300X ~25, 2 x H200-SXM ~30 tokens/s ..."
ON_OTHER = re.compile(r"^Fits: (?P<fmt>\S+) on cards with the memory to hold it — (?P<cards>.+?) tokens/s")


def _estimate(model: str, gpu: str, **kw: Any) -> Estimate:
    """The estimate of one sequence of diagnose's context, as diagnose sizes it."""
    return estimate(model, gpu, batch=1, context_in=CONTEXT, context_out=1, **kw)


def _setups(d: Diagnosis) -> list[tuple[str, str, int]]:
    """(gpu, format, gpus) of every remedy; a remedy that names no setup fails the test."""
    out = []
    for s in d.suggestions:
        if found := ON_MORE.match(s):
            out.append((found["gpu"], found["fmt"], int(found["gpus"])))
        elif found := ON_OTHER.match(s):
            for card in found["cards"].split(", "):
                n, name = card.split(" ~")[0].split(" x ")
                out.append((name, found["fmt"], int(n)))
        else:
            pytest.fail(f"a remedy that names no setup: {s!r}")
    return out


@pytest.mark.parametrize(("model", "gpu", "tps"), CASES)
def test_the_verdict_says_first_that_it_does_not_fit_with_the_estimates_figures(
    model: str, gpu: str, tps: float
) -> None:
    est = _estimate(model, gpu)
    assert est.supported and not est.fits  # the premise: estimate answers "does not fit"
    d = diagnose(model, gpu, measured_tps=tps)
    assert not d.fits and d.bound == HOST_OFFLOAD
    assert d.verdict.startswith("Does not fit:")
    # the estimate's own plan, in GiB as estimate says it ("needs 133.7 GiB per GPU, 21.5 GiB usable")
    (said,) = [w for w in est.warnings if w.startswith("does not fit: needs ")]
    need, usable = re.findall(r"([\d.]+) GiB", said)[:2]
    assert f"needs {need} GiB per GPU" in d.verdict and f"{usable} GiB usable" in d.verdict
    assert f"{gib(est.memory.weights_gb):.1f} GiB of weights" in d.verdict
    assert d.memory == est.memory and d.would_fit == est.assumptions["would_fit"]
    # what it means for the measurement: held in host memory, far below the roofline, the PCIe bound
    assert "host memory" in d.verdict and "far below the GPU's roofline" in d.verdict
    # the GPU's own host link: 25 GB/s on Gen4 x16, 12.5 on a Gen3 T4 (stop 52: always 25)
    acc = resolve_gpu(gpu)
    link = {3: 12.5, 4: 25.0, 5: 50.0}[host_pcie_generation(acc)]
    assert host_link_gbps(acc) == link
    assert f"over PCIe ({link:g} GB/s, Gen{host_pcie_generation(acc)} x16)" in d.verdict
    assert 0 < d.pcie_ceiling_tps < d.roofline_tps
    # both figures run faster than PCIe streaming allows: the layers held on the host ran on the CPU
    assert tps > d.pcie_ceiling_tps and "ran on the CPU" in d.verdict
    assert d.expected_tps is None  # no estimate for a setup that does not load, as estimate gives none
    # offload is no mistake to check for here, and no remedy is priced for the setup that does not fit
    assert OFFLOAD_CHECK not in d.verdict + " ".join(d.suggestions)
    assert not [s for s in d.suggestions if s.startswith(("Quantise", "Batch", "Speculative", "Faster"))]


@pytest.mark.parametrize(("model", "gpu", "tps"), CASES)
def test_every_remedy_fits_and_estimates_would_fit_is_among_them(model: str, gpu: str, tps: float) -> None:
    d = diagnose(model, gpu, measured_tps=tps)
    setups = _setups(d)
    assert setups
    for card, fmt, n in setups:
        e = _estimate(model, card, gpus=n, precision=fmt, engine=d.engine)
        assert e.supported and e.fits, (card, fmt, n, e.warnings)
    would = _estimate(model, gpu).assumptions["would_fit"]
    for item in would.split("; "):
        assert any(item in s for s in d.suggestions), item
    # the narrower formats the old remedies priced do not fit on this card: never suggested on it
    for q in ("fp8", "int4"):
        on_card = _estimate(model, gpu, precision=q)
        if not (on_card.supported and on_card.fits):
            assert (d.gpu, q, 1) not in setups


def test_the_format_is_the_one_estimate_runs_bf16_as_fp16_below_cc_8() -> None:
    est = _estimate("qwen3-30b-a3b", "T4")
    assert est.support == "fallback-fp16" and est.precision == "fp16"
    d = diagnose("qwen3-30b-a3b", "T4", measured_tps=10)
    assert d.precision == est.precision
    assert "runs bf16 as fp16 on T4" in d.verdict and "Sized for fp16 weights" in d.verdict
    # where it fits, the same: the format said is the one the estimate runs
    small = diagnose("qwen3-4b", "T4", measured_tps=15)
    assert small.fits and small.precision == _estimate("qwen3-4b", "T4").precision == "fp16"


def test_a_model_that_fits_is_diagnosed_as_before() -> None:
    est = _estimate("llama-3.1-8b", "RTX 4090")
    assert est.fits
    d = diagnose("llama-3.1-8b", "RTX 4090", measured_tps=20)
    assert d.fits and d.bound == "memory" and d.expected_tps > 0
    assert d.would_fit == "" and d.pcie_ceiling_tps == 0.0
    assert d.verdict.startswith("Memory-bound:") and "Does not fit" not in d.verdict
    # a slow run where it fits: offload is worth checking for, and the usual remedies are priced
    assert OFFLOAD_CHECK in d.suggestions[0]
    for start in ("Faster memory", "Quantise to fp8", "Quantise to int4", "Batch 8", "Speculative"):
        assert any(s.startswith(start) for s in d.suggestions), start


def test_a_figure_above_the_roofline_still_says_first_that_it_does_not_fit() -> None:
    d = diagnose("llama-3.1-70b", "RTX 4090", measured_tps=50)
    assert not d.fits and d.bound == ABOVE_ROOFLINE
    assert d.verdict.startswith("Does not fit:") and "Above the roofline" in d.verdict
    assert "ran on the CPU" not in d.verdict  # no reading of a figure that cannot be this decode
    assert not [s for s in d.suggestions if s.startswith("Fits:")]


@pytest.mark.parametrize(("model", "gpu", "tps"), CASES)
def test_the_cli_says_it_does_not_fit_and_suggests_only_what_fits(model: str, gpu: str, tps: float) -> None:
    args = ["diagnose", model, "--gpu", gpu, "--measured-tps", f"{tps:g}"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    est = _estimate(model, gpu)
    (said,) = [w for w in est.warnings if w.startswith("does not fit: needs ")]
    need, usable = re.findall(r"([\d.]+) GiB", said)[:2]
    assert f"Does not fit: {est.model} ({est.precision}) on 1 x {est.gpu} needs {need} GiB per GPU" in flat
    assert f"{usable} GiB usable" in flat
    for item in est.assumptions["would_fit"].split("; "):
        assert f"• Fits: {item}" in flat
    assert OFFLOAD_CHECK not in flat and "Quantise to" not in flat and "Speculative" not in flat
    # no "achieved bandwidth" as a share of the GPU's: the GPU did not read the host-held part
    assert "achieved memory bandwidth" not in flat and "achieved compute" not in flat
    as_json = runner.invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    got = json.loads(as_json.output)
    assert got["fits"] is False and got["bound"] == HOST_OFFLOAD and got["expected_tps"] is None
    assert got["precision"] == est.precision


def test_the_cli_of_a_model_that_fits_says_nothing_of_fitting() -> None:
    res = runner.invoke(app, ["diagnose", "llama-3.1-8b", "--gpu", "RTX 4090", "--measured-tps", "20"])
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "Does not fit" not in flat and "host memory" not in flat and OFFLOAD_CHECK in flat
    assert "achieved memory bandwidth" in flat
