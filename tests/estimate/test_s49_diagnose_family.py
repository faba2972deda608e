"""``diagnose`` says a GPU family name ("A100") was read as one variant, as ``estimate`` and ``vram`` do.

Regression: ``gpuscout diagnose llama-3.1-8b --gpu A100 --measured-tps 40`` timed the A100-SXM4-80GB
(2,039 GB/s) without a word, though the A100-PCIe-40GB (1,555 GB/s) the user may have measured on streams
a quarter less: the bandwidth fraction, the verdict and the remedies were one variant's. The words are
``assumed_variant_warning``'s, the function every estimate takes them from.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.diagnose import diagnose
from gpuscout.knowledge.accelerators import assumed_variant_warning, resolve_gpu

runner = CliRunner()


@pytest.mark.parametrize("family", ["A100", "H100", "V100", "A100 PCIe"])
def test_a_family_name_is_said_in_the_warnings_and_the_verdict(family: str) -> None:
    d = diagnose("llama-3.1-8b", family, measured_tps=20.0)
    said = assumed_variant_warning(family)
    assert said and d.warnings == [said]
    assert f" {said}." in d.verdict
    assert d.gpu == resolve_gpu(family).name


def test_the_figures_are_the_variants_and_an_exact_name_says_nothing() -> None:
    family = diagnose("llama-3.1-8b", "A100", measured_tps=20.0)
    exact = diagnose("llama-3.1-8b", "A100-SXM4-80GB", measured_tps=20.0)
    assert exact.warnings == [] and "read as" not in exact.verdict
    assert family.peak_bandwidth_gbps == exact.peak_bandwidth_gbps
    sized = " Sized for bf16 weights"  # the format assumed (none named) is said last, as before
    found, _, rest = exact.verdict.partition(sized)
    assert rest and family.verdict == f"{found} {assumed_variant_warning('A100')}.{sized}{rest}"
    assert family.suggestions == exact.suggestions
    # an Accelerator is what it is (the FAQ passes one)
    assert diagnose("llama-3.1-8b", resolve_gpu("A100"), measured_tps=20.0).warnings == []


def test_the_cli_diagnose_prints_it_and_its_json_carries_it() -> None:
    args = ["diagnose", "llama-3.1-8b", "--gpu", "A100", "--measured-tps", "20"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "gpu 'A100' read as A100-SXM4-80GB" in flat
    assert "A100-PCIe-40GB (40 GiB)" in flat
    as_json = runner.invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.output)["warnings"] == [assumed_variant_warning("A100")]
    exact = runner.invoke(
        app, ["diagnose", "llama-3.1-8b", "--gpu", "A100-SXM4-80GB", "--measured-tps", "20"]
    )
    assert exact.exit_code == 0 and "read as" not in exact.output
