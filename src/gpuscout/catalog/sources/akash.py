"""Akash Network (decentralised marketplace): ``GET https://console-api.akash.network/v1/gpu-prices``.

* **Auth**: none (OpenAPI ``security: []``).
* **Fields**: top-level ``availability {total, available}`` (network GPUs) and ``models[]`` with
  ``vendor`` (``nvidia``), ``model`` (lower case: ``a100``, ``h100``), ``ram`` (``"80Gi"``; a bare
  number is MiB), ``interface`` (``SXM4`` / ``SXM5`` / ``PCIe``), ``availability {total,
  available}`` (GPUs of that SKU), ``providerAvailability`` (providers) and ``price {currency,
  min, max, avg, weightedAverage, med}``, **USD per GPU-hour statistics over providers' bids**, or
  ``null`` for a SKU nobody bids on. Production rows also carry ``priceUakt`` (the same in
  micro-AKT), not read.
* **It is a market summary, not a rentable offer**: on Akash a deployment is put out for bids and
  the lease price is the accepted bid, fixed for the lease (not interruptible). One offer per SKU,
  1 GPU, region ``global`` (per-provider regions only via ``/v1/providers``). Its price is
  ``weightedAverage`` (the figure Akash's own pricing page shows, labelled "Starting at"), falling
  back to ``med`` then ``avg``; ``min``..``max`` is in the notes and ``extra`` so a reader sees the
  spread (outliers are common: a single bid sets ``min``). Available when some GPUs of the SKU are
  free (``available_count`` = free GPUs), else unavailable.
* A SKU without a price (no bids) is excluded by design, not counted as an invalid row; a price
  in another currency than USD is invalid.

Test body: ``akash.json`` is the exact body asserted by the API owner's functional test
(akash-network/console ``gpu.spec.ts`` at 2f2bd573): real server code on a **seeded test
database** (models ``gpu0``…``gpu3``, RAM as MiB strings), so it shows the shape but not
production names or values; the tests add rows in the same shape from the live excerpt quoted in
``akash.source.md`` (A100 80Gi SXM4, 2026-07-17) and another project's test rows (H100 SXM5).
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from gpuscout.catalog.normalize import Excluded, Unmatched, gpu_memory_gb, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import NO_PRICE, MissingField, envelope, field, now_utc, parse_rows

GPU_PRICES_URL = "https://console-api.akash.network/v1/gpu-prices"
PRICE_STATS = ("weightedAverage", "med", "avg")
_RAM_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B?|[KMGT]B)?\s*$", re.IGNORECASE)
_UNIT = {"g": "GiB", "gi": "GiB", "gib": "GiB", "gb": "GB", "m": "MiB", "mi": "MiB", "mib": "MiB", "mb": "MB",
         "t": "TiB", "ti": "TiB", "tib": "TiB", "tb": "TB"}  # fmt: skip


def ram_gb(value: Any) -> float:
    """``"80Gi"`` -> 80; a bare number is MiB (``"4096"`` -> 4)."""
    m = _RAM_RE.match(str(value))
    if m is None:
        raise MissingField("models[].ram", "is not a memory size", "not a memory size")
    unit = _UNIT.get((m[2] or "mi").lower())
    if unit is None:
        raise MissingField("models[].ram", "has an unknown unit", "not a memory size")
    return gpu_memory_gb(float(m[1]), unit)


class AkashSource(HttpSource):
    name = "akash"
    provider = "akash"
    endpoint = GPU_PRICES_URL
    needs_credentials = ()

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        payload = await self.http(client).get_json(GPU_PRICES_URL)
        models = envelope(payload, "models", self.name)
        observed = now_utc()
        return parse_rows(self, models, lambda m: [self._offer(m, observed)], _ident)

    def _offer(self, row: dict[str, Any], observed: Any) -> Offer:
        where = "models[]"
        vendor = str(field(row, "vendor", where, str))
        model = str(field(row, "model", where, str))
        interface = str(row.get("interface") or "")
        memory = ram_gb(field(row, "ram", where))
        stats = row.get("price") if isinstance(row, dict) else None
        if stats is None:
            raise Excluded("no bids: price null")
        if not isinstance(stats, dict):
            raise MissingField(f"{where}.price", "is not an object")
        currency = str(stats.get("currency") or "USD").upper()
        if currency != "USD":
            raise Unmatched(f"price in {currency!r}, not USD", "price not in USD")
        price, stat = next(
            ((p, k) for k in PRICE_STATS if (p := price_or_none(stats.get(k))) is not None), (None, "")
        )
        if price is None:
            raise Unmatched("no positive weightedAverage / med / avg price", NO_PRICE)
        gpu = match_gpu(f"{model} {interface}".strip(), memory)
        free = (row.get("availability") or {}).get("available")
        free_gpus = int(free) if isinstance(free, int | float) and free >= 0 else None
        availability = Availability.UNKNOWN
        if free_gpus is not None:
            availability = Availability.AVAILABLE if free_gpus > 0 else Availability.UNAVAILABLE
        low, high = price_or_none(stats.get("min")), price_or_none(stats.get("max"))
        spread = (
            f"bids {low:g}-{high:g} USD/GPU-h" if low is not None and high is not None else "spread unknown"
        )
        notes = [
            f"market summary, not one offer: {stat} of providers' bids ({spread}); the lease price is "
            "the bid accepted for a deployment"
        ]
        if gpu.note:
            notes.append(gpu.note)
        extra = {k: f"{stats[k]:g}" for k in ("min", "max", "avg", "weightedAverage", "med")
                 if isinstance(stats.get(k), int | float)}  # fmt: skip
        providers = (row.get("providerAvailability") or {}).get("available")
        if providers is not None:
            extra["providers_available"] = str(providers)
        return self.gpu_offer(
            gpu,
            instance_type=f"{vendor}-{model}-{row.get('ram')}-{interface}".lower(),
            region="global",
            gpu_count=1,
            price_usd_per_hour=price,
            spot_price_usd_per_hour=None,
            observed_at=observed,
            availability=availability,
            available_count=free_gpus,
            notes="; ".join(notes),
            extra={**extra, "price_statistic": stat},
        )


def _ident(row: Any) -> str:
    return f"{row.get('vendor')} {row.get('model')} {row.get('ram')} {row.get('interface')}"
