"""DigitalOcean GPU Droplets: ``GET https://api.digitalocean.com/v2/sizes`` (Bearer token).

Only sizes with ``gpu_info`` are offers. ``gpu_info.vram.amount`` is the **total** across the
droplet's GPUs (640 GiB on an 8x H100), so per-GPU memory is amount / count. ``memory`` is
"MB" in binary units (1966080 for DigitalOcean's 1920 GiB droplet), so host RAM is
memory x 1.048576 / 1000 GB (2061.58); the local disk is ``disk_info`` (``size.unit`` ``gib``:
2046 GiB = 2196.88 GB), else ``disk``. ``transfer`` is the included TB/month (in ``extra``).
One offer per region in ``regions`` when ``available`` is true; an unavailable size or one with
no regions gives one offer in region ``any`` marked unavailable. Pages follow
``links.pages.next``. Needs ``DIGITALOCEAN_TOKEN``.
"""

from __future__ import annotations

from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, gpu_memory_gb, match_gpu, price_or_none
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.http import HttpSource, links_next_page, paginate
from gpuscout.catalog.sources.payload import (
    envelope,
    field,
    now_utc,
    number,
    parse_rows,
    placements,
    positive,
)

SIZES_URL = "https://api.digitalocean.com/v2/sizes"
GB_PER_GIB = 1.073741824  # 2**30 / 10**9
GB_PER_MIB = GB_PER_GIB / 1024


class DigitalOceanSource(HttpSource):
    name = "digitalocean"
    provider = "digitalocean"
    endpoint = SIZES_URL
    needs_credentials = ("DIGITALOCEAN_TOKEN",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        token = self.credential("DIGITALOCEAN_TOKEN")
        headers = {"Authorization": f"Bearer {token}"}
        observed = now_utc()
        offers: list[Offer] = []
        async for page in paginate(
            self.http(client), SIZES_URL, params={"per_page": 500}, headers=headers, next_page=links_next_page
        ):
            sizes = envelope(page, "sizes", self.name)
            offers.extend(
                parse_rows(self, sizes, lambda s: self._offers(s, observed), lambda s: str(s.get("slug")))
            )
        return offers

    def _offers(self, size: dict[str, Any], observed: Any) -> list[Offer]:
        slug = field(size, "slug", "sizes[]", str)
        info = size.get("gpu_info")
        if not info:
            return []  # CPU droplet
        where = "sizes[].gpu_info"
        count = int(number(info, "count", where))
        if count < 1:
            raise Unmatched("gpu_info.count < 1")
        vram = field(info, "vram", where, dict)
        total_gb = gpu_memory_gb(number(vram, "amount", f"{where}.vram"), str(vram.get("unit") or "gib"))
        model = (
            str(field(info, "model", where, str)).replace("nvidia_", "").replace("amd_", "").replace("_", " ")
        )
        gpu = match_gpu(model, total_gb / count)
        price = price_or_none(field(size, "price_hourly", "sizes[]"))
        if price is None:
            raise Unmatched("no positive price_hourly")
        regions = (size.get("regions") or []) if size.get("available", True) else []
        local = [d for d in size.get("disk_info") or [] if isinstance(d, dict) and d.get("type") == "local"]
        disk = _local_disk_gb(local[0]) if local else positive(size.get("disk"))
        mem_mib = positive(size.get("memory"))
        return [
            self.gpu_offer(
                gpu,
                instance_type=slug,
                region=region,
                gpu_count=count,
                price_usd_per_hour=price,
                spot_price_usd_per_hour=None,
                observed_at=observed,
                vcpus=positive(size.get("vcpus")),
                ram_gb=round(mem_mib * GB_PER_MIB, 2) if mem_mib else None,
                disk_gb=disk,
                availability=availability,
                notes=gpu.note,
                extra={
                    "included_transfer_tb_month": str(size.get("transfer", "")),
                    "price_monthly": str(size.get("price_monthly", "")),
                    "description": str(size.get("description", "")),
                },
            )
            for region, availability in placements(regions)
        ]


def _local_disk_gb(disk: dict[str, Any]) -> float | None:
    """The local disk in GB: ``size.amount`` in ``size.unit`` (``gib`` converted; GB as given)."""
    size = disk.get("size") or {}
    amount = positive(size.get("amount")) if isinstance(size, dict) else None
    if amount is None:
        return None
    unit = str(size.get("unit") or "gb").lower()
    return round(amount * GB_PER_GIB, 2) if unit == "gib" else amount
