"""Pure normalization helpers shared by the sources: names, memory units, prices, row exclusion.

Rules (each has a test on a recorded payload in ``tests/catalog/test_normalize.py``):

* **GPU names** resolve through the knowledge table (:func:`match_gpu`). The feed's memory
  figure picks the variant ("A100" + 40 GB -> A100-SXM4-40GB) and must agree with the resolved
  accelerator; a name that cannot be resolved, or whose memory contradicts it, raises
  :class:`Unmatched` so the source drops the row *with a reason* (counted, never silent).
  When the feed does not say which variant (form factor), the knowledge table's default is
  used and the assumption is recorded in ``GpuMatch.note``.
* **Memory units**: GPU memory is marketed in binary gigabytes, so MiB / MB figures as reported
  by drivers (``nvidia-smi``: 81559 MiB on an H100 80GB, AWS A10G 22888 MiB, Vast ``gpu_ram``
  24576 "MB") are divided by 1024 and compared with the canonical size with a tolerance for
  driver-reserved memory (:data:`MEMORY_LOW`, :data:`MEMORY_HIGH`); the offer then carries the
  *canonical* size (24 GB, not 22.35). RunPod labels ``memoryInGb`` values that are GB.
* **Fractional / vGPU slices** (Vultr ``vcg`` plans with 4 GB of an A100) are memory figures
  well below the canonical card: marked ``fractional`` and keep the slice's memory.
* **Prices**: cents -> USD (Lambda, Shadeform), units + nanos (GCP), per-GPU -> per-instance
  (RunPod, GCP GPU SKUs). Zero, negative, missing or
  non-numeric prices are *unknown* (``None``), never 0.
* **Reservation / commitment rows** are excluded from on-demand: Azure ``type`` Reservation
  (their ``retailPrice`` is the whole-term amount although ``unitOfMeasure`` says "1 Hour") and
  DevTestConsumption, Azure "Low Priority" meters, GCP "Commitment v1:" SKUs. (AWS comes through
  gpuhunt, whose catalog already keeps only on-demand Linux rows.)
* **GCP host-vs-GPU composition**: GCP prices GPUs per GPU-hour apart from the host's vCPU and
  RAM. An instance price is ``host + gpu_count * gpu_rate`` (:func:`compose_gcp_instance_price`);
  a GPU SKU alone is never presented as an instance price. The ``gcp`` source composes A2, A2
  Ultra, G2 and A3 High shapes from the Cloud Billing SKUs; any other shape (A3 Mega/Ultra, A4,
  TPUs) is excluded there and comes only from ``gpuhunt:gcp``, whose catalog is already composed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuscout.catalog.offer import Interconnect
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import find_gpu

# Reported / canonical memory ratio accepted as "the same card" (drivers reserve a few %:
# A10G 22.35/24 = 0.93, T4 15/16 = 0.94, H100 79.6/80).
MEMORY_LOW = 0.88
MEMORY_HIGH = 1.06

_STATES_MEMORY = re.compile(r"\d\s*(?:gb|gib|g)\b", re.IGNORECASE)  # "A100-80GB", "H100 80 GB"
_BINARY_UNITS = {"mib": 1 / 1024, "mb": 1 / 1024, "gib": 1.0, "gb": 1.0, "tib": 1024.0, "tb": 1024.0}


class Unmatched(ValueError):
    """A feed row cannot be normalized; ``reason`` says why (the source drops and counts it).

    ``category`` is the reason without the row's own details ("unknown GPU" for "unknown GPU
    'Zorblax 9000'"), so that drops can be counted per reason; it defaults to ``reason``. An
    :class:`Unmatched` row is *invalid*: it counts against the validation gate's limit on bad rows.
    """

    invalid = True

    def __init__(self, reason: str, category: str | None = None) -> None:
        self.reason = reason
        self.category = category or reason
        super().__init__(reason)


class Excluded(Unmatched):
    """A feed row that is not an offer by design (CPU-only, reservation term, Windows licence, a size
    gpuscout has no specs for): dropped and counted per reason, but *not* held against the feed by
    the validation gate's limit on invalid rows."""

    invalid = False


@dataclass(frozen=True, slots=True)
class GpuMatch:
    """A feed's GPU resolved to the canonical accelerator."""

    accelerator: Accelerator
    memory_gb: float  # per GPU: canonical size, or the slice's size when fractional
    exact: bool  # False when the variant was assumed (see note)
    fractional: bool = False
    note: str = ""


# --- memory ---------------------------------------------------------------------------------


def gpu_memory_gb(value: float, unit: str) -> float:
    """A GPU memory figure in (binary, as marketed) GB: ``gpu_memory_gb(22888, "MiB") -> 22.35``."""
    try:
        factor = _BINARY_UNITS[unit.strip().lower()]
    except KeyError:
        accepted = "MiB, MB, GiB, GB, TiB, TB"
        raise ValueError(f"unit: unknown memory unit {unit!r} (accepted: {accepted})") from None
    return float(value) * factor


def memory_ratio(reported_gb: float, accelerator: Accelerator) -> float:
    return reported_gb / accelerator.memory_gb


def memory_consistent(reported_gb: float, accelerator: Accelerator) -> bool:
    """True when a reported per-GPU memory is the accelerator's canonical memory (within tolerance)."""
    return MEMORY_LOW <= memory_ratio(reported_gb, accelerator) <= MEMORY_HIGH


def is_fractional(reported_gb: float, accelerator: Accelerator) -> bool:
    """True when the memory is clearly a slice of the card (vGPU / MIG / fractional offer)."""
    return memory_ratio(reported_gb, accelerator) < MEMORY_LOW


# --- GPU names -----------------------------------------------------------------------------


def _resolve(name: str) -> tuple[Accelerator, bool, str] | None:
    res = find_gpu(name)  # no closest-name search for unknown names: they only become a drop reason
    return None if res is None else (res.accelerator, res.exact, res.note)


def match_gpu(
    name: str,
    memory_gb: float | None = None,
    *,
    allow_fractional: bool = False,
    allow_assumed: bool = True,
) -> GpuMatch:
    """Resolve a feed's GPU name (+ per-GPU memory in GB, already unit-fixed) to an accelerator.

    Raises :class:`Unmatched` when the name is unknown, when the memory contradicts every
    variant, or (``allow_assumed=False``) when the variant had to be assumed.
    """
    name = (name or "").strip()
    if not name:
        raise Unmatched("no GPU name", "unknown GPU")
    if memory_gb is not None and (not math.isfinite(memory_gb) or memory_gb <= 0):
        memory_gb = None
    attempts = [name]
    if memory_gb is not None and not _STATES_MEMORY.search(name):
        attempts.insert(0, f"{name} {round(memory_gb):d}GB")
    first = _resolve(name)
    for attempt in attempts:
        found = _resolve(attempt)
        if found is None:
            continue
        acc, exact, note = found
        if memory_gb is not None and not memory_consistent(memory_gb, acc):
            continue
        if not exact and not allow_assumed:
            raise Unmatched(f"GPU {name!r} does not say which variant ({note})", "GPU variant not stated")
        return GpuMatch(acc, acc.memory_gb, exact, note=note)
    if first is None:
        raise Unmatched(f"unknown GPU {name[:80]!r}", "unknown GPU")
    acc, exact, note = first
    assert memory_gb is not None  # otherwise the loop above returned
    if allow_fractional and is_fractional(memory_gb, acc):
        frac_note = f"fractional/vGPU slice: {memory_gb:g} GB of a {acc.memory_gb:g} GB {acc.name}"
        full_note = "; ".join(x for x in (note, frac_note) if x)
        return GpuMatch(acc, float(memory_gb), exact, fractional=True, note=full_note)
    raise Unmatched(
        f"GPU {name[:80]!r} reported with {memory_gb:g} GB per GPU, which matches no variant "
        f"(closest {acc.name} has {acc.memory_gb:g} GB)",
        "GPU memory matches no known variant",
    )


# --- prices --------------------------------------------------------------------------------


def price_or_none(value: Any) -> float | None:
    """A price as float; missing, empty, non-numeric, non-finite, zero or negative -> ``None``."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        if not value:
            return None
    try:
        price = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(price) or price <= 0:
        return None
    return price


def cents_to_usd(cents: Any) -> float | None:
    """US cents (Lambda ``price_cents_per_hour``, Shadeform ``hourly_price``) -> USD; unknown -> None."""
    value = price_or_none(cents)
    return None if value is None else value / 100.0


def units_nanos(units: Any, nanos: Any) -> float:
    """Money as ``units`` + ``nanos``/1e9 (GCP ``unitPrice``, Scaleway ``retail_price``)."""
    return int(units or 0) + int(nanos or 0) / 1e9


def per_instance(price_per_gpu: float | None, gpu_count: int) -> float | None:
    """A per-GPU-hour price (RunPod, GCP GPU SKU, Fluidstack) times the GPU count."""
    if price_per_gpu is None:
        return None
    if gpu_count < 1:
        raise ValueError(f"gpu_count: must be >= 1, got {gpu_count}")
    return price_per_gpu * gpu_count


# --- row exclusion -------------------------------------------------------------------------


def azure_exclusion(item: Mapping[str, Any]) -> str | None:
    """Why an Azure Retail Prices item is not an on-demand/spot Linux VM price, or None if it is."""
    kind = str(item.get("type") or "")
    if kind == "Reservation" or item.get("reservationTerm"):
        return "reservation row (retailPrice is the whole-term amount)"
    if kind == "DevTestConsumption":
        return "dev/test pricing"
    if kind and kind != "Consumption":
        return f"price type {kind!r}"
    meter = str(item.get("meterName") or "")
    sku = str(item.get("skuName") or "")
    if "Low Priority" in meter or "Low Priority" in sku:
        return "low-priority meter (retiring)"
    if "Windows" in str(item.get("productName") or ""):
        return "Windows licence included"
    unit = str(item.get("unitOfMeasure") or "")
    if unit and unit != "1 Hour":
        return f"unit {unit!r} is not per hour"
    return None


def azure_is_spot(item: Mapping[str, Any]) -> bool:
    return any(str(item.get(k) or "").endswith(" Spot") for k in ("meterName", "skuName"))


# The AWS bulk price-list CSV rows that are plain on-demand Linux prices (gpuhunt's filter).
GCP_COMMITMENT_PREFIX = "Commitment v1:"


def is_gcp_commitment(sku: Mapping[str, Any]) -> bool:
    """GCP committed-use SKUs ("Commitment v1: ...", usageType Commit1Yr/Commit3Yr) are not on-demand."""
    desc = str(sku.get("description") or "")
    usage = str((sku.get("category") or {}).get("usageType") or "")
    return desc.startswith(GCP_COMMITMENT_PREFIX) or usage.startswith("Commit")


def compose_gcp_instance_price(
    host_usd_per_hour: float, gpu_usd_per_gpu_hour: float, gpu_count: int
) -> float:
    """GCP instance price = host (vCPU + RAM) + GPUs: ``a2-highgpu-1g`` 0.73948 + 2.933908 = 3.673388."""
    if host_usd_per_hour <= 0:
        raise ValueError("host_usd_per_hour: must be > 0 (a host-only price of 0 is a catalog gap)")
    return host_usd_per_hour + gpu_usd_per_gpu_hour * gpu_count


def interconnect_for(accelerator: Accelerator) -> Interconnect:
    """Intra-node fabric implied by the part when the feed does not say: SXM/OAM/superchip parts sit
    on an NVLink (or Infinity Fabric) baseboard; PCIe cards talk over PCIe unless a bridge is stated.

    The board and its fabric are one assumption: an offer timed on an assumed SXM part ("H200" read as
    H200-SXM) has that part's NVLink baseboard too, never the SXM compute with a PCIe all-reduce
    (:func:`assumed_fabric_note` says so in the offer's notes).
    """
    ff = accelerator.form_factor.lower()
    if any(k in ff for k in ("sxm", "oam", "superchip", "hgx", "mezzanine")):
        return Interconnect.NVLINK
    if "pcie" in ff or accelerator.kind in ("consumer", "workstation"):
        return Interconnect.PCIE
    return Interconnect.UNKNOWN


# The vendor's name for an NVLink-class baseboard (``catalog.fabrics.INTRA_NODE_FABRICS``, in words).
_SWITCHED_FABRIC_WORDS = {"NVIDIA": "NVLink", "AMD": "Infinity Fabric", "Intel": "RoCE", "Google": "ICI"}
# modules that only mount on a switched baseboard ("SXM5", "OAM", "one of the two GCDs of an MI250X OAM")
_BASEBOARD_FORMS = re.compile(r"\b(?:SXM\d*|OAM|HGX|mezzanine)\b", re.IGNORECASE)


def assumed_fabric_note(accelerator: Accelerator) -> str:
    """What an offer whose variant was assumed (the feed says "H200", not which board) takes for its
    GPU-to-GPU fabric, in words for its notes: the assumed part's own (:func:`interconnect_for`), so
    that its compute and its all-reduces are of one board. "" when the part implies none."""
    fabric = interconnect_for(accelerator)
    name = accelerator.name
    if fabric is Interconnect.NVLINK:
        words = _SWITCHED_FABRIC_WORDS.get(accelerator.vendor, "NVLink")
        board = _BASEBOARD_FORMS.search(accelerator.form_factor)
        if board is not None:
            return f"{words} assumed with the {name} ({board[0]} modules sit on an {words} baseboard)"
        return f"{words} assumed with the {name} (the part's own fabric)"
    if fabric is Interconnect.PCIE:
        return f"PCIe assumed with the {name} (a PCIe card; no bridge stated)"
    return ""
