"""How the GPU pages order accelerators and name the variants behind a family name."""

from __future__ import annotations

from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu_detail

VENDOR_ORDER = ("NVIDIA", "AMD", "Intel", "Google", "AWS")
KIND_ORDER = ("datacenter", "workstation", "consumer", "tpu", "asic")


def gpu_order(acc: Accelerator) -> tuple[object, ...]:
    """Sort key of the GPU list: vendor, class, then the fastest memory first."""
    vendor = VENDOR_ORDER.index(acc.vendor) if acc.vendor in VENDOR_ORDER else len(VENDOR_ORDER)
    kind = KIND_ORDER.index(acc.kind) if acc.kind in KIND_ORDER else len(KIND_ORDER)
    return (vendor, kind, -acc.bandwidth_gbps, acc.name)


def _stem(name: str) -> str:
    return name.split("-")[0]


def gpu_family_members(name: str) -> list[Accelerator] | None:
    """The variants a family name covers ("H100" -> H100-SXM, H100-PCIe, H100-NVL; an ambiguous
    "A100" -> its four parts); ``None`` when the name is one accelerator (or unknown)."""
    try:
        found = resolve_gpu_detail(name)
    except UnknownNameError as exc:
        if exc.ambiguous and exc.suggestions:
            by_name = {a.name: a for a in all_accelerators()}
            return [by_name[s] for s in exc.suggestions if s in by_name] or None
        return None
    if found.exact:
        return None
    from gpuscout.knowledge.accelerators import gpu_family

    names = gpu_family(name)
    if len(names) < 2:
        return None
    by_name = {a.name: a for a in all_accelerators()}
    return [by_name[n] for n in names if n in by_name]


def sibling_variants(acc: Accelerator) -> list[Accelerator]:
    """The other variants of an accelerator's family (H100-SXM -> H100-PCIe, H100-NVL)."""
    return [a for a in all_accelerators() if _stem(a.name) == _stem(acc.name) and a.name != acc.name]
