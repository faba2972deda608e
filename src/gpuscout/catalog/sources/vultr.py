"""Vultr: ``GET https://api.vultr.com/v2/plans?type=all`` and ``/v2/plans-metal`` (no key to list).

Cloud GPU plans (``type`` "vcg") carry ``gpu_type`` ("NVIDIA_A100") and ``gpu_vram_gb``: less
than the card's memory is a vGPU slice (marked ``fractional``, memory = the slice), a multiple of
it is that many whole GPUs. Bare-metal GPU plans have no GPU fields; the GPU comes from the id
(``vbm-112c-2048gb-8-h100-gpu``: 8x H100; an id ending in ``-gpu`` that this pattern cannot read
is dropped with the reason) and ``hourly_cost_preemptible`` is their spot price.
``ram`` is MiB (Vultr writes MB; 1024 is 1 GiB), ``bandwidth`` the included transfer in GB/month
(in ``extra``). One offer per listed location (the plan is deployable there: available); no
location -> region ``any``, unavailable. Pages are followed through ``meta.links.next`` cursors.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

import httpx

from gpuscout.catalog.normalize import GpuMatch, Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.http import HttpSource, cursor_next_page, paginate
from gpuscout.catalog.sources.payload import (
    envelope,
    field,
    now_utc,
    number,
    parse_rows,
    placements,
    positive,
    require_price,
)

API = "https://api.vultr.com/v2"
PLANS_URL = f"{API}/plans"
METAL_URL = f"{API}/plans-metal"
_METAL_GPU_RE = re.compile(r"-(?P<count>\d+)-(?P<gpu>[a-z0-9]+)-gpu$")


class VultrSource(HttpSource):
    name = "vultr"
    provider = "vultr"
    endpoint = PLANS_URL
    needs_credentials = ()  # VULTR_API_KEY optional

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        http = self.http(client)
        key = os.environ.get("VULTR_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else None
        observed = now_utc()
        offers: list[Offer] = []
        for url, params, list_key in (
            (PLANS_URL, {"type": "all", "per_page": 500}, "plans"),
            (METAL_URL, {"per_page": 500}, "plans_metal"),
        ):
            async for page in paginate(
                http, url, params=params, headers=headers, next_page=cursor_next_page(url, params)
            ):
                plans = envelope(page, list_key, self.name)
                offers.extend(
                    parse_rows(self, plans, lambda p: self._offers(p, observed), lambda p: str(p.get("id")))
                )
        return offers

    def _offers(self, plan: dict[str, Any], observed: Any) -> list[Offer]:
        plan_id = field(plan, "id", "plans[]", str)
        count, gpu = self._gpu(plan, plan_id)
        if gpu is None:
            return []  # CPU-only plan: not an offer, not a drop
        where = "plans[]"
        price = price_or_none(field(plan, "hourly_cost", where))
        spot = price_or_none(plan.get("hourly_cost_preemptible"))
        require_price(price, spot)
        ram_mb = positive(plan.get("ram"))
        disk = positive(plan.get("disk"))
        disk_count = int(plan.get("disk_count") or 1)
        extra = {
            "included_transfer_gb_month": str(plan.get("bandwidth", "")),
            "type": str(plan.get("type", "")),
        }
        return [
            self.gpu_offer(
                gpu,
                instance_type=plan_id,
                region=loc,
                gpu_count=count,
                price_usd_per_hour=price,
                spot_price_usd_per_hour=spot,
                observed_at=observed,
                vcpus=positive(plan.get("vcpu_count") or plan.get("cpu_threads")),
                ram_gb=round(ram_mb * 1.048576 / 1000, 2) if ram_mb else None,  # MiB (1024 = 1 GiB) to GB
                disk_gb=disk * disk_count if disk else None,
                availability=avail,
                notes=gpu.note,
                extra=extra,
            )
            for loc, avail in placements(plan.get("locations") or [])
        ]

    @staticmethod
    def _gpu(plan: dict[str, Any], plan_id: str) -> tuple[int, GpuMatch | None]:
        gpu_type = plan.get("gpu_type")
        if gpu_type:
            name = str(gpu_type).replace("NVIDIA_", "").replace("_", " ")
            vram = number(plan, "gpu_vram_gb", "plans[]")
            card = match_gpu(name)
            if vram < card.accelerator.memory_gb:
                return 1, match_gpu(name, vram, allow_fractional=True)
            count = max(1, math.floor(vram / card.accelerator.memory_gb + 0.01))
            if not math.isclose(count * card.accelerator.memory_gb, vram, rel_tol=0.06):
                raise Unmatched(f"gpu_vram_gb {vram:g} is not a whole number of {card.accelerator.name}")
            return count, match_gpu(name, vram / count)
        m = _METAL_GPU_RE.search(plan_id)
        if m is None:
            if plan_id.endswith("-gpu"):  # a GPU plan the pattern cannot read: said, never silent
                # invalid, not Excluded: a GPU offer the adapter cannot normalize (its GPU unknown),
                # which the validation gate counts against the feed (a share of all plans read)
                raise Unmatched(
                    f"bare-metal GPU plan id {plan_id!r} does not match the plan-id pattern "
                    "...-<count>-<gpu>-gpu",
                    "GPU plan id not understood",
                )
            return 0, None
        return int(m["count"]), match_gpu(m["gpu"])
