"""The one ``Offer`` type: a rentable GPU configuration at a price, with its provenance."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class Availability(StrEnum):
    AVAILABLE = "available"
    LIMITED = "limited"
    UNAVAILABLE = "unavailable"
    UNKNOWN = "unknown"


class Interconnect(StrEnum):
    NVLINK = "nvlink"  # NVLink / NVSwitch / SXM baseboard / Infinity Fabric / ICI
    PCIE = "pcie"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Offer:
    """One offer. Prices are USD per hour for the *whole instance*; unknown is ``None``, never 0.

    ``observed_at`` is ``None`` when the time the price was observed is not known (the bundled
    snapshot's rows): show it as unknown age, never as "now".
    """

    provider: str
    instance_type: str
    region: str
    accelerator: str  # canonical Accelerator.name
    gpu_count: int
    gpu_memory_gb: float  # per GPU, canonical
    price_usd_per_hour: float | None  # on-demand, whole instance
    spot_price_usd_per_hour: float | None
    source: str  # feed name + URL/endpoint, e.g. "snapshot:https://github.com/..."
    observed_at: datetime | None
    zone: str | None = None
    vcpus: float | None = None
    ram_gb: float | None = None
    disk_gb: float | None = None
    interconnect: Interconnect = Interconnect.UNKNOWN
    internode: str | None = None  # "infiniband", "roce", "efa" where the provider states it
    availability: Availability = Availability.UNKNOWN
    available_count: int | None = None
    billing_terms: str | None = None  # ProviderTerms.name to look billing/egress/storage up
    stale: bool = False  # known to come from an old feed (e.g. v6 snapshot files)
    fractional: bool = False  # vGPU / fractional slice of a GPU
    storage_usd_per_gb_month: float | None = None  # per-offer terms (marketplaces) override provider's
    egress_usd_per_gb: float | None = None
    secure: bool | None = None  # RunPod secure vs community cloud
    notes: str = ""
    extra: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def price_usd_per_gpu_hour(self) -> float | None:
        if self.price_usd_per_hour is None:
            return None
        return self.price_usd_per_hour / self.gpu_count

    @property
    def spot_price_usd_per_gpu_hour(self) -> float | None:
        if self.spot_price_usd_per_hour is None:
            return None
        return self.spot_price_usd_per_hour / self.gpu_count

    @property
    def total_memory_gb(self) -> float:
        return self.gpu_memory_gb * self.gpu_count

    @property
    def key(self) -> tuple[str, str, str, str | None, bool | None]:
        """Identity of an offer within one source snapshot (used to collapse duplicates)."""
        return (self.provider, self.instance_type, self.region, self.zone, self.secure)
