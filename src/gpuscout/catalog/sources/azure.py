"""Azure Retail Prices: ``GET https://prices.azure.com/api/retail/prices`` (no key).

Filtered server-side to Linux consumption VM meters of the GPU families (``Standard_N*``), paged
with ``NextPageLink`` (1,000 items a page; 429 is retried with ``Retry-After``). Client-side,
every item still goes through :func:`~gpuscout.catalog.normalize.azure_exclusion`: Reservation
rows (their ``retailPrice`` is the whole-term amount although ``unitOfMeasure`` says
"1 Hour"), DevTest, "Low Priority" and Windows meters are dropped with a reason (excluded by
design: they do not count as invalid rows at the validation gate, unlike a meter without a
positive price). Meters ending in " Spot" are the spot price of the same size and region, merged
into one offer.

The retail API carries no hardware specs, so the GPU, count, vCPUs and RAM of each size come
from :data:`AZURE_GPU_SIZES`, curated from Microsoft Learn's GPU-accelerated size pages
(https://learn.microsoft.com/azure/virtual-machines/sizes/overview, series pages linked per
row). Those figures were written from the documentation as remembered, not re-read here
(confidence "recalled"); sizes not in the table are dropped with the reason "not a known Azure
GPU size". Fractional sizes (NVadsA10 v5 slices of an A10) are marked ``fractional`` (no fabric).
Sizes of retired series (:data:`AZURE_RETIRED_SIZES`: NC K80, NV M60, NCv3 V100) are dropped with
the date and the retirement notice, as the bundled snapshot drops them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from gpuscout.catalog.fabrics import internode_extra, known_fabric
from gpuscout.catalog.normalize import (
    Excluded,
    Unmatched,
    azure_exclusion,
    azure_is_spot,
    match_gpu,
    price_or_none,
)
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.http import HttpSource, azure_next_page, paginate
from gpuscout.catalog.sources.payload import envelope, field, now_utc, parse_rows

PRICES_URL = "https://prices.azure.com/api/retail/prices"
API_VERSION = "2023-01-01-preview"
FILTER = " and ".join(
    [
        "serviceName eq 'Virtual Machines'",
        "priceType eq 'Consumption'",
        "contains(armSkuName, 'Standard_N')",
        "contains(productName, 'Windows') eq false",
    ]
)
LEARN = "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"


@dataclass(frozen=True, slots=True)
class AzureSize:
    gpu: str  # a name the knowledge table resolves
    gpu_count: int
    vcpus: int
    ram_gb: float | None
    series_url: str
    slice_gb: float | None = None  # per-VM GPU memory when the size is a fraction of one GPU
    internode: str | None = None  # "infiniband" where the size has an InfiniBand NIC


def _series(page: str) -> str:
    return LEARN + page


AZURE_GPU_SIZES: dict[str, AzureSize] = {
    # NC H100 v5 (H100 NVL 94 GB, PCIe)
    "Standard_NC40ads_H100_v5": AzureSize("H100 NVL", 1, 40, 320, _series("ncadsh100v5-series")),
    "Standard_NC80adis_H100_v5": AzureSize("H100 NVL", 2, 80, 640, _series("ncadsh100v5-series")),
    # ND H100 v5 / ND H200 v5 / ND MI300X v5 (8 GPUs on an NVLink/Infinity Fabric baseboard, InfiniBand)
    "Standard_ND96isr_H100_v5": AzureSize(
        "H100 SXM", 8, 96, 1900, _series("ndh100v5-series"), internode="infiniband"
    ),
    "Standard_ND96isr_H200_v5": AzureSize(
        "H200 SXM", 8, 96, 1850, _series("ndh200v5-series"), internode="infiniband"
    ),
    "Standard_ND96isr_MI300X_v5": AzureSize(
        "MI300X", 8, 96, 1850, _series("ndmi300xv5-series"), internode="infiniband"
    ),
    # NDm A100 v4 (A100 80 GB SXM) and ND A100 v4 (A100 40 GB SXM)
    "Standard_ND96amsr_A100_v4": AzureSize(
        "A100 SXM4 80GB", 8, 96, 1900, _series("ndma100v4-series"), internode="infiniband"
    ),
    "Standard_ND96asr_v4": AzureSize(
        "A100 SXM4 40GB", 8, 96, 900, _series("nda100v4-series"), internode="infiniband"
    ),
    # NC A100 v4 (A100 80 GB PCIe)
    "Standard_NC24ads_A100_v4": AzureSize("A100 PCIe 80GB", 1, 24, 220, _series("nca100v4-series")),
    "Standard_NC48ads_A100_v4": AzureSize("A100 PCIe 80GB", 2, 48, 440, _series("nca100v4-series")),
    "Standard_NC96ads_A100_v4": AzureSize("A100 PCIe 80GB", 4, 96, 880, _series("nca100v4-series")),
    # NCasT4 v3 (T4)
    "Standard_NC4as_T4_v3": AzureSize("T4", 1, 4, 28, _series("ncast4v3-series")),
    "Standard_NC8as_T4_v3": AzureSize("T4", 1, 8, 56, _series("ncast4v3-series")),
    "Standard_NC16as_T4_v3": AzureSize("T4", 1, 16, 110, _series("ncast4v3-series")),
    "Standard_NC64as_T4_v3": AzureSize("T4", 4, 64, 440, _series("ncast4v3-series")),
    # (NCv3, V100 16 GB: retired, see AZURE_RETIRED_SIZES)
    # NDv2 (8x V100 32 GB SXM2, NVLink)
    "Standard_ND40rs_v2": AzureSize(
        "V100 SXM2 32GB", 8, 40, 672, _series("ndv2-series"), internode="infiniband"
    ),
    # NVadsA10 v5: partitions of one A10 (1/6, 1/3, 1/2) up to two full A10s
    "Standard_NV6ads_A10_v5": AzureSize("A10", 1, 6, 55, _series("nvadsa10v5-series"), slice_gb=4),
    "Standard_NV12ads_A10_v5": AzureSize("A10", 1, 12, 110, _series("nvadsa10v5-series"), slice_gb=8),
    "Standard_NV18ads_A10_v5": AzureSize("A10", 1, 18, 220, _series("nvadsa10v5-series"), slice_gb=12),
    "Standard_NV36ads_A10_v5": AzureSize("A10", 1, 36, 440, _series("nvadsa10v5-series")),
    "Standard_NV36adms_A10_v5": AzureSize("A10", 1, 36, 880, _series("nvadsa10v5-series")),
    "Standard_NV72ads_A10_v5": AzureSize("A10", 2, 72, 880, _series("nvadsa10v5-series")),
    # NVv3 (Tesla M60: one GM204 GPU of a two-GPU board per "GPU")
    "Standard_NV12s_v3": AzureSize("M60", 1, 12, 112, _series("nvv3-series")),
    "Standard_NV24s_v3": AzureSize("M60", 2, 24, 224, _series("nvv3-series")),
    "Standard_NV48s_v3": AzureSize("M60", 4, 48, 448, _series("nvv3-series")),
}


@dataclass(frozen=True, slots=True)
class RetiredSeries:
    """A GPU VM series Azure no longer sells: its sizes (a full-match pattern), when and where said."""

    series: str
    sizes: re.Pattern[str]
    retired_on: str | None  # ISO date, where the notice gives one
    source: str

    def reason(self) -> str:
        when = f" on {self.retired_on}" if self.retired_on else ""
        return f"retired size: Azure {self.series} was retired{when} ({self.source})"


#: Retired GPU series: their sizes are dropped (excluded, with the reason) wherever the Retail Prices
#: API still has meters for them, by this adapter and by ``gpuhunt:azure``. The same sizes as the
#: bundled snapshot's ``azure-retired-*`` rules (data/snapshot/rules.yaml), with the same sources.
AZURE_RETIRED_SIZES: tuple[RetiredSeries, ...] = (
    RetiredSeries(
        "NC-series (Tesla K80) and its Promo sizes",
        re.compile(r"Standard_NC(6|12|24|24r)(_Promo)?"),
        None,
        "https://learn.microsoft.com/en-us/azure/virtual-machines/nc-series-retirement",
    ),
    RetiredSeries(
        "NV-series (Tesla M60) and NV_Promo",
        re.compile(r"Standard_NV(6|12|24)(_Promo)?"),
        "2023-09-06",
        "https://learn.microsoft.com/en-us/azure/virtual-machines/nv-series-retirement",
    ),
    RetiredSeries(
        "NCv3-series (V100: NC6s_v3, NC12s_v3, NC24s_v3, NC24rs_v3)",
        re.compile(r"Standard_NC(6|12|24|24r)s_v3"),
        "2025-09-30",
        "https://github.com/MicrosoftDocs/azure-docs (ncv3-nc6s-nc12s-nc24s-retirement.md)",
    ),
)


def retired_size(sku: str) -> RetiredSeries | None:
    """The retired series ``sku`` belongs to, or ``None`` when Azure still sells it."""
    return next((r for r in AZURE_RETIRED_SIZES if r.sizes.fullmatch(sku)), None)


@dataclass
class _Prices:
    on_demand: float | None = None
    spot: float | None = None
    meters: tuple[str, ...] = ()


class AzureSource(HttpSource):
    name = "azure"
    provider = "azure"
    endpoint = PRICES_URL
    needs_credentials = ()
    max_pages = 200

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        http = self.http(client)
        params = {"api-version": API_VERSION, "$filter": FILTER}
        groups: dict[tuple[str, str], _Prices] = {}
        async for page in paginate(
            http, PRICES_URL, params=params, next_page=azure_next_page, max_pages=self.max_pages
        ):
            items = envelope(page, "Items", self.name)
            parse_rows(self, items, lambda item: self._collect(item, groups), _ident, collects=True)
        observed = now_utc()
        offers: list[Offer] = []
        for (sku, region), prices in sorted(groups.items()):
            try:
                offers.append(self._offer(sku, region, prices, observed))
            except Unmatched as exc:
                self.drop_unmatched(f"{sku} {region}", exc)
        return offers

    def _collect(self, item: Any, groups: dict[tuple[str, str], _Prices]) -> list[Offer]:
        sku = field(item, "armSkuName", "Items[]", str)
        region = field(item, "armRegionName", "Items[]", str)
        price = price_or_none(field(item, "retailPrice", "Items[]"))
        field(item, "meterName", "Items[]", str)
        reason = azure_exclusion(item)
        if reason:
            raise Excluded(reason)
        retired = retired_size(sku)
        if retired is not None:
            raise Excluded(retired.reason(), "retired size")
        if sku not in AZURE_GPU_SIZES:
            raise Excluded("not a known Azure GPU size")
        if price is None:
            raise Unmatched("no positive retailPrice", "no positive price")
        slot = groups.setdefault((sku, region), _Prices())
        if azure_is_spot(item):
            slot.spot = price if slot.spot is None else min(slot.spot, price)
        else:
            slot.on_demand = price if slot.on_demand is None else min(slot.on_demand, price)
        slot.meters = (*slot.meters, str(item["meterName"]))
        return []

    def _offer(self, sku: str, region: str, prices: _Prices, observed: Any) -> Offer:
        size = AZURE_GPU_SIZES[sku]
        gpu = match_gpu(size.gpu, size.slice_gb, allow_fractional=size.slice_gb is not None)
        notes = [f"specs from {size.series_url} (recalled, not re-read)"]
        if gpu.note:
            notes.append(gpu.note)
        extra = {"meters": ", ".join(sorted(set(prices.meters)))}
        documented = known_fabric("azure", sku)
        if documented is not None:
            extra.update(internode_extra(documented))
        return self.gpu_offer(
            gpu,
            instance_type=sku,
            region=region,
            gpu_count=size.gpu_count,
            price_usd_per_hour=prices.on_demand,
            spot_price_usd_per_hour=prices.spot,
            observed_at=observed,
            vcpus=float(size.vcpus),
            ram_gb=size.ram_gb,
            internode=size.internode,
            notes="; ".join(notes),
            extra=extra,
        )


def _ident(item: Any) -> str:
    sku, region, meter = item.get("armSkuName"), item.get("armRegionName"), item.get("meterName")
    return f"{sku} {region} {meter} ({item.get('type')})"
