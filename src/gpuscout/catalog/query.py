"""``OfferQuery``: the filters and sort shared by the CLI, the web page and the JSON API."""

from __future__ import annotations

from dataclasses import dataclass, field

SORT_KEYS = (
    "price",
    "price_per_gpu",
    "price_per_gb_vram",
    "bandwidth_per_dollar",
    "tflops_per_dollar",
    "spot_price",
    "gpu_memory",
    "provider",
    "accelerator",
    "gpu_count",
    "region",
    "age",
    "total_vram",
    "instance_type",
    "interconnect",
    "availability",
    "source",
    "on_demand_price",
    "on_demand_price_per_gpu",
)


@dataclass(frozen=True, slots=True)
class OfferQuery:
    """Filters over current offers. Empty tuples / ``None`` mean "no filter"."""

    gpus: tuple[str, ...] = ()  # canonical accelerator names (resolve user names first)
    min_vram_gb: float | None = None  # per GPU
    min_total_vram_gb: float | None = None
    gpu_count: int | None = None
    providers: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()  # substring match, case-insensitive
    spot: bool | None = None  # True: has a spot price; False: has an on-demand price
    available_only: bool = False  # drop offers known to be unavailable
    interconnect: str | None = None  # "nvlink" | "pcie"
    max_price_usd_per_hour: float | None = None  # on the on-demand (or spot when spot=True) price
    sort: str = "price"
    descending: bool = False
    limit: int | None = None
    offset: int = 0
    exclude_stale: bool = False
    extra: dict[str, str] = field(default_factory=dict)
