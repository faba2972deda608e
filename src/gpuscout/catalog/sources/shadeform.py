"""Shadeform (aggregator): ``GET https://api.shadeform.ai/v1/instances/types`` (``X-API-KEY``).

``hourly_price`` is US **cents** per instance-hour. ``configuration`` carries ``gpu_type``,
``num_gpus``, ``vcpus``, ``memory_in_gb``, ``storage_in_gb``, ``vram_per_gpu_in_gb`` and
``interconnect`` (field names as in skypilot's fetcher and three fixtures; an older collector
used ``num_cpus`` / ``ram_in_gb``, accepted as fallbacks). ``availability`` gives one boolean
per region: one offer each. The underlying cloud is kept in ``extra["cloud"]`` and in the
instance type (``lambda:A10Gx1``); the offer's provider is ``shadeform``, who bills it.
Needs ``SHADEFORM_API_KEY``.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, cents_to_usd, match_gpu
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.sources.base import nvlink_stated
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import (
    MissingField,
    envelope,
    field,
    now_utc,
    number,
    parse_rows,
    positive,
)

TYPES_URL = "https://api.shadeform.ai/v1/instances/types"


class ShadeformSource(HttpSource):
    name = "shadeform"
    provider = "shadeform"
    endpoint = TYPES_URL
    needs_credentials = ("SHADEFORM_API_KEY",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        key = self.credential("SHADEFORM_API_KEY")
        payload = await self.http(client).get_json(TYPES_URL, headers={"X-API-KEY": key})
        rows = envelope(payload, "instance_types", self.name)
        observed = now_utc()
        return parse_rows(self, rows, lambda r: self._offers(r, observed), _ident)

    @staticmethod
    def _configuration(row: dict[str, Any], shade_type: str) -> tuple[dict[str, Any], str]:
        """``configuration``, or (seen in one fixture) ``num_gpus`` at top level with the GPU named
        only by ``shade_instance_type`` ("H100_sxm5x8" -> H100 SXM5, 8 GPUs)."""
        where = "instance_types[]"
        if "configuration" in row or "num_gpus" not in row:
            return field(row, "configuration", where, dict), f"{where}.configuration"
        m = _SHADE_TYPE_RE.match(shade_type)
        if m is None:
            raise MissingField(f"{where}.configuration")
        return {"num_gpus": row["num_gpus"], "gpu_type": m["gpu"]}, where

    def _offers(self, row: dict[str, Any], observed: Any) -> list[Offer]:
        where = "instance_types[]"
        cloud = str(field(row, "cloud", where, str))
        shade_type = str(field(row, "shade_instance_type", where, str))
        price = cents_to_usd(field(row, "hourly_price", where))
        if price is None:
            raise Unmatched("no positive hourly_price")
        config, cw = self._configuration(row, shade_type)
        count = int(number(config, "num_gpus", cw))
        if count < 1:
            raise Unmatched("num_gpus < 1")
        gpu_type = str(field(config, "gpu_type", cw, str)).replace("_", " ")
        ic = str(config.get("interconnect") or "").lower()
        name = gpu_type
        if ic in ("pcie", "sxm") and ic not in gpu_type.lower():
            name = f"{gpu_type} {ic}"
        gpu = match_gpu(name, positive(config.get("vram_per_gpu_in_gb")))
        # the fabric the row states; else none is passed, and the offer takes its board's as every
        # source does (``gpu_offer``), its notes saying so where the board itself was assumed
        stated = _STATED_FABRICS.get(ic)
        fabric = {} if stated is None else {"interconnect": stated}
        bridges = ""
        if stated is Interconnect.NVLINK:  # a switched baseboard, or bridges between pairs of PCIe cards
            fabric["interconnect"], bridges = nvlink_stated(gpu.accelerator)
        regions = [a for a in row.get("availability") or [] if isinstance(a, dict) and a.get("region")]
        if not regions:
            regions = [{"region": "any", "available": False}]
        return [
            self.gpu_offer(
                gpu,
                instance_type=f"{cloud}:{shade_type}",
                region=str(a["region"]),
                gpu_count=count,
                price_usd_per_hour=price,
                spot_price_usd_per_hour=None,
                observed_at=observed,
                vcpus=positive(config.get("vcpus", config.get("num_cpus"))),
                ram_gb=positive(config.get("memory_in_gb", config.get("ram_in_gb"))),
                disk_gb=positive(config.get("storage_in_gb")),
                **fabric,
                availability=Availability.AVAILABLE
                if a.get("available") is True
                else Availability.UNAVAILABLE,
                notes="; ".join(x for x in (f"resold from {cloud}", gpu.note, bridges) if x),
                extra={
                    "cloud": cloud,
                    "cloud_instance_type": str(row.get("cloud_instance_type") or ""),
                    "region_name": str(a.get("display_name") or ""),
                    "deployment_type": str(row.get("deployment_type") or ""),
                },
            )
            for a in regions
        ]


#: ``configuration.interconnect`` values that state the GPUs' fabric.
_STATED_FABRICS = {"pcie": Interconnect.PCIE, "sxm": Interconnect.NVLINK, "nvlink": Interconnect.NVLINK}

_SHADE_TYPE_RE = re.compile(r"^(?P<gpu>.+?)x(?P<count>\d+)$")


def _ident(row: Any) -> str:
    return f"{row.get('cloud')}:{row.get('shade_instance_type')}"
