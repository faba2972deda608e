"""The stop-60 catalog pass.

- Oblivus's 8x A100 named NVLINK (resold by Prime Intellect) is A100 80GB PCIe with NVLink bridges, not
  SXM4: the reference said only 'A100-80GB', the SXM4 default was assumed, and the row read as an 8x A100
  SXM "NVLink" training box at $1.57/GPU-h. Oblivus's other A100 rows in the same file, the 8x of the same
  252-vCPU shape among them, are PCIe; this shape (252 vCPUs, 1,920 GiB) is Hyperstack's
  n3-A100x8-NVLink, catalogued PCIe (rule oblivus-a100-nvlink-is-pcie).
- AWS G5g rows say their host is Arm (Graviton2): an x86-64 CUDA image does not start there (rule
  aws-g5g-arm-host)."""

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


def test_aws_g5g_rows_say_their_host_is_arm() -> None:
    # 27 T4G rows read as plain T4 offers beside x86 g4dn ones; an x86 CUDA image does not start there
    g5g = [o for o in SnapshotSource().offers() if o.provider == "aws" and o.instance_type.startswith("g5g.")]
    g4dn = [
        o for o in SnapshotSource().offers() if o.provider == "aws" and o.instance_type.startswith("g4dn.")
    ]
    assert g5g and all("Arm host" in o.notes and o.extra.get("host_cpu_arch") == "arm64" for o in g5g)
    assert g4dn and not any("Arm host" in o.notes for o in g4dn)
