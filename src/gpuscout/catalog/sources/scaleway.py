"""Scaleway GPU Instances: the Instance API's product catalogue, per zone, with stock (no key).

* **Endpoints**: ``GET https://api.scaleway.com/instance/v1/zones/{zone}/products/servers``
  (``per_page=100``, ``page=N`` until a short page) and ``.../products/servers/availability``
  (same paging), for each zone in :data:`ZONES`. No authentication for these two catalogue reads
  (the collector that recorded them sent no token).
* **Fields**: ``servers`` is a **name -> spec map** (``H100-SXM-8-80G``), not a list. ``gpu``
  (count per node; 0 on CPU types), ``gpu_info.gpu_name`` (``H100-SXM``, ``L40S``, ``B300-SXM``),
  ``gpu_info.gpu_memory`` in **bytes** per GPU (85899345920 = 80 GiB), ``ncpus``, ``ram`` bytes
  (a GiB multiple: 1030792151040 = 960 GiB, i.e. 1030.79 GB as an offer's ``ram_gb``),
  ``scratch_storage_max_size`` bytes (local scratch), ``hourly_price`` **EUR per node-hour, excl.
  VAT**, ``end_of_service``, ``mig_profile``. Availability: ``servers.<type>.availability`` is
  ``available`` (-> available), ``scarce`` (-> limited) or ``shortage`` (-> unavailable).
* **Currency**: the body does not state it; Scaleway's product catalogue (``scaleway.json``,
  ``retail_price.currency_code: EUR``) and pricing pages are in euros. Prices are converted to USD
  at :func:`gpuscout.catalog.currency.exchange_rate` ("EUR"), a dated reference rate the user can
  override (``GPUSCOUT_FX_EUR_USD``); the offer keeps the euro price and the rate used.
* **Traps** (``scaleway_instance.source.md``): ``monthly_price`` is exactly ``hourly_price`` x 730
  (a display figure, not a commitment tier: ignored); a non-null ``mig_profile`` would make the
  type a fractional slice, for which the node price divided by ``gpu`` is wrong (excluded until a
  sample shows one); zones differ in line-up, so each zone is its own region/zone pair. A zone
  that fails while others answer is reported in ``warnings``; if every zone fails, the source does.

Test body: ``scaleway_instance.json`` / ``scaleway_instance.availability.json`` are live
responses recorded by another project's collector (getcomputable/gpu-index test fixtures, zone
fr-par-2, verified live 2026-08-22 per its docstring; trimmed by their author to one page, values
unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

from gpuscout.catalog.currency import ExchangeRate, exchange_rate, stated_prices
from gpuscout.catalog.normalize import Excluded, Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import HttpFetcher, HttpSource
from gpuscout.catalog.sources.payload import NO_PRICE, envelope, field, now_utc, number, parse_rows, positive

API = "https://api.scaleway.com/instance/v1/zones"
ZONES = ("fr-par-1", "fr-par-2", "pl-waw-2")  # the zones with GPU Instances (source note)
PER_PAGE = 100
MAX_PAGES = 20
GIB = 1024**3

STOCK = {
    "available": Availability.AVAILABLE,
    "scarce": Availability.LIMITED,
    "shortage": Availability.UNAVAILABLE,
}


def servers_url(zone: str) -> str:
    return f"{API}/{zone}/products/servers"


def availability_url(zone: str) -> str:
    return f"{API}/{zone}/products/servers/availability"


class ScalewaySource(HttpSource):
    name = "scaleway"
    provider = "scaleway"
    endpoint = servers_url("{zone}")
    needs_credentials = ()
    zones: tuple[str, ...] = ZONES

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        rate = exchange_rate("EUR")
        http = self.http(client)
        observed = now_utc()
        offers: list[Offer] = []
        failures: list[SourceError] = []
        for zone in self.zones:
            try:
                servers = await self._pages(http, servers_url(zone))
            except SourceError as exc:
                failures.append(exc)
                continue
            try:
                stock = await self._pages(http, availability_url(zone))
            except SourceError as exc:
                self.warnings.append(f"{zone}: availability unknown: {exc.reason}")
                stock = None
            parse = partial(self._offers, zone=zone, stock=stock, rate=rate, observed=observed)
            offers.extend(parse_rows(self, list(servers.items()), parse, _ident(zone)))
        if failures and len(failures) == len(self.zones):
            raise failures[0]
        self.warnings.extend(f"zone failed: {exc.reason}" for exc in failures)
        return offers

    async def _pages(self, http: HttpFetcher, url: str) -> dict[str, Any]:
        """The ``servers`` map of every page (a page shorter than ``per_page``, or one that adds no
        new type because the server ignored ``page``, is the last)."""
        merged: dict[str, Any] = {}
        for page in range(1, MAX_PAGES + 1):
            payload = await http.get_json(url, params={"per_page": PER_PAGE, "page": page})
            servers = envelope(payload, "servers", self.name, dict)
            new = len(servers.keys() - merged.keys())
            merged.update(servers)
            if len(servers) < PER_PAGE or not new:
                return merged
        raise SourceError(self.name, f"more than {MAX_PAGES} pages from {url}; stopping")

    def _offers(
        self,
        item: tuple[str, Any],
        zone: str,
        stock: dict[str, Any] | None,
        rate: ExchangeRate,
        observed: Any,
    ) -> list[Offer]:
        itype, spec = item
        where = "servers{}"
        count = int(number(spec, "gpu", where))
        info = spec.get("gpu_info") if isinstance(spec, dict) else None
        if count < 1 or not info:
            return []  # a CPU type: not an offer, not a drop
        if spec.get("end_of_service") is True:
            raise Excluded("end of service")
        if spec.get("mig_profile"):
            raise Excluded("MIG slice (fractional GPU): not priced per GPU here")
        price_eur = price_or_none(field(spec, "hourly_price", where))
        if price_eur is None:
            raise Unmatched("no positive hourly_price", NO_PRICE)
        memory_gb = number(info, "gpu_memory", f"{where}.gpu_info") / GIB
        gpu = match_gpu(str(field(info, "gpu_name", f"{where}.gpu_info", str)).replace("-", " "), memory_gb)
        entry = (stock or {}).get(itype)
        state = entry.get("availability") if isinstance(entry, dict) else None
        availability = STOCK.get(str(state), Availability.UNKNOWN)
        ram = positive(spec.get("ram"))
        scratch = positive(spec.get("scratch_storage_max_size"))
        prices = stated_prices(rate, price_eur, None)
        notes = [f"EUR {price_eur:g}/h excl. VAT, {rate.note}"]
        if gpu.note:
            notes.append(gpu.note)
        return [
            self.gpu_offer(
                gpu,
                instance_type=itype,
                region=zone.rsplit("-", 1)[0],
                zone=zone,
                gpu_count=count,
                observed_at=observed,
                vcpus=positive(spec.get("ncpus")),
                ram_gb=round(ram / 1e9, 2) if ram else None,  # GB, as every offer's
                disk_gb=round(scratch / 1e9, 1) if scratch else None,
                availability=availability,
                notes="; ".join(notes),
                extra={**prices.extra, "availability": str(state or "unknown")},
                **prices.fields,
            )
        ]


def _ident(zone: str) -> Callable[[Any], str]:
    return lambda item: f"{zone}/{item[0]}"
