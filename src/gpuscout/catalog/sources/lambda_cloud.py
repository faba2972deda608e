"""Lambda Cloud: ``GET https://cloud.lambda.ai/api/v1/instance-types`` (Bearer ``LAMBDA_API_KEY``).

``data`` is a dict keyed by instance-type name; ``price_cents_per_hour`` is US cents per
*instance*-hour. Availability is ``regions_with_capacity_available``: one offer per region with
capacity (available); an empty list means sold out, giving one offer in region ``any`` marked
unavailable. Without ``LAMBDA_API_KEY`` the source reports "credentials missing" and is skipped.

The GPU comes from ``instance_type.description`` ("8x H100 (80 GB SXM5)") when present, else
from the instance name through :data:`LAMBDA_GPU_TOKENS` (Lambda names 80 GB A100s explicitly,
``gpu_8x_a100_80gb_sxm4``; a bare ``a100`` is the 40 GB PCIe card, but ``gpu_8x_a100`` the
40 GB SXM4 part: :data:`LAMBDA_INSTANCE_GPUS`). A description without the form
factor ("8x Tesla V100 (16 GB)") takes the name's token where there is one, else the default
variant, assumed and marked.

Host RAM and disk come as ``specs.memory_gib`` / ``specs.storage_gib`` (GiB, as named); an offer's
``ram_gb`` / ``disk_gb`` are GB, so each is multiplied by :data:`GB_PER_GIB` (220 GiB is 236.2 GB).
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from gpuscout.catalog.normalize import Excluded, GpuMatch, Unmatched, cents_to_usd, match_gpu
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import (
    MissingField,
    envelope,
    field,
    now_utc,
    number,
    parse_rows,
    placements,
    positive,
)

INSTANCE_TYPES_URL = "https://cloud.lambda.ai/api/v1/instance-types"
GB_PER_GIB = 1.073741824  # 2**30 / 10**9

# Instance-name GPU token -> a name the knowledge table resolves exactly. From Lambda's instance
# names as listed by its API / docs (lambda.source.md; gpuhunt lambdalabs.py).
LAMBDA_GPU_TOKENS: dict[str, str] = {
    "a100": "A100 PCIe 40GB",
    "a100_sxm4": "A100 SXM4 40GB",
    "a100_80gb_sxm4": "A100 SXM4 80GB",
    "a100_80gb_pcie": "A100 PCIe 80GB",
    "h100_pcie": "H100 PCIe",
    "h100_sxm5": "H100 SXM",
    "h200_sxm5": "H200 SXM",
    "b200_sxm6": "B200",
    "gh200": "GH200 96GB",
    "a10": "A10",
    "a6000": "RTX A6000",
    "v100": "V100 SXM2 16GB",
}

#: Instance names whose GPU is not their token's: Lambda's 8x A100 40GB is the SXM4 part on an NVLink
#: baseboard ("40 GB SXM4"), while its 1x/2x/4x ``a100`` are PCIe cards
#: (https://docs.lambda.ai/public-cloud/on-demand/, as the bundled snapshot's rules
#: lambda-a100-40gb-sxm4-stated and lambda-a100-40gb-is-pcie in data/snapshot/rules.yaml say).
LAMBDA_INSTANCE_GPUS: dict[str, str] = {"gpu_8x_a100": "A100 SXM4 40GB"}

_NAME_RE = re.compile(r"^gpu_(?P<count>\d+)x_(?P<gpu>.+)$")


def lambda_gpu_name(instance: str) -> str | None:
    """The GPU (a name the knowledge table resolves exactly) a Lambda instance name pins, or None:
    :data:`LAMBDA_INSTANCE_GPUS`, else the name's token through :data:`LAMBDA_GPU_TOKENS`."""
    if instance in LAMBDA_INSTANCE_GPUS:
        return LAMBDA_INSTANCE_GPUS[instance]
    m = _NAME_RE.match(instance)
    return LAMBDA_GPU_TOKENS.get(m["gpu"]) if m else None


_DESC_RE = re.compile(
    r"^(?P<count>\d+)x (?:Tesla |NVIDIA )?(?P<gpu>.+?) \((?P<mem>\d+) GB(?: (?P<form>[^)]+))?\)"
)


class LambdaSource(HttpSource):
    name = "lambda"
    provider = "lambda"
    endpoint = INSTANCE_TYPES_URL
    needs_credentials = ("LAMBDA_API_KEY",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        key = self.credential("LAMBDA_API_KEY")
        payload = await self.http(client).get_json(
            INSTANCE_TYPES_URL, headers={"Authorization": f"Bearer {key}"}
        )
        data = envelope(payload, "data", self.name, dict)
        observed = now_utc()
        return parse_rows(
            self,
            list(data.items()),
            lambda item: self._offers(item[0], item[1], observed),
            lambda item: str(item[0]),
        )

    def _offers(self, key: str, entry: Any, observed: Any) -> list[Offer]:
        itype = field(entry, "instance_type", "data{}", dict)
        name = str(itype.get("name") or key)
        where = "data{}.instance_type"
        price = cents_to_usd(field(itype, "price_cents_per_hour", where))
        specs = field(itype, "specs", where, dict)
        count = int(number(specs, "gpus", f"{where}.specs"))
        if count < 1:
            raise Excluded("CPU-only instance type")
        if price is None:
            raise Unmatched("no positive price_cents_per_hour", "no positive price")
        gpu = self._gpu(name, itype.get("description"))
        regions = field(entry, "regions_with_capacity_available", "data{}", list)
        notes = "capacity from regions_with_capacity_available" + (f"; {gpu.note}" if gpu.note else "")
        return [
            self.gpu_offer(
                gpu,
                instance_type=name,
                region=region,
                gpu_count=count,
                price_usd_per_hour=price,
                spot_price_usd_per_hour=None,
                observed_at=observed,
                vcpus=positive(specs.get("vcpus")),
                ram_gb=_gib_as_gb(specs.get("memory_gib")),
                disk_gb=_gib_as_gb(specs.get("storage_gib")),
                availability=availability,
                notes=notes if availability is Availability.AVAILABLE else "sold out: no region has capacity",
                extra={"architecture": str(itype.get("architecture") or "")},
            )
            for region, availability in placements(r.get("name") for r in regions if isinstance(r, dict))
        ]

    @staticmethod
    def _gpu(name: str, description: Any) -> GpuMatch:
        """The description's GPU where it states the variant; else the name's token where Lambda's
        names pin it (``gpu_8x_v100``); else the description's GPU with the default variant assumed
        (marked, as every source and the bundled snapshot mark it). A description that names no form
        factor ("8x Tesla V100 (16 GB)") is not a reason to drop the type."""
        named = lambda_gpu_name(name)
        if isinstance(description, str):
            d = _DESC_RE.match(description)
            if d:
                label = " ".join(x for x in (d["gpu"], d["form"]) if x)
                stated = match_gpu(label, float(d["mem"]))
                if stated.exact or named is None:
                    return stated
                pinned = match_gpu(named, allow_assumed=False)
                same = pinned.accelerator.memory_gb == stated.accelerator.memory_gb
                return pinned if same else stated
        if named is not None:
            return match_gpu(named, allow_assumed=False)
        m = _NAME_RE.match(name)
        if m is None:
            raise MissingField(
                "data{}.instance_type.description", "missing and the name is not gpu_<n>x_<gpu>"
            )
        raise Unmatched(f"unknown Lambda GPU token {m['gpu']!r} in {name!r}", "unknown GPU")


def _gib_as_gb(value: Any) -> float | None:
    """A positive GiB figure in GB (0.01 GB), anything else ``None``."""
    gib = positive(value)
    return round(gib * GB_PER_GIB, 2) if gib is not None else None
