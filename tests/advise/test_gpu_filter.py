"""``accelerators`` (``recommend --gpu``): only the GPUs asked for are ranked; a family name covers its
variants, an unknown name gets the closest known ones, and what is left out says why."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from gpuscout.advise.api import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.cli import app
from gpuscout.errors import UnknownNameError

OFFERS = SnapshotSource().offers()


def test_a_family_name_ranks_its_variants_only() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=8, accelerators=("H100",))
    answer = advise(w, OFFERS, top=50, include_rejected=True)
    assert answer.rows
    assert {r.offer.accelerator for r in answer.rows} <= {"H100-SXM", "H100-PCIe", "H100-NVL"}
    assert len({r.offer.accelerator for r in answer.rows}) > 1  # the family, not one variant
    others = [r for r in answer.rejected if r.rejected == "GPU not in the asked list"]
    assert others and all(not r.offer.accelerator.startswith("H100") for r in others)


def test_an_exact_name_ranks_that_variant() -> None:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=8, accelerators=("H100 PCIe", "L40S"))
    answer = advise(w, OFFERS, top=50)
    assert answer.rows and {r.offer.accelerator for r in answer.rows} <= {"H100-PCIe", "L40S"}


def test_an_unknown_gpu_names_the_closest_known() -> None:
    with pytest.raises(UnknownNameError) as err:
        advise(ServeWorkload(model="llama-3.1-8b", accelerators=("H1000",)), OFFERS)
    assert err.value.field == "accelerators" and "H100-SXM" in err.value.suggestions


def test_nothing_of_those_gpus_runs_it_says_so_and_what_would() -> None:
    w = ServeWorkload(model="llama-3.1-70b", concurrency=8, accelerators=("RTX4090",), providers=("lambda",))
    answer = advise(w, OFFERS)
    assert not answer.rows and answer.binding is not None
    assert "have other GPUs" in answer.binding and "elsewhere the cheapest" in answer.binding
    assert re.search(r"elsewhere the cheapest is .* at \$[\d,.]+ a month$", answer.binding)  # a serving month


def test_a_small_total_keeps_its_cents_and_a_month_says_so() -> None:
    from gpuscout.advise.reasons import usd

    # a fine-tune elsewhere read "at $0", a serving month "at $101" with no period
    assert usd(0.031) == "$0.03" and usd(99.5) == "$99.50" and usd(101.2, " a month") == "$101 a month"
    assert usd(25_381.4) == "$25,381" and usd(None) == "-"


def test_the_cli_option_filters_and_names_itself_in_errors() -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["recommend", "serve", "llama-3.1-8b", "--gpu", "H1000"])
    assert bad.exit_code == 2 and "--gpu:" in bad.output and "closest known" in bad.output
    ok = runner.invoke(app, ["recommend", "serve", "llama-3.1-8b", "--gpu", "L40S", "--csv"])
    assert ok.exit_code == 0, ok.output
    rows = ok.output.strip().splitlines()[1:]
    assert rows and all(",L40S," in row for row in rows)
