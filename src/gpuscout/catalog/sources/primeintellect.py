"""Prime Intellect (aggregator): ``GET https://api.primeintellect.ai/api/v1/availability/gpus``.

* **Auth**: ``Authorization: Bearer $PRIME_INTELLECT_API_KEY`` (a key with the "Availability ->
  Read" permission); without it the source is skipped.
* **Envelope**: a paginated list, ``items`` + ``totalCount`` (``total`` accepted), asked for with
  ``page`` (from 1) and ``page_size`` (at most 100) until every item is read. An older docs
  version answered a map keyed by GPU type (``{"H100_80GB": [...]}``), also accepted.
* **Fields** per offer: ``cloudId`` (the upstream SKU, ``n3-H100x1``), ``provider`` (the
  upstream cloud: hyperstack, runpod, ...), ``dataCenter`` (``CANADA-1``), ``country``,
  ``gpuType`` (``H100_80GB``), ``socket`` (``PCIe`` / ``SXM5``...), ``gpuMemory`` GB (per GPU,
  or the box total: both readings are accepted, see :func:`_match`), ``gpuCount``,
  ``prices {onDemand, communityPrice, isVariable, currency}`` **per offer per hour**,
  ``stockStatus`` (Available, High, Medium, Low...; case, space and underscore ignored),
  ``security`` (``secure_cloud`` / ``community_cloud``), ``isSpot``, ``prepaidTime``, and
  ``vcpu`` / ``memory`` / ``disk`` ``.defaultCount``.
* **Offers**: provider ``primeintellect`` (who bills), the upstream cloud in the instance type as its
  gpuscout provider id (``hyperstack:n3-H100x1``; ``lambdalabs`` -> ``lambda``, ``datacrunch`` ->
  ``verda``), as PI names it in ``extra["upstream_provider"]``; linked as the bundled snapshot
  links its resales (``extra["resale_of"]`` ``hyperstack/n3-H100x1``, noted "resale of hyperstack
  n3-H100x1"). The same capacity is often listed directly by that cloud: where a current live
  first-party offer has that instance type, region, GPU count and on-demand price (to the cent),
  every read of the catalog leaves the resale out and the first-party row names ``primeintellect``
  in ``also_listed_by`` (:func:`gpuscout.catalog.query.resale_terms`, as the snapshot's rule
  ``resale-priced-apart`` merges only same-price resales); a resale at another price is another
  route and stays, noted as a resale.
  ``isSpot`` offers carry a spot price only. An offer with ``prepaidTime`` is a prepaid term, not
  an hourly offer: excluded. A price in EUR is converted at the stated rate
  (:mod:`gpuscout.catalog.currency`); another currency is invalid.

Test body: ``primeintellect.json`` is **one complete offer object from the official docs
example** (docs.primeintellect.ai "provision-gpu": Hyperstack H100 PCIe in CANADA-1, $1.90/h),
not a live capture; the envelope is not part of that example, so the tests wrap it as the docs
page describes (``items`` + total).
"""

from __future__ import annotations

from typing import Any

import httpx

from gpuscout.catalog.currency import exchange_rate, stated_prices
from gpuscout.catalog.normalize import Excluded, GpuMatch, Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import NO_PRICE, field, now_utc, number, parse_rows, positive
from gpuscout.knowledge.providers import canonical_provider

AVAILABILITY_URL = "https://api.primeintellect.ai/api/v1/availability/gpus"
PAGE_SIZE = 100
MAX_PAGES = 100

#: ``stockStatus`` -> availability, keyed by :func:`stock_key`. ``Available``, ``High`` and ``Low``
#: are the spellings ``primeintellect.source.md`` shows; the others were added with the adapter
#: (commit b4ca587) without a recorded source. An unlisted status is unknown, never guessed.
STOCK = {
    "available": Availability.AVAILABLE,
    "high": Availability.AVAILABLE,
    "medium": Availability.AVAILABLE,
    "low": Availability.LIMITED,
    "unavailable": Availability.UNAVAILABLE,
    "out_of_stock": Availability.UNAVAILABLE,
}


def stock_key(status: str) -> str:
    """A ``stockStatus`` as :data:`STOCK` keys it: lower case, words joined by one underscore
    (``"Out of Stock"``, ``"out_of_stock"`` and ``" OUT OF STOCK "`` read alike). Only case, space and
    underscore are normalised: no other spelling is guessed."""
    return "_".join(status.lower().replace("_", " ").split())


class PrimeIntellectSource(HttpSource):
    name = "primeintellect"
    provider = "primeintellect"
    endpoint = AVAILABILITY_URL
    needs_credentials = ("PRIME_INTELLECT_API_KEY",)

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        key = self.credential("PRIME_INTELLECT_API_KEY")
        http = self.http(client)
        headers = {"Authorization": f"Bearer {key}"}
        items: list[Any] = []
        for page in range(1, MAX_PAGES + 1):
            payload = await http.get_json(
                AVAILABILITY_URL, params={"page": page, "page_size": PAGE_SIZE}, headers=headers
            )
            rows, total = self._page(payload)
            items.extend(rows)
            if total is None or not rows or len(items) >= total:
                break
        else:
            raise SourceError(self.name, f"more than {MAX_PAGES} pages from {AVAILABILITY_URL}; stopping")
        observed = now_utc()
        return parse_rows(self, items, lambda r: [self._offer(r, observed)], _ident)

    def _page(self, payload: Any) -> tuple[list[Any], int | None]:
        if isinstance(payload, dict) and isinstance(payload.get("items"), list):
            total = payload.get("totalCount", payload.get("total"))
            return payload["items"], int(total) if isinstance(total, int | float) else None
        if isinstance(payload, dict) and payload and all(isinstance(v, list) for v in payload.values()):
            return [row for rows in payload.values() for row in rows], None  # the older map by GPU type
        shape = (
            ", ".join(sorted(map(str, payload))[:8]) if isinstance(payload, dict) else type(payload).__name__
        )
        raise SourceError(self.name, f"schema change: no 'items' list in the answer ({shape})")

    def _offer(self, row: dict[str, Any], observed: Any) -> Offer:
        where = "items[]"
        cloud_id = str(field(row, "cloudId", where, str))
        upstream = str(row.get("provider") or "unknown")
        upstream_id = canonical_provider(upstream) or upstream.strip().lower()
        if row.get("prepaidTime"):
            raise Excluded("prepaid term, not an hourly offer")
        count = int(number(row, "gpuCount", where))
        if count < 1:
            raise Unmatched("gpuCount < 1", "no GPU in the offer")
        prices = field(row, "prices", where, dict)
        price = price_or_none(prices.get("onDemand"))
        if price is None:
            price = price_or_none(prices.get("communityPrice"))
        if price is None:
            raise Unmatched("no positive prices.onDemand", NO_PRICE)
        currency = str(prices.get("currency") or "USD").upper()
        rate = exchange_rate(currency) if currency in ("USD", "EUR") else None
        if rate is None:
            raise Unmatched(f"price in {currency!r}", "price not in USD or EUR")
        gpu_type = str(field(row, "gpuType", where, str)).replace("_", " ")
        socket = str(row.get("socket") or "")
        name = f"{gpu_type} {socket}" if socket and socket.lower() not in gpu_type.lower() else gpu_type
        gpu = _match(name, positive(row.get("gpuMemory")), count)
        spot = row.get("isSpot") is True
        stated = stated_prices(rate, None if spot else price, price if spot else None)
        status = str(row.get("stockStatus") or "")
        security = str(row.get("security") or "")
        resold = f"resold from {upstream} (resale of {upstream_id} {cloud_id})"
        notes = [resold + ("; spot (interruptible)" if spot else "")]
        if prices.get("isVariable"):
            notes.append("variable price")
        if currency != "USD":
            notes.append(rate.note)
        if gpu.note:
            notes.append(gpu.note)
        extra = {
            "upstream_provider": upstream,
            "resale_of": f"{upstream_id}/{cloud_id}",  # as the bundled snapshot links a resale
            "cloud_id": cloud_id,
            "country": str(row.get("country") or ""),
            "stock_status": status,
            "security": security,
        }
        extra.update(stated.extra)
        return self.gpu_offer(
            gpu,
            instance_type=f"{upstream_id}:{cloud_id}",
            region=str(row.get("dataCenter") or row.get("country") or "unknown"),
            gpu_count=count,
            observed_at=observed,
            vcpus=positive(_default(row, "vcpu")),
            ram_gb=positive(_default(row, "memory")),
            disk_gb=positive(_default(row, "disk")),
            availability=STOCK.get(stock_key(status), Availability.UNKNOWN),
            secure={"secure_cloud": True, "community_cloud": False}.get(security),
            notes="; ".join(notes),
            extra=extra,
            **stated.fields,
        )


def _match(name: str, memory: float | None, count: int) -> GpuMatch:
    """The GPU, reading ``gpuMemory`` per GPU or, where only that agrees with the named GPU, as the
    box total. The docs example has one GPU, so it cannot tell; the data audit (2026-12, section 5.2)
    reads SkyPilot's Prime Intellect fetcher as taking it for the total (inferred, not read in a
    recorded multi-GPU body). Per GPU is tried first; a figure neither reading fits still drops."""
    try:
        return match_gpu(name, memory)
    except Unmatched as per_gpu:
        if memory is None or count < 2:
            raise
        try:
            return match_gpu(name, memory / count)
        except Unmatched:
            raise per_gpu from None


def _default(row: dict[str, Any], key: str) -> Any:
    block = row.get(key)
    return block.get("defaultCount") if isinstance(block, dict) else None


def _ident(row: Any) -> str:
    return f"{row.get('provider')}:{row.get('cloudId')} {row.get('dataCenter')}"
