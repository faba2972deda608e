"""TensorDock: API v2, ``GET https://dashboard.tensordock.com/api/v2/locations`` (Bearer key).

The legacy v0 marketplace endpoint is "no longer maintained now that TensorDock API v2 has been
released" (gpuhunt dropped its TensorDock provider on 2026-02-25); this adapter reads only v2.

* **Auth**: ``Authorization: Bearer $TENSORDOCK_API_KEY`` (Developer Settings); without it the
  source is skipped. Rate limit 100 requests a minute (one request per refresh here).
* **Fields**: ``data.locations[] {id, city, stateprovince, country, tier, gpus[]}``; each GPU entry
  has ``v0Name`` (``h100-sxm5-80gb``), ``displayName`` ("H100 SXM5 80GB"), ``max_count`` (most
  GPUs deployable at that location), ``price_per_hr`` **USD per GPU-hour, GPU only**,
  ``resources {max_vcpus, max_ram_gb, max_storage_gb}`` and ``pricing {per_vcpu_hr,
  per_gb_ram_hr, per_gb_storage_hr}``.
* **Component pricing**: the advertised ``price_per_hr`` is the GPU alone, so an offer is a
  configuration gpuscout chooses, priced from the parts: :data:`VCPU_PER_GPU` vCPUs and
  :data:`RAM_GB_PER_GPU` GB RAM per GPU (capped at the location's maxima) and :data:`DISK_GB` GB
  of storage (TensorDock's minimum is 100 GB). Counts are 1 and ``max_count``. The location lists
  what can be deployed now, so these offers are available (``available_count`` = how many such
  instances ``max_count`` allows).
* **Region**: "City, State, Country" as stated; the location id is kept in ``extra``.
* **Spot**: TensorDock sells spot instances, but the locations endpoint states no spot price; none
  is claimed.

Traps (``tensordock_v2.source.md``): VRAM is only in the name; clients report an inconsistent
envelope on other endpoints (``{"data": [...]}`` vs ``{"data": {"instances": [...]}}``): a list
under ``data`` is accepted here as the locations list.

Test body: ``tensordock_v2.json`` is an **excerpt of the official docs example** of ``GET
/api/v2/locations`` (placeholder ids, one GPU entry; the stored page was cut off inside the
second), not a live capture.
"""

from __future__ import annotations

from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import NO_PRICE, envelope, field, now_utc, number, parse_rows, positive

LOCATIONS_URL = "https://dashboard.tensordock.com/api/v2/locations"
VCPU_PER_GPU = 8
RAM_GB_PER_GPU = 32
DISK_GB = 100


class TensorDockSource(HttpSource):
    name = "tensordock"
    provider = "tensordock"
    endpoint = LOCATIONS_URL
    needs_credentials = ("TENSORDOCK_API_KEY",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        key = self.credential("TENSORDOCK_API_KEY")
        payload = await self.http(client).get_json(LOCATIONS_URL, headers={"Authorization": f"Bearer {key}"})
        data = envelope(payload, "data", self.name, (dict, list))
        locations = data if isinstance(data, list) else envelope(data, "locations", self.name)
        if not isinstance(locations, list):
            raise SourceError(self.name, "schema change: data.locations is not a list")
        observed = now_utc()
        rows = [(loc, gpu) for loc in locations for gpu in _gpus(loc)]
        return parse_rows(self, rows, lambda r: self._offers(*r, observed=observed), _ident)

    def _offers(self, loc: dict[str, Any], entry: Any, *, observed: Any) -> list[Offer]:
        where = "data.locations[].gpus[]"
        per_gpu = price_or_none(field(entry, "price_per_hr", where))
        name = str(entry.get("displayName") or field(entry, "v0Name", where, str))
        if per_gpu is None:
            raise Unmatched("no positive price_per_hr", NO_PRICE)
        max_count = int(number(entry, "max_count", where))
        if max_count < 1:
            raise Unmatched("max_count < 1: nothing deployable", "nothing deployable")
        pricing = field(entry, "pricing", where, dict)
        cpu_rate = number(pricing, "per_vcpu_hr", f"{where}.pricing")
        ram_rate = number(pricing, "per_gb_ram_hr", f"{where}.pricing")
        disk_rate = number(pricing, "per_gb_storage_hr", f"{where}.pricing")
        resources = entry.get("resources")
        limits: dict[str, Any] = resources if isinstance(resources, dict) else {}
        gpu = match_gpu(name.replace("-", " "))
        region = (
            ", ".join(str(loc[k]) for k in ("city", "stateprovince", "country") if loc.get(k)) or "unknown"
        )
        offers = []
        for count in sorted({1, max_count}):
            vcpus = _capped(count * VCPU_PER_GPU, limits.get("max_vcpus"))
            ram_gb = _capped(count * RAM_GB_PER_GPU, limits.get("max_ram_gb"))
            price = count * per_gpu + vcpus * cpu_rate + ram_gb * ram_rate + DISK_GB * disk_rate
            config = f"component-priced configuration chosen by gpuscout: {vcpus:g} vCPU, {ram_gb:g} GB RAM"
            notes = "; ".join(x for x in (f"{config}, {DISK_GB} GB disk", gpu.note) if x)
            offers.append(
                self.gpu_offer(
                    gpu,
                    instance_type=f"{entry.get('v0Name') or name}:{count}x",
                    region=region,
                    gpu_count=count,
                    price_usd_per_hour=round(price, 6),
                    spot_price_usd_per_hour=None,
                    observed_at=observed,
                    vcpus=float(vcpus),
                    ram_gb=float(ram_gb),
                    disk_gb=float(DISK_GB),
                    availability=Availability.AVAILABLE,
                    available_count=max_count // count,
                    storage_usd_per_gb_month=round(disk_rate * 730, 4),
                    notes=notes,
                    extra={
                        "location_id": str(loc.get("id") or ""),
                        "tier": str(loc.get("tier") or ""),
                        "gpu_price_per_hr": f"{per_gpu:g}",
                        "dedicated_ip": str(
                            (entry.get("network_features") or {}).get("dedicated_ip_available", "")
                        ),
                    },
                )
            )
        return offers


def _capped(want: float, ceiling: Any) -> float:
    limit = positive(ceiling)
    return min(want, limit) if limit is not None else want


def _gpus(loc: Any) -> list[Any]:
    gpus = loc.get("gpus") if isinstance(loc, dict) else None
    return list(gpus) if isinstance(gpus, list) else [None]  # None: the parser names the missing field


def _ident(row: Any) -> str:
    loc, gpu = row
    where = loc.get("city") if isinstance(loc, dict) else None
    name = gpu.get("v0Name") if isinstance(gpu, dict) else None
    return f"{where}/{name}"
