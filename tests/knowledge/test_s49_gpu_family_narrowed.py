"""A GPU name that states its form factor or memory covers only the family members it matches.

Regression: ``gpu_family("A100 PCIe")`` gave all four A100s, the SXM4 parts too, so the family page for
"A100 PCIe" (``/gpus/A100 PCIe``), a catalog filter and a price history listed SXM4 boards, while the
warning an estimate gives (``assumed_variant_warning``) named the PCIe parts only. "GH200 480GB" (480 GB:
the Grace CPU's memory, on both GH200s) covered one GH200 where the warning named both.
"""

from __future__ import annotations

import re

import pytest

from gpuscout.knowledge.accelerators import (
    all_accelerators,
    assumed_variant_warning,
    gpu_family,
    gpu_family_members,
    resolve_gpu,
    resolve_gpu_detail,
)

NARROWED = {
    "A100 PCIe": ("A100-PCIe-40GB", "A100-PCIe-80GB"),
    "A100 SXM": ("A100-SXM4-40GB", "A100-SXM4-80GB"),
    "A100 80GB": ("A100-SXM4-80GB", "A100-PCIe-80GB"),
    "A100-80GB": ("A100-SXM4-80GB", "A100-PCIe-80GB"),
    "V100 PCIe": ("V100-PCIe-16GB", "V100-PCIe-32GB"),
    "GH200 480GB": ("GH200-96GB", "GH200-144GB"),
}
WHOLE = {
    "A100": ("A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIe-40GB", "A100-PCIe-80GB"),
    "H100": ("H100-SXM", "H100-PCIe", "H100-NVL"),
}


@pytest.mark.parametrize(("name", "members"), [*NARROWED.items(), *WHOLE.items()])
def test_a_family_name_covers_the_members_it_matches(name: str, members: tuple[str, ...]) -> None:
    assert set(gpu_family(name)) == set(members)
    found = gpu_family_members(name)
    assert found is not None and {a.name for a in found} == set(members)


@pytest.mark.parametrize("name", ["A100 PCIe", "V100 PCIe"])
def test_a_stated_pcie_leaves_out_every_sxm_board(name: str) -> None:
    covered = [resolve_gpu(n) for n in gpu_family(name)]
    assert covered and all("PCIe" in a.form_factor for a in covered), [a.form_factor for a in covered]


@pytest.mark.parametrize("name", ["H100 PCIe", "H100 NVL", "H100 SXM", "A100 PCIe 40GB"])
def test_a_name_that_pins_the_part_down_covers_that_part(name: str) -> None:
    assert gpu_family(name) == (resolve_gpu(name).name,)
    assert gpu_family_members(name) is None  # one accelerator: its own page, not a family's


@pytest.mark.parametrize("name", [*NARROWED, *WHOLE, "H200", "GH200", "V100", "A800"])
def test_the_family_is_what_the_warning_names(name: str) -> None:
    found = resolve_gpu_detail(name)
    assert set(gpu_family(name)) == {found.accelerator.name, *found.others}
    warning = assumed_variant_warning(name)
    named = {a.name for a in all_accelerators() if _names(warning, a.name)}
    assert named == set(gpu_family(name)), warning


def _names(text: str, part: str) -> bool:
    """Whether ``text`` names ``part`` as a whole word ("GH200-96GB" does not name "H20")."""
    return re.search(rf"(?<![\w-]){re.escape(part)}(?![\w-])", text) is not None


def test_the_family_keeps_the_tables_order() -> None:
    order = [a.name for a in all_accelerators()]
    for name in (*NARROWED, *WHOLE):
        covered = gpu_family(name)
        assert list(covered) == sorted(covered, key=order.index)
