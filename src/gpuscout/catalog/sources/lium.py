"""Lium (Bittensor subnet 51 GPU marketplace): ``GET https://lium.io/api/public/v1/nodes`` (no key).

* **Auth**: none. Documented at https://docs.lium.io/developers/public-nodes-feed ("fields are
  only ever added under /public/v1; breaking changes ship as /public/v2").
* **Fields**: ``generated_at`` (when the feed was built: the offers' observation time) and
  ``nodes[]`` with ``id`` (node uuid), ``gpu_model`` (free text from miners: "H200",
  "A100-SXM4-80GB", "RTX PRO 6000 Blackwell Server Edition"), ``gpu_count`` (node size),
  ``available_gpu_count``, ``min_rentable_gpu_count``, ``gpu_memory_gb``, ``price_per_gpu_hour``
  (USD), ``price_per_node_hour``, host ``cpu_count`` / ``ram_gb`` / ``disk_gb``, ``tier``
  (``secure`` or ``spot`` = interruptible), ``country_code``, ``region`` (ISO 3166-2 subdivision,
  ``MS``, ``13``), ``city``, ``rent_url``.
* **Offers**: per node, one per rentable GPU count: the minimum, what is free, and 1/2/4/8 in
  between (partial rentals are allowed between ``min_rentable_gpu_count`` and
  ``available_gpu_count``); price = count x ``price_per_gpu_hour``; vCPUs, RAM and disk are the
  count's proportional share of the host (gpuhunt's assumption). A ``spot`` node's price is a spot
  price (no on-demand price); a ``secure`` node's is on-demand. Every listed node is live stock
  (available, ``available_count`` = how many such rentals fit); a node with nothing free gives one
  unavailable offer at its minimum count.
* **Region**: ``<country>-<subdivision>`` (ISO 3166-2, ``US-MS``); the city is the zone.
* **Currency**: not stated in the body; USD per Lium's UI.

Traps (``lium.source.md``): memory is reported loosely (140 for a 141 GB H200: snapped to the
known size); many duplicate rows per GPU model (one per machine); an older endpoint
(``/api/executors``) has another shape whose ``pending_price_per_hour`` is a *future* price.

Test body: ``lium.json`` is ``RECORDED_FEED`` of gpuhunt's ``test_lium.py``, "recorded from
https://lium.io/api/public/v1/nodes on 2026-09-10 (trimmed to four nodes)": a recording kept as
another project's test fixture.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import NO_PRICE, envelope, field, now_utc, number, parse_rows, positive

NODES_URL = "https://lium.io/api/public/v1/nodes"
COUNTS = (1, 2, 4, 8)


def rental_counts(minimum: int, free: int) -> list[int]:
    """The GPU counts offered for a node: its minimum, what is free, and 1/2/4/8 in between."""
    if free < minimum:
        return [minimum]
    return sorted({minimum, free, *(c for c in COUNTS if minimum <= c <= free)})


class LiumSource(HttpSource):
    name = "lium"
    provider = "lium"
    endpoint = NODES_URL
    needs_credentials = ()

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        payload = await self.http(client).get_json(NODES_URL)
        nodes = envelope(payload, "nodes", self.name)
        observed = _generated_at(payload) or now_utc()
        return parse_rows(self, nodes, lambda n: self._offers(n, observed), lambda n: f"node {n.get('id')}")

    def _offers(self, node: dict[str, Any], observed: datetime) -> list[Offer]:
        where = "nodes[]"
        node_id = str(field(node, "id", where, str))
        size = int(number(node, "gpu_count", where))
        if size < 1:
            raise Unmatched("gpu_count < 1", "no GPU in the node")
        per_gpu = price_or_none(field(node, "price_per_gpu_hour", where))
        if per_gpu is None:
            raise Unmatched("no positive price_per_gpu_hour", NO_PRICE)
        gpu = match_gpu(str(field(node, "gpu_model", where, str)), positive(node.get("gpu_memory_gb")))
        free = int(node.get("available_gpu_count") or 0)
        minimum = max(1, int(node.get("min_rentable_gpu_count") or 1))
        spot = str(node.get("tier") or "").lower() == "spot"
        country, subdivision = node.get("country_code"), node.get("region")
        region = "-".join(str(x) for x in (country, subdivision) if x) or "unknown"
        offers = []
        for count in rental_counts(minimum, min(free, size)):
            fits = minimum <= count <= free
            share = count / size
            price = round(per_gpu * count, 6)
            notes = [f"{'spot (interruptible)' if spot else 'secure'} tier; per-GPU price x {count}"]
            if count < size:
                notes.append("host vCPUs, RAM and disk: the rental's proportional share")
            if gpu.note:
                notes.append(gpu.note)
            offers.append(
                self.gpu_offer(
                    gpu,
                    instance_type=f"{node_id}:{count}x",
                    region=region,
                    zone=str(node["city"]) if node.get("city") else None,
                    gpu_count=count,
                    price_usd_per_hour=None if spot else price,
                    spot_price_usd_per_hour=price if spot else None,
                    observed_at=observed,
                    vcpus=_share(node.get("cpu_count"), share),
                    ram_gb=_share(node.get("ram_gb"), share),
                    disk_gb=_share(node.get("disk_gb"), share),
                    availability=Availability.AVAILABLE if fits else Availability.UNAVAILABLE,
                    available_count=free // count if fits else 0,
                    notes="; ".join(notes),
                    extra={
                        "rent_url": str(node.get("rent_url") or ""),
                        "tier": str(node.get("tier") or ""),
                        "country": str(node.get("country") or ""),
                    },
                )
            )
        return offers


def _share(value: Any, share: float) -> float | None:
    total = positive(value)
    return None if total is None else round(total * share, 2)


def _generated_at(payload: Any) -> datetime | None:
    """The feed's ``generated_at`` (ISO 8601), if present and not in the future."""
    raw = payload.get("generated_at") if isinstance(payload, dict) else None
    if not isinstance(raw, str):
        return None
    try:
        when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return when if when <= datetime.now(UTC) else None
