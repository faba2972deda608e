"""A GPU family name ("A100", "H100", "V100") read as one of its variants is said in every answer.

Regression: ``gpuscout.estimate("llama-3.1-70b", "A100", precision="int4")`` answered for A100-SXM4-80GB
(``fits`` True) without a word, while A100-SXM4-40GB does not hold it; the web API (``/api/v1/estimate``)
and the CLI passed that silence on. The words come from one place in the knowledge layer
(``assumed_variant_warning``), which also owns the family members the web's GPU pages list.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import gpuscout
from gpuscout.cli import app
from gpuscout.estimate.api import EstimateSession, memory_needed
from gpuscout.knowledge import accelerators
from gpuscout.knowledge.accelerators import (
    assumed_variant_warning,
    gpu_family_members,
    resolve_gpu,
    resolve_gpu_detail,
)

runner = CliRunner()
FAMILIES = ("A100", "H100", "H200", "V100")


def _label(name: str) -> str:
    acc = resolve_gpu(name)
    return f"{acc.name} ({acc.memory_gb:g} GiB)"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_name_says_the_variant_it_reads_as_and_every_other(family: str) -> None:
    members = gpu_family_members(family)
    assert members is not None and len(members) > 1
    chosen = resolve_gpu(family)
    warning = assumed_variant_warning(family)
    assert warning.startswith(f"gpu {family!r} read as {chosen.name}")
    assert "name the variant for its memory and bandwidth" in warning
    others = [m for m in members if m.name != chosen.name]
    assert others and all(m.name in warning for m in others)
    # each one's memory where the family's differ (A100: 40 and 80 GB; H100: 80 and 94 GB), none where not
    differ = len({m.memory_gb for m in members}) > 1
    for m in members:
        assert (f"{m.name} ({m.memory_gb:g} GiB)" in warning) is differ, warning


def test_the_a100_warning_gives_each_variants_memory() -> None:
    warning = assumed_variant_warning("A100")
    for name in ("A100-SXM4-80GB", "A100-SXM4-40GB", "A100-PCIe-80GB", "A100-PCIe-40GB"):
        assert _label(name) in warning


@pytest.mark.parametrize("name", ["H100-SXM", "H100 SXM", "A100 PCIe 40GB", "RTX 4090", "L40S", "MI300X"])
def test_a_name_that_pins_the_part_down_says_nothing(name: str) -> None:
    assert resolve_gpu_detail(name).exact
    assert assumed_variant_warning(name) == ""
    assert assumed_variant_warning(resolve_gpu(name)) == ""  # an Accelerator is what it is


def test_a_stated_form_factor_narrows_the_others_to_what_the_name_can_mean() -> None:
    warning = assumed_variant_warning("A100 PCIe")
    assert "read as A100-PCIe-80GB" in warning and "A100-PCIe-40GB" in warning
    assert "SXM4" not in warning  # "PCIe" was said: the SXM4 parts are not what it can mean


def test_parts_whose_siblings_are_not_in_the_table_and_host_memory_are_said_too() -> None:
    a800 = assumed_variant_warning("A800")
    assert "read as A800-PCIe-80GB" in a800 and "not in the table" in a800
    gh200 = assumed_variant_warning("GH200 480GB")
    assert "GH200-144GB" in gh200 and "Grace CPU" in gh200


def test_the_web_gpu_pages_use_the_knowledge_layers_family_members() -> None:
    from gpuscout.web import gpu_view

    assert gpu_view.gpu_family_members is accelerators.gpu_family_members
    h100 = gpu_family_members("H100")
    assert h100 is not None and {a.name for a in h100} == {"H100-SXM", "H100-PCIe", "H100-NVL"}
    assert gpu_family_members("H100-SXM") is None and gpu_family_members("no such gpu") is None
    rtx6000 = gpu_family_members("RTX 6000")  # ambiguous: its parts, as the family page lists them
    assert rtx6000 is not None and "RTX6000-Ada" in {a.name for a in rtx6000}


def test_the_estimate_says_it_first_and_the_exact_name_does_not() -> None:
    family = gpuscout.estimate("llama-3.1-70b", "A100", precision="int4")
    exact = gpuscout.estimate("llama-3.1-70b", "A100-SXM4-80GB", precision="int4")
    assert family.gpu == exact.gpu == "A100-SXM4-80GB"
    assert family.warnings[0] == assumed_variant_warning("A100")
    assert not any("read as" in w for w in exact.warnings)
    assert family.warnings[1:] == exact.warnings  # the figures are the variant's: nothing else differs
    assert family.output_tokens_per_s_total == exact.output_tokens_per_s_total


def test_a_session_says_it_per_call_though_the_setup_is_shared() -> None:
    session = EstimateSession()
    first = session("llama-3.1-8b", "H100-SXM", concurrency=4)
    family = session("llama-3.1-8b", "H100", concurrency=4)
    again = session("llama-3.1-8b", "H100-SXM", concurrency=4)
    assert family.warnings[0].startswith("gpu 'H100' read as H100-SXM")
    assert not any("read as" in w for w in (*first.warnings, *again.warnings))


def test_unsupported_and_too_big_answers_say_it_too() -> None:
    unsupported = gpuscout.estimate("llama-3.1-8b", "V100", precision="fp8", engine="vllm")
    assert not unsupported.supported  # the reason leads its warnings, as a face shows it
    assert unsupported.warnings[0] == unsupported.unsupported_reason
    assert unsupported.warnings[1] == assumed_variant_warning("V100")
    too_big = gpuscout.estimate("llama-3.1-405b", "A100", precision="bf16")
    assert not too_big.fits and too_big.warnings[0].startswith("gpu 'A100' read as")


def test_memory_needed_says_it_last() -> None:
    need = memory_needed("llama-3.1-8b", "A100", batch=4, context=4096)
    assert need.warnings[-1] == assumed_variant_warning("A100")
    assert not any("read as" in w for w in memory_needed("llama-3.1-8b", "A100-SXM4-80GB").warnings)


def test_training_images_and_transcription_say_it() -> None:
    training = gpuscout.estimate_training("llama-3.1-8b", "A100", method="lora", tokens=1e6)
    images = gpuscout.estimate_images("flux.1-dev", "H100")
    speech = gpuscout.estimate_transcription("whisper-large-v3", "V100", audio_s=600)
    assert training.warnings[0] == assumed_variant_warning("A100")
    assert images.warnings[0] == assumed_variant_warning("H100")
    assert speech.warnings[0] == assumed_variant_warning("V100")
    exact = gpuscout.estimate_training("llama-3.1-8b", "A100-SXM4-80GB", method="lora", tokens=1e6)
    assert not any("read as" in w for w in exact.warnings)


def test_the_cli_estimate_prints_it() -> None:
    args = ["estimate", "llama-3.1-70b", "--gpu", "A100", "--precision", "int4"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert "gpu 'A100' read as A100-SXM4-80GB" in flat
    assert all(_label(n) in flat for n in ("A100-SXM4-40GB", "A100-PCIe-40GB", "A100-PCIe-80GB"))
    as_json = runner.invoke(app, [*args, "--json"])
    assert json.loads(as_json.output)["warnings"][0] == assumed_variant_warning("A100")
    exact = runner.invoke(
        app, ["estimate", "llama-3.1-70b", "--gpu", "A100-SXM4-80GB", "--precision", "int4"]
    )
    assert exact.exit_code == 0 and "read as" not in exact.output


def test_the_cli_vram_prints_it() -> None:
    res = runner.invoke(app, ["vram", "llama-3.1-8b", "--gpu", "H100"])
    assert res.exit_code == 0, res.output
    assert "gpu 'H100' read as H100-SXM" in " ".join(res.output.split())
