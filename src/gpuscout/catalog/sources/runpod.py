"""RunPod: GraphQL ``gpuTypes`` at ``https://api.runpod.io/graphql``.

Two queries (secure cloud, community cloud), each asking every GPU type's per-GPU prices and the
cloud's ``lowestPrice`` (stock status, available GPU counts). Decisions, documented:

* **Secure and community are separate offers** (``Offer.secure`` True / False), priced from
  ``securePrice`` / ``communityPrice`` and spot from ``secureSpotPrice`` / ``communitySpotPrice``;
  prices are **per GPU-hour**, so an N-GPU offer costs N x the per-GPU price.
* **GPU counts**: ``lowestPrice.availableGpuCounts`` when RunPod gives it; otherwise 1 and the
  cloud's maximum (``maxGpuCountSecureCloud`` / ``maxGpuCountCommunityCloud`` / ``maxGpuCount``).
* **Availability** from ``lowestPrice.stockStatus``: High / Medium -> available, Low -> limited,
  null -> unavailable (RunPod: "not deployable"); no ``stockStatus`` key at all -> unknown.
  A count outside ``availableGpuCounts`` is unavailable. ``maxUnreservedGpuCount`` is the count.
* **Memory**: ``memoryInGb`` is GB (RunPod's UI once printed "80 MiB" for it).
* **Region** is ``any``: the query asks RunPod's global lowest price, not per data centre.

Auth: gpuhunt reads these fields without a key (providers.md: unverified that this still
works); ``RUNPOD_API_KEY`` is sent as a Bearer token when set, so it is optional.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

from gpuscout.catalog.normalize import (
    GpuMatch,
    Unmatched,
    match_gpu,
    per_instance,
    price_or_none,
)
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import (
    MissingField,
    envelope,
    field,
    now_utc,
    number,
    parse_rows,
    require_price,
)

GRAPHQL_URL = "https://api.runpod.io/graphql"

GPU_TYPES_QUERY = """
query GpuTypes($lowestPriceInput: GpuLowestPriceInput, $gpuTypesInput: GpuTypeFilter) {
  gpuTypes(input: $gpuTypesInput) {
    id displayName memoryInGb maxGpuCount maxGpuCountSecureCloud maxGpuCountCommunityCloud
    secureCloud communityCloud securePrice communityPrice secureSpotPrice communitySpotPrice
    lowestPrice(input: $lowestPriceInput) {
      minimumBidPrice uninterruptablePrice minVcpu minMemory stockStatus
      maxUnreservedGpuCount availableGpuCounts
    }
  }
}
""".strip()

STOCK = {
    "high": Availability.AVAILABLE,
    "medium": Availability.AVAILABLE,
    "low": Availability.LIMITED,
}


def query_body(secure: bool) -> dict[str, Any]:
    return {
        "query": GPU_TYPES_QUERY,
        "variables": {
            "gpuTypesInput": {"cluster": False},
            "lowestPriceInput": {"gpuCount": 1, "secureCloud": secure},
        },
    }


class RunPodSource(HttpSource):
    name = "runpod"
    provider = "runpod"
    endpoint = GRAPHQL_URL
    needs_credentials = ()  # RUNPOD_API_KEY optional

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        http = self.http(client)
        headers = {}
        key = os.environ.get("RUNPOD_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        observed = now_utc()
        offers: list[Offer] = []
        for secure in (True, False):
            payload = await http.post_json(GRAPHQL_URL, query_body(secure), headers=headers)
            types = self._gpu_types(payload)
            parse: Callable[[Any], list[Offer]] = partial(self._offers, secure=secure, observed=observed)
            offers.extend(parse_rows(self, types, parse, _ident(secure)))
        return offers

    def _gpu_types(self, payload: Any) -> list[Any]:
        if isinstance(payload, dict) and payload.get("errors"):
            messages = "; ".join(str(e.get("message", e)) for e in payload["errors"] if isinstance(e, dict))
            raise SourceError(self.name, f"GraphQL errors: {messages or payload['errors']}")
        data = envelope(payload, "data", self.name, dict)
        types: list[Any] = envelope(data, "gpuTypes", self.name, list)
        return types

    def _offers(self, t: dict[str, Any], secure: bool, observed: Any) -> list[Offer]:
        type_id = field(t, "id", "gpuTypes[]", str)
        where = "gpuTypes[]"
        cloud = "secure" if secure else "community"
        if t.get(f"{cloud}Cloud") is False:
            return []  # not offered on this cloud: nothing to drop
        price_key = f"{cloud}Price"
        if price_key not in t:
            raise MissingField(f"{where}.{price_key}")
        per_gpu = price_or_none(t[price_key])
        per_gpu_spot = price_or_none(t.get(f"{cloud}SpotPrice"))
        require_price(per_gpu, per_gpu_spot)
        gpu = self._match(t, where)
        lowest = t.get("lowestPrice")
        stock_known = isinstance(lowest, dict) and "stockStatus" in lowest
        status = lowest.get("stockStatus") if isinstance(lowest, dict) else None
        availability = Availability.UNKNOWN
        if stock_known:
            availability = STOCK.get(str(status).lower(), Availability.UNAVAILABLE)
        counts_listed = lowest.get("availableGpuCounts") if isinstance(lowest, dict) else None
        counts = self._counts(t, cloud, counts_listed)
        unreserved = lowest.get("maxUnreservedGpuCount") if isinstance(lowest, dict) else None
        offers = []
        for count in counts:
            avail = availability
            if isinstance(counts_listed, list) and counts_listed and count not in counts_listed:
                avail = Availability.UNAVAILABLE
            notes = [f"{cloud} cloud; per-GPU price x {count}; region 'any' = RunPod's global lowest price"]
            if gpu.note:
                notes.append(gpu.note)
            if status:
                notes.append(f"stockStatus {status}")
            offers.append(
                self.gpu_offer(
                    gpu,
                    instance_type=f"{count}x {type_id}",
                    region="any",
                    gpu_count=count,
                    price_usd_per_hour=per_instance(per_gpu, count),
                    spot_price_usd_per_hour=per_instance(per_gpu_spot, count),
                    observed_at=observed,
                    vcpus=_opt(lowest, "minVcpu") if count == 1 else None,
                    ram_gb=_opt(lowest, "minMemory") if count == 1 else None,
                    availability=avail,
                    available_count=int(unreserved) if isinstance(unreserved, int) else None,
                    secure=secure,
                    notes="; ".join(notes),
                    extra={"display_name": str(t.get("displayName") or ""), "cloud": cloud},
                )
            )
        return offers

    def _match(self, t: dict[str, Any], where: str) -> GpuMatch:
        memory = number(t, "memoryInGb", where)  # GB despite RunPod's old "MiB" label
        names = [t["id"], *([t["displayName"]] if t.get("displayName") else [])]
        last: Unmatched | None = None
        for candidate in names:
            try:
                return match_gpu(str(candidate), memory)
            except Unmatched as exc:
                last = exc
        assert last is not None
        raise last

    @staticmethod
    def _counts(t: dict[str, Any], cloud: str, listed: Any) -> list[int]:
        if isinstance(listed, list) and listed and all(isinstance(c, int) and c > 0 for c in listed):
            return sorted(set(listed))
        maximum = t.get(f"maxGpuCount{cloud.capitalize()}Cloud") or t.get("maxGpuCount") or 1
        return sorted({1, int(maximum)})


def _opt(block: Any, key: str) -> float | None:
    if isinstance(block, dict) and isinstance(block.get(key), int | float) and block[key] > 0:
        return float(block[key])
    return None


def _ident(secure: bool) -> Callable[[Any], str]:
    cloud = "secure" if secure else "community"
    return lambda t: f"{t.get('id')} ({cloud})"
