"""Stop 62: boxes whose names say NVLink, and what their GPU-to-GPU fabric truly is.

The offer model has two fabrics for a multi-GPU box, a switched NVLink-class baseboard (``nvlink``) and
``pcie``; NVLink *bridges* join pairs of PCIe cards, not the box, so a bridged box is catalogued ``pcie``
(its notes say bridges), as Hyperstack's n3-H100x8-NVLink and n3-A100x8-NVLink are.

Fluidstack's ``H100_NVLINK_80GB::8`` was read as a plain "H100", the SXM default assumed, and so sold
as an 8x H100 SXM box on a full NVLink baseboard at $2.99/GPU-h. Fluidstack names its SXM type
``H100_SXM5_80GB`` (SkyPilot's fetcher, tests/fixtures/reference/provider_samples/fluidstack.json), and
this one's shape (8 GPUs, 252 vCPUs, 1,440 GiB) is the one of the snapshot's two other "H100x8 NVLink"
boxes, Hyperstack's n3-H100x8-NVLink and Sesterce's H100x8_NVLINK, both H100 PCIe (rule
fluidstack-h100-nvlink-is-pcie, inferred as the rule says).
"""

from __future__ import annotations

import re

from gpuscout.catalog.offer import Interconnect
from gpuscout.catalog.sources.base import VARIANT_ASSUMED, VARIANT_KEY
from gpuscout.catalog.sources.snapshot import SnapshotSource

_NAMES_NVLINK = re.compile(r"nvlink|nvl\b|_nvl|-nvl", re.IGNORECASE)


def test_the_nvlink_named_fluidstack_h100_box_is_pcie_with_bridges_and_says_why() -> None:
    (box,) = [o for o in SnapshotSource().offers() if o.instance_type == "H100_NVLINK_80GB::8"]
    (hyperstack,) = [o for o in SnapshotSource().offers() if o.instance_type == "n3-H100x8-NVLink"]
    assert (box.vcpus, box.ram_gb) == (hyperstack.vcpus, hyperstack.ram_gb)  # the same shape
    assert box.accelerator == hyperstack.accelerator == "H100-PCIe"
    assert box.interconnect is Interconnect.PCIE
    assert "NVLink bridges" in box.notes and "not SXM5" in box.notes and "inferred" in box.notes


def test_no_nvlink_named_box_is_full_nvlink_on_an_assumption() -> None:
    # An instance or GPU name saying NVLink is either a switched baseboard (SXM, stated) or bridges between
    # pairs of PCIe cards: a box catalogued full NVLink on a variant the source does not state would time
    # every tensor-parallel all-reduce over a fabric the box may not have.
    named = [
        o
        for o in SnapshotSource().offers()
        if _NAMES_NVLINK.search(o.instance_type) or _NAMES_NVLINK.search(o.extra.get("gpu_name_source", ""))
    ]
    assert len(named) >= 10
    wrong = [
        f"{o.provider}/{o.instance_type} ({o.accelerator})"
        for o in named
        if o.interconnect is Interconnect.NVLINK and o.extra.get(VARIANT_KEY) == VARIANT_ASSUMED
    ]
    assert wrong == []
