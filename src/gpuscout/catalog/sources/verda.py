"""Verda (ex-DataCrunch): OAuth client credentials, then ``GET /v1/instance-types`` on ``api.verda.com``.

* **Host**: ``https://api.verda.com/v1``, the default of Verda's SDK and docs since the rename
  (the old ``api.datacrunch.io/v1`` serves the same OpenAPI, "Verda Cloud Public API", but is no
  longer the documented host).
* **Auth**: ``POST /v1/oauth2/token`` (``client_credentials`` with ``VERDA_CLIENT_ID`` /
  ``VERDA_CLIENT_SECRET``) gives a Bearer token (scope ``cloud-api-v1``).
* **Fields**: ``instance_type`` (``1H100.80S.30V``; leading integer = GPU count), ``gpu
  {description: "1x H100 SXM5 80GB", number_of_gpus}``, ``gpu_memory.size_in_gigabytes`` (**total**
  for the instance), ``price_per_hour`` and ``spot_price`` (**strings**, USD per instance-hour,
  asked for with ``?currency=usd``), ``currency``, ``cpu.number_of_cores``,
  ``memory.size_in_gigabytes``.
* **Availability**: ``GET /v1/instance-availability`` lists, per ``location_code`` (``FIN-01``…),
  the instance types deployable now on demand, and ``?is_spot=true`` the same for spot. One offer
  per (type, location listed in either), available, carrying only the prices whose capacity is
  listed there: on-demand availability follows the on-demand list alone, spot's the spot list (a
  spot-only location offers the spot price and no on-demand price; the on-demand price is named in
  the notes). A type listed nowhere gives one offer in region ``any`` with both prices
  (unavailable). If an availability call fails, the offers keep both prices with availability
  ``unknown`` and the failure is reported in ``warnings``.
* **Spot**: Verda sells spot instances (interruptible); ``spot_price`` is their price.

Traps (``verda_v1.source.md``): prices are strings and "dynamic" (they change several times a
day); newer fields (``dynamic_price``, ``max_dynamic_price``, serverless prices) are not read, as
no recorded body shows their meaning; AMD rows include CPU nodes (no GPU: not offers).

Test body: ``verda_v1.json`` is the ``raw_instance_types`` fixture of gpuhunt's
``test_verda.py`` (commented ``# verda.instance_types.get()``), a test fixture of another project
with old prices and anonymised ids, not a dated capture; the availability lists come from the same
project's fixtures (``verda_datacrunch.json``: the spot list, ``get_availabilities(is_spot=True)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from gpuscout.catalog.normalize import GpuMatch, Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import field, now_utc, number, parse_rows, positive, require_price

API = "https://api.verda.com/v1"
TOKEN_URL = f"{API}/oauth2/token"
INSTANCE_TYPES_URL = f"{API}/instance-types"
AVAILABILITY_URL = f"{API}/instance-availability"
_COUNT_RE = re.compile(r"^\s*\d+\s*x\s*", re.IGNORECASE)


class VerdaSource(HttpSource):
    name = "verda"
    provider = "verda"
    endpoint = INSTANCE_TYPES_URL
    needs_credentials = ("VERDA_CLIENT_ID", "VERDA_CLIENT_SECRET")

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        self.reset_report()
        self.require_credentials()
        http = self.http(client)
        token_payload = await http.post_json(
            TOKEN_URL,
            {
                "grant_type": "client_credentials",
                "client_id": self.credential("VERDA_CLIENT_ID"),
                "client_secret": self.credential("VERDA_CLIENT_SECRET"),
            },
        )
        token = token_payload.get("access_token") if isinstance(token_payload, dict) else None
        if not isinstance(token, str) or not token:
            raise SourceError(self.name, "OAuth answer has no 'access_token'")
        headers = {"Authorization": f"Bearer {token}"}
        types = await http.get_json(INSTANCE_TYPES_URL, params={"currency": "usd"}, headers=headers)
        if not isinstance(types, list):
            raise SourceError(self.name, f"instance-types answer is {type(types).__name__}, expected a list")
        stock: _Stock | None = None
        try:
            on_demand = _availability(await http.get_json(AVAILABILITY_URL, headers=headers))
            spot = _availability(
                await http.get_json(AVAILABILITY_URL, params={"is_spot": "true"}, headers=headers)
            )
            stock = _Stock(on_demand, spot)
        except SourceError as exc:
            self.warnings.append(f"availability unknown: {exc.reason}")
        observed = now_utc()
        return parse_rows(
            self,
            types,
            lambda t: self._offers(t, stock, observed),
            lambda t: str(t.get("instance_type")),
        )

    def _offers(self, t: dict[str, Any], stock: _Stock | None, observed: Any) -> list[Offer]:
        where = "instance_types[]"
        itype = str(field(t, "instance_type", where, str))
        gpu_block = field(t, "gpu", where, dict)
        count = int(number(gpu_block, "number_of_gpus", f"{where}.gpu"))
        if count < 1:
            return []  # CPU instance
        price = price_or_none(field(t, "price_per_hour", where))
        spot = price_or_none(t.get("spot_price"))
        require_price(price, spot)
        description = _COUNT_RE.sub("", str(field(gpu_block, "description", f"{where}.gpu", str)))
        total = positive((t.get("gpu_memory") or {}).get("size_in_gigabytes"))
        gpu = match_gpu(description, total / count if total else None)
        places = [("any", None)] if stock is None else stock.places(itype)
        currency = str(t.get("currency") or "usd").lower()
        if currency != "usd":
            raise Unmatched(f"price in {currency!r}, not USD")
        return [
            self._offer_at(t, itype, gpu, count, region, listed, price, spot, observed)
            for region, listed in places
        ]

    def _offer_at(
        self,
        t: dict[str, Any],
        itype: str,
        gpu: GpuMatch,
        count: int,
        region: str,
        listed: _Listed | None,
        price: float | None,
        spot: float | None,
        observed: Any,
    ) -> Offer:
        """The offer in one location: only the prices whose capacity is listed there, available; both
        prices, unavailable, where neither listed capacity has a price (``None``: availability unknown)."""
        notes = ["prices are dynamic (change several times a day)"]
        availability = Availability.UNKNOWN
        if listed is not None:
            od_price = price if listed.on_demand else None
            spot_price = spot if listed.spot else None
            if od_price is None and spot_price is None:
                availability = Availability.UNAVAILABLE
            else:
                availability = Availability.AVAILABLE
                if price is not None and od_price is None:
                    notes.append(f"only spot capacity listed here (on demand ${price:g}/h where listed)")
                if spot is not None and spot_price is None:
                    notes.append(f"no spot capacity listed here (spot ${spot:g}/h where listed)")
                price, spot = od_price, spot_price
        if gpu.note:
            notes.append(gpu.note)
        return self.gpu_offer(
            gpu,
            instance_type=itype,
            region=region,
            gpu_count=count,
            price_usd_per_hour=price,
            spot_price_usd_per_hour=spot,
            observed_at=observed,
            vcpus=positive((t.get("cpu") or {}).get("number_of_cores")),
            ram_gb=positive((t.get("memory") or {}).get("size_in_gigabytes")),
            availability=availability,
            notes="; ".join(notes),
            extra={"p2p": str(t.get("p2p") or ""), "name": str(t.get("name") or "")},
        )


@dataclass(frozen=True, slots=True)
class _Listed:
    """Which capacity a location lists for an instance type now: on demand, spot."""

    on_demand: bool
    spot: bool


@dataclass(frozen=True, slots=True)
class _Stock:
    """Where each instance type can be deployed now: on demand, and as spot."""

    on_demand: dict[str, list[str]]
    spot: dict[str, list[str]]

    def places(self, itype: str) -> list[tuple[str, _Listed]]:
        """Each location listing the type, with what it lists; ``any`` with nothing if none does."""
        on_demand, spot = self.on_demand.get(itype, []), self.spot.get(itype, [])
        locations = list(dict.fromkeys([*on_demand, *spot]))
        places = [(loc, _Listed(loc in on_demand, loc in spot)) for loc in locations]
        return places or [("any", _Listed(on_demand=False, spot=False))]


def _availability(payload: Any) -> dict[str, list[str]]:
    """``[{location_code, availabilities: [instance_type...]}]`` -> instance type -> locations."""
    if not isinstance(payload, list):
        raise SourceError("verda", f"availability answer is {type(payload).__name__}, expected a list")
    out: dict[str, list[str]] = {}
    for entry in payload:
        if not isinstance(entry, dict) or "location_code" not in entry:
            raise SourceError("verda", "availability entry without 'location_code'")
        for itype in entry.get("availabilities") or []:
            out.setdefault(str(itype), []).append(str(entry["location_code"]))
    return out
