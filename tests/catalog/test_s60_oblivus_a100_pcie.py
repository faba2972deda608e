"""Oblivus's 8x A100 named NVLINK (resold by Prime Intellect) is A100 80GB PCIe with NVLink bridges, not
SXM4 (stop 60 catalog pass): the reference said only 'A100-80GB', the SXM4 default was assumed, and the
row read as an 8x A100 SXM "NVLink" training box at $1.57/GPU-h. Oblivus's other A100 rows in the same
file, the 8x of the same 252-vCPU shape among them, are PCIe; this shape (252 vCPUs, 1,920 GiB) is
Hyperstack's n3-A100x8-NVLink, catalogued PCIe (rule oblivus-a100-nvlink-is-pcie)."""

from __future__ import annotations

from gpuscout.catalog.offer import Interconnect
from gpuscout.catalog.sources.snapshot import SnapshotSource


def test_the_nvlink_named_oblivus_a100_box_is_pcie_and_says_why() -> None:
    rows = {o.instance_type: o for o in SnapshotSource().offers() if o.instance_type.startswith("oblivus__")}
    box = rows["oblivus__8xA100_80GB__252__1920__NVLINK"]
    same_shape = rows["oblivus__8xA100_80GB__252__1440"]
    assert box.accelerator == same_shape.accelerator == "A100-PCIe-80GB"
    assert box.interconnect is Interconnect.PCIE
    assert "NVLink bridges" in box.notes and "not SXM4" in box.notes
