"""Verda (ex-DataCrunch): OAuth client credentials, then ``GET /v1/instance-types``.

``POST https://api.datacrunch.io/v1/oauth2/token`` (``client_credentials`` with
``VERDA_CLIENT_ID`` / ``VERDA_CLIENT_SECRET``) gives a Bearer token. Instance types carry
``price_per_hour`` and ``spot_price`` as strings, per *instance*; ``gpu.description``
("1x H100 SXM5 80GB") names the GPU and ``gpu_memory.size_in_gigabytes`` is the total.

Availability: ``GET /v1/instance-availability`` lists, per location, the instance types that
can be deployed now; one offer per such location (available). A type listed nowhere gives one
offer in region ``any`` (unavailable). The availability path comes from the SDK as remembered
(verda_datacrunch.source.md, unverified): if that call fails, offers keep availability
``unknown`` and the failure is reported in ``warnings``, the prices still count.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from gpuscout.catalog.normalize import Unmatched, match_gpu, price_or_none
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import HttpSource
from gpuscout.catalog.sources.payload import field, now_utc, number, parse_rows, positive, require_price

API = "https://api.datacrunch.io/v1"
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
        types = await http.get_json(INSTANCE_TYPES_URL, headers=headers)
        if not isinstance(types, list):
            raise SourceError(self.name, f"instance-types answer is {type(types).__name__}, expected a list")
        where_available: dict[str, list[str]] | None = None
        try:
            where_available = _availability(await http.get_json(AVAILABILITY_URL, headers=headers))
        except SourceError as exc:
            self.warnings.append(f"availability unknown: {exc.reason}")
        observed = now_utc()
        return parse_rows(
            self,
            types,
            lambda t: self._offers(t, where_available, observed),
            lambda t: str(t.get("instance_type")),
        )

    def _offers(
        self, t: dict[str, Any], where_available: dict[str, list[str]] | None, observed: Any
    ) -> list[Offer]:
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
        if where_available is None:
            places = [("any", Availability.UNKNOWN)]
        else:
            locations = where_available.get(itype, [])
            places = [(loc, Availability.AVAILABLE) for loc in locations] or [
                ("any", Availability.UNAVAILABLE)
            ]
        currency = str(t.get("currency") or "usd").lower()
        if currency != "usd":
            raise Unmatched(f"price in {currency!r}, not USD")
        return [
            self.gpu_offer(
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
                notes="; ".join(
                    x for x in ("prices are dynamic (change several times a day)", gpu.note) if x
                ),
                extra={"p2p": str(t.get("p2p") or ""), "name": str(t.get("name") or "")},
            )
            for region, availability in places
        ]


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
