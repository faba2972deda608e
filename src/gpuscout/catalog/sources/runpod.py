"""RunPod: the REST API v2 GPU catalogue, ``GET https://api.runpod.io/v2/catalog/gpus``.

RunPod is switching its GraphQL API off (staged rate limits from 2026-09-17, 410 Gone "early
2027"; REST v1 answers 410 from 2026-11-15), so this adapter reads only REST v2 (GA 2026-08-18).
GraphQL is not kept as a fallback: besides going away, its recorded live answer
(``runpod_graphql_gpuindex.json``) gives ``secureSpotPrice`` equal to ``securePrice`` on every
type, so its "spot" was not an interruptible price anyway.

* **Endpoint / auth**: two requests, ``?include=AVAILABILITY&product=POD&cloud=SECURE`` and
  ``cloud=COMMUNITY`` (availability needs both ``include`` and ``product``, else 400; it is
  scoped to one cloud, SECURE by default, and to one GPU). ``Authorization: Bearer
  $RUNPOD_API_KEY`` (OpenAPI ``bearerAuth``): without the key the source is skipped.
* **Fields**: ``id`` ("NVIDIA H100 80GB HBM3", the id used to create pods), ``name`` (display),
  ``memory`` GB per GPU, ``secure`` / ``community`` (offered on that cloud at all),
  ``price.secure`` / ``price.community`` **USD per GPU-hour**, ``maxCount.secure`` /
  ``maxCount.community`` (the largest pod: a ceiling, *not* stock), ``availability`` (NONE, LOW,
  MEDIUM, HIGH) and ``dataCenters[] {id, name, availability}``.
* **Offers**: one per (GPU type, cloud, GPU count in {1, maxCount}, data centre), named
  ``<count>x <id> (<cloud>)`` (``1x NVIDIA GeForce RTX 4090 (community)``: the two clouds' pods
  of one type differ in price and terms, and the name tells them apart in a table). An N-GPU pod
  costs N x the per-GPU price. Availability is what RunPod states for one GPU: HIGH/MEDIUM ->
  available, LOW -> limited, NONE -> unavailable; for a larger count it is unknown, except where
  not even one GPU is available (then unavailable). Region is the data-centre id (``US-KS-2``).
  With no ``dataCenters`` list, one offer in region ``any`` carries the type-wide availability.
* **No spot price**: the v2 catalogue states no interruptible price, so none is claimed.

Traps (``runpod_rest_v2.source.md``): the catalogue lists placeholder prices for a cloud where a
type is not offered, so ``secure`` / ``community`` false means no offer (not a drop); a price of
0 means "not offered", never free. Negotiated discounts are not reflected.

Test body: ``runpod_rest_v2.json`` is the **official example response** of ``listGpuTypes`` in
RunPod's OpenAPI 3.1 spec (runpod/docs at a900806e), a docs example with one item, not a live
capture; the tests vary it (more types, clouds, stock levels) in the same shape.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

from gpuscout.catalog.normalize import GpuMatch, Unmatched, match_gpu, per_instance, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import (
    NO_PRICE,
    envelope,
    field,
    now_utc,
    number,
    parse_rows,
)

GPUS_URL = "https://api.runpod.io/v2/catalog/gpus"
CLOUDS = ("secure", "community")

STOCK = {
    "high": Availability.AVAILABLE,
    "medium": Availability.AVAILABLE,
    "low": Availability.LIMITED,
    "none": Availability.UNAVAILABLE,
}


def query(cloud: str) -> dict[str, str]:
    return {"include": "AVAILABILITY", "product": "POD", "cloud": cloud.upper()}


def _stock(value: Any) -> Availability:
    return STOCK.get(str(value or "").lower(), Availability.UNKNOWN)


class RunPodSource(HttpSource):
    name = "runpod"
    provider = "runpod"
    endpoint = GPUS_URL
    needs_credentials = ("RUNPOD_API_KEY",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        key = self.credential("RUNPOD_API_KEY")
        http = self.http(client)
        observed = now_utc()
        offers: list[Offer] = []
        for cloud in CLOUDS:
            payload = await http.get_json(
                GPUS_URL, params=query(cloud), headers={"Authorization": f"Bearer {key}"}
            )
            types = envelope(payload, "gpus", self.name)
            parse = partial(self._offers, cloud=cloud, observed=observed)
            offers.extend(parse_rows(self, types, parse, _ident(cloud)))
        return offers

    def _offers(self, t: dict[str, Any], cloud: str, observed: Any) -> list[Offer]:
        where = "gpus[]"
        type_id = str(field(t, "id", where, str))
        if t.get(cloud) is False:
            return []  # not offered on this cloud (its listed price is a placeholder): not a drop
        prices = field(t, "price", where, dict)
        per_gpu = price_or_none(prices.get(cloud))
        if per_gpu is None:
            raise Unmatched(f"no positive price.{cloud}", NO_PRICE)
        gpu = self._match(t, where)
        ceiling = (t.get("maxCount") or {}).get(cloud) if isinstance(t.get("maxCount"), dict) else None
        counts = sorted({1, int(ceiling)}) if isinstance(ceiling, int) and ceiling >= 1 else [1]
        centres = [d for d in t.get("dataCenters") or [] if isinstance(d, dict) and d.get("id")]
        places = [(str(d["id"]), _stock(d.get("availability")), str(d.get("name") or "")) for d in centres]
        if not places:
            places = [("any", _stock(t.get("availability")), "")]
        offers = []
        for count in counts:
            for region, one_gpu, dc_name in places:
                if count == 1:
                    availability = one_gpu
                else:
                    known_none = one_gpu is Availability.UNAVAILABLE
                    availability = Availability.UNAVAILABLE if known_none else Availability.UNKNOWN
                notes = [f"{cloud} cloud; per-GPU price x {count}"]
                if count > 1:
                    notes.append("RunPod states stock for one GPU; a larger pod's availability is unknown")
                if gpu.note:
                    notes.append(gpu.note)
                offers.append(
                    self.gpu_offer(
                        gpu,
                        instance_type=f"{count}x {type_id} ({cloud})",
                        region=region,
                        gpu_count=count,
                        price_usd_per_hour=per_instance(per_gpu, count),
                        spot_price_usd_per_hour=None,
                        observed_at=observed,
                        availability=availability,
                        secure=cloud == "secure",
                        notes="; ".join(notes),
                        extra={
                            "display_name": str(t.get("name") or ""),
                            "cloud": cloud,
                            "data_center": dc_name,
                        },
                    )
                )
        return offers

    @staticmethod
    def _match(t: dict[str, Any], where: str) -> GpuMatch:
        memory = number(t, "memory", where)  # GB per GPU
        names = [t["id"], *([t["name"]] if t.get("name") else [])]
        last: Unmatched | None = None
        for candidate in names:
            try:
                return match_gpu(str(candidate), memory)
            except Unmatched as exc:
                last = exc
        assert last is not None
        raise last


def _ident(cloud: str) -> Callable[[Any], str]:
    return lambda t: f"{t.get('id')} ({cloud})"
