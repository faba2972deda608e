"""Vast.ai marketplace: ``POST https://console.vast.ai/api/v0/bundles/`` (no key needed to search).

Each offer is one host's rentable GPUs, so every row is live stock (``available``). Units
(providers.md, vastai.source.md): ``dph_total`` USD/h for the whole offer (base + the default
disk's storage), ``min_bid`` the minimum interruptible bid USD/h, ``storage_cost`` USD per
GB-month, ``inet_up_cost`` / ``inet_down_cost`` USD per GB, ``gpu_ram`` / ``cpu_ram`` MB (in
fact MiB: 24576 for a 24 GB RTX 3090; 128556 for a 128 GiB host as the OS counts it, so host RAM
is MiB x 1.048576 / 1000 GB), ``disk_space`` GB. ``gpu_frac`` is the offer's share of the
machine's GPUs, not a GPU slice; vCPUs and RAM are the offer's share of the machine.
"""

from __future__ import annotations

from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, gpu_memory_gb, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.sources.base import nvlink_stated
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import envelope, field, now_utc, number, parse_rows, require_price

BUNDLES_URL = "https://console.vast.ai/api/v0/bundles/"
GB_PER_MIB = 1.048576e-3  # 2**20 / 10**9

# Every rentable, not rented offer; Vast returns 64 by default, so ask for many.
QUERY: dict[str, Any] = {
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "num_gpus": {"gte": 1},
    "type": "ondemand",
    "order": [["dph_total", "asc"]],
    "limit": 3000,
}


class VastAISource(HttpSource):
    name = "vastai"
    provider = "vastai"
    endpoint = BUNDLES_URL
    needs_credentials = ()

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        payload = await self.http(client).post_json(BUNDLES_URL, QUERY)
        rows = envelope(payload, "offers", self.name)
        observed = now_utc()
        return parse_rows(self, rows, lambda r: [self._offer(r, observed)], lambda r: f"offer {r.get('id')}")

    def _offer(self, row: dict[str, Any], observed: Any) -> Offer:
        offer_id = field(row, "id", "offers[]", (int, str))
        where = "offers[]"
        gpu_name = field(row, "gpu_name", where, str)
        count = int(number(row, "num_gpus", where))
        if count < 1:
            raise Unmatched("no GPU in the offer")
        per_gpu_gb = gpu_memory_gb(number(row, "gpu_ram", where), "MiB")
        gpu = match_gpu(gpu_name, per_gpu_gb)
        price = price_or_none(field(row, "dph_total", where))
        spot = price_or_none(row.get("min_bid"))
        require_price(price, spot)
        cores = row.get("cpu_cores") or 0
        effective = row.get("cpu_cores_effective")
        ram_gb = None
        if row.get("cpu_ram") and cores and effective:
            ram_gb = round(float(row["cpu_ram"]) * GB_PER_MIB * float(effective) / float(cores), 2)
        nvlink = row.get("bw_nvlink")
        interconnect, bridges = Interconnect.UNKNOWN, ""
        if isinstance(nvlink, int | float):
            # NVLink measured: the switched baseboard of SXM modules, or bridges between pairs of cards
            interconnect, bridges = nvlink_stated(gpu.accelerator) if nvlink > 0 else (Interconnect.PCIE, "")
        verification = str(row.get("verification") or "unknown")
        reliability = row.get("reliability2")
        notes = [f"marketplace host {row.get('host_id')}, {verification}"]
        if bridges and count > 1:
            notes.append(f"{bridges} (bw_nvlink {nvlink:g})")
        if isinstance(reliability, int | float):
            notes.append(f"reliability {reliability:.2%}")
        notes.append("price includes the default disk's storage (dph_total)")
        if gpu.note:
            notes.append(gpu.note)
        extra = {
            k: str(row[k])
            for k in (
                "machine_id",
                "host_id",
                "verification",
                "reliability2",
                "cuda_max_good",
                "inet_down_cost",
                "inet_up",
                "inet_down",
                "dlperf",
                "duration",
                "end_date",
            )
            if row.get(k) is not None
        }
        return self.gpu_offer(
            gpu,
            instance_type=f"offer-{offer_id}",
            region=str(row.get("geolocation") or "unknown"),
            gpu_count=count,
            price_usd_per_hour=price,
            spot_price_usd_per_hour=spot,
            observed_at=observed,
            vcpus=float(effective) if effective else None,
            ram_gb=ram_gb,
            disk_gb=float(row["disk_space"]) if row.get("disk_space") else None,
            interconnect=interconnect,
            availability=Availability.AVAILABLE,
            storage_usd_per_gb_month=price_or_none(row.get("storage_cost")),
            egress_usd_per_gb=_cost(row.get("inet_up_cost")),
            notes="; ".join(notes),
            extra=extra,
        )


def _cost(value: Any) -> float | None:
    """A per-GB cost where 0 is meaningful (free), unlike a price; missing/negative -> None."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None
