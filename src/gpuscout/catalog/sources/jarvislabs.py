"""Jarvislabs: ``GET https://backendn.jarvislabs.net/misc/server_meta`` (Bearer ``JL_API_KEY``).

* **Auth**: ``Authorization: Bearer $JL_API_KEY``; without it the source is skipped. The path has
  no ``/v1`` prefix; the regional hosts (``backendn.`` Noida, ``backendc.`` Chennai, ``backendeu.``)
  are those of the official SDK's ``REGION_URLS``. One host is read: it lists every region.
* **Fields**: ``server_meta[]`` with ``gpu_type`` (``L4``, ``A100-80GB``, ``H100``, ``RTX-PRO6000``,
  also spaced variants), ``region`` (``india-noida-01``, ``europe-01``), ``vram`` (**string**, GB),
  ``price_per_hour`` and ``spot_price`` (**USD per GPU-hour**, linear in the GPU count; spot is for
  containers and absent in europe-01), ``num_gpus`` (string: most GPUs per instance),
  ``effective_num_free_devices`` (what the SDK admits on-demand rentals on),
  ``spot_num_free_devices``, ``cpus_per_gpu``, ``ram_per_gpu`` and ``workload_type`` (``vm``,
  ``container`` or null on older rows: the same GPU appears once per kind). ``cpu_meta`` (CPU-only
  VMs) is not read.
* **Offers**: one per (row, GPU count in {1, ``num_gpus``}); instance type
  ``<kind>:<gpu_type>:<n>x``. Spot (interruptible) where ``spot_price`` is given, on ``container``
  rows only: spot is sold for containers (``jarvislabs.source.md``), so a ``vm`` row's
  ``spot_price`` (the feed copies it there) is not offered as the VM's.
* **Availability**: each price follows its own stock: on demand ``effective_num_free_devices``,
  spot ``spot_num_free_devices``. The offer carries the prices whose free count covers the GPU
  count, available (``available_count`` from the on-demand count, or the spot count when only spot
  fits); where neither fits it keeps both prices, unavailable. A row without
  ``spot_num_free_devices`` (not stated) keeps its spot price beside the on-demand one, as
  before, with the on-demand availability.

Traps (``jarvislabs.source.md``): numbers arrive as strings; ``price_per_week`` /
``price_per_month`` are incoherent and never used; backends disagree (europe-01 H200 3.80 on
``backendeu`` vs 3.99 on the India hosts); INR accounts exist: a row whose ``currency`` is not USD
is invalid. Disk ($0.00014/GB-h) is extra and not in the price.

Test body: ``jarvislabs.json`` is ``SERVER_META_RESPONSE`` of gpuhunt's ``test_jarvislabs.py``, a
**test fixture, partly synthetic** (its ``unknown-region`` row is a test invention; the others
carry the real field set and values matching a live read of 2026-08-17).
"""

from __future__ import annotations

from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, match_gpu, per_instance, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import NO_PRICE, envelope, field, now_utc, parse_rows, positive
from gpuscout.wording import plural

SERVER_META_URL = "https://backendn.jarvislabs.net/misc/server_meta"
#: The workload types Jarvislabs sells spot (interruptible) capacity for: containers only.
SPOT_KINDS = frozenset({"container"})


class JarvislabsSource(HttpSource):
    name = "jarvislabs"
    provider = "jarvislabs"
    endpoint = SERVER_META_URL
    needs_credentials = ("JL_API_KEY",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        key = self.credential("JL_API_KEY")
        payload = await self.http(client).get_json(
            SERVER_META_URL, headers={"Authorization": f"Bearer {key}"}
        )
        rows = envelope(payload, "server_meta", self.name)
        observed = now_utc()
        return parse_rows(self, rows, lambda r: self._offers(r, observed), _ident)

    def _offers(self, row: dict[str, Any], observed: Any) -> list[Offer]:
        where = "server_meta[]"
        gpu_type = str(field(row, "gpu_type", where, str))
        region = str(field(row, "region", where, str))
        kind = str(row.get("workload_type") or "vm")
        per_gpu = price_or_none(field(row, "price_per_hour", where))
        # spot is sold for containers only (jarvislabs.source.md): a VM row's spot_price is not its own
        spot_per_gpu = price_or_none(row.get("spot_price")) if kind in SPOT_KINDS else None
        if per_gpu is None and spot_per_gpu is None:
            raise Unmatched("no positive price_per_hour or spot_price", NO_PRICE)
        currency = str(row.get("currency") or "USD").upper()
        if currency != "USD":
            raise Unmatched(f"price in {currency!r}, not USD", "price not in USD")
        gpu = match_gpu(gpu_type.replace("-", " "), positive(_num(row.get("vram"))))
        most = int(_num(row.get("num_gpus")) or 1)
        free = int(_num(row.get("effective_num_free_devices", row.get("num_free_devices"))) or 0)
        spot_stated = _num(row.get("spot_num_free_devices"))
        spot_free = int(spot_stated or 0)
        spot_said = str(spot_free) if spot_stated is not None else ""  # "" not stated ("0": none free)
        cpus = positive(_num(row.get("cpus_per_gpu")))
        ram = positive(_num(row.get("ram_per_gpu")))
        offers = []
        for count in sorted({1, max(1, most)}):
            # each price follows its own stock (an unstated spot count: the on-demand one, as before)
            od = per_gpu if free >= count else None
            spot = spot_per_gpu if (spot_free if spot_stated is not None else free) >= count else None
            notes = [f"{kind}; per-GPU price x {count}; disk extra"]
            if spot_per_gpu is not None:
                stock = (
                    f"{spot_free} {plural(spot_free, 'GPU')} free"
                    if spot_stated is not None
                    else "free count not stated"
                )
                notes.append(f"spot (interruptible): {stock}")
            if od is None and spot is None:  # nothing free: both prices, unavailable
                od, spot, availability, left = per_gpu, spot_per_gpu, Availability.UNAVAILABLE, 0
            else:
                availability = Availability.AVAILABLE
                left = (spot_free if od is None and spot_stated is not None else free) // count
            if gpu.note:
                notes.append(gpu.note)
            offers.append(
                self.gpu_offer(
                    gpu,
                    instance_type=f"{kind}:{gpu_type}:{count}x",
                    region=region,
                    gpu_count=count,
                    price_usd_per_hour=per_instance(od, count),
                    spot_price_usd_per_hour=per_instance(spot, count),
                    observed_at=observed,
                    vcpus=cpus * count if cpus else None,
                    ram_gb=ram * count if ram else None,
                    availability=availability,
                    available_count=left,
                    notes="; ".join(notes),
                    extra={"workload_type": kind, "spot_free": spot_said},
                )
            )
        return offers


def _num(value: Any) -> float | None:
    """A number that may arrive as a string (``"24"``); anything else -> None."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _ident(row: Any) -> str:
    return f"{row.get('workload_type')}:{row.get('gpu_type')} {row.get('region')}"
