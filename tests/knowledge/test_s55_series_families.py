"""A series name ("TPU", "Gaudi") is a family name as "A100" is: it covers the series' parts in the table
(the options' help says a family name covers its variants) and reads as one of them, saying so.

Regression: ``gpuscout offers --gpu TPU`` and ``--gpu Gaudi`` were refused as unknown names."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.knowledge.accelerators import (
    all_accelerators,
    assumed_variant_warning,
    gpu_family,
    resolve_gpu_detail,
)


def _series(prefix: str) -> tuple[str, ...]:
    return tuple(a.name for a in all_accelerators() if a.name.startswith(prefix))


@pytest.mark.parametrize(
    ("name", "prefix"), [("TPU", "TPU-v"), ("Google Cloud TPU", "TPU-v"), ("Gaudi", "Gaudi")]
)
def test_a_series_name_covers_its_parts_and_reads_as_one_saying_so(name: str, prefix: str) -> None:
    parts = _series(prefix)
    assert len(parts) > 1  # a family only where the table has several
    assert gpu_family(name) == parts  # in table order, as "A100" gives its four
    found = resolve_gpu_detail(name)
    assert not found.exact and found.accelerator.name in parts
    assert set(found.others) == set(parts) - {found.accelerator.name}
    assert found.note.startswith(f"generation not stated in {name!r}; assumed {found.accelerator.name}")
    assert all(p in assumed_variant_warning(name) for p in parts)


def test_what_a_series_name_states_narrows_it_as_a_family_names_does() -> None:
    assert gpu_family("TPU 16GB") == ("TPU-v5e",)  # the only 16 GB TPU in the table
    assert resolve_gpu_detail("Gaudi 96GB").accelerator.name == "Gaudi2"
    assert resolve_gpu_detail("TPU v5e").exact  # a part's own name is untouched


@pytest.mark.parametrize("name", ["TPU", "Gaudi"])
def test_offers_take_a_series_name(name: str) -> None:
    result = CliRunner().invoke(app, ["offers", "--gpu", name, "--json"])
    assert result.exit_code == 0, result.output  # was: "gpu: unknown name 'TPU'"
