"""Scaleway adapter against the recorded fr-par-2 server catalogue and its availability page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.currency import DEFAULT_RATES
from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.refresh import refresh
from gpuscout.catalog.sources import scaleway
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.scaleway import ScalewaySource, availability_url, servers_url
from gpuscout.errors import InvalidInputError
from tests.catalog.helpers import temp_store
from tests.catalog.sources.samples import by_type, fetch, sample

EUR = DEFAULT_RATES["EUR"].usd_per_unit


def servers() -> dict[str, Any]:
    return sample("scaleway_instance")


def stock() -> dict[str, Any]:
    return sample("scaleway_instance.availability")


def mock_zone(zone: str, body: dict[str, Any] | None = None, avail: dict[str, Any] | None = None) -> None:
    respx.get(servers_url(zone)).mock(return_value=httpx.Response(200, json=body or servers()))
    respx.get(availability_url(zone)).mock(return_value=httpx.Response(200, json=avail or stock()))


def one_zone() -> ScalewaySource:
    source = ScalewaySource()
    source.zones = ("fr-par-2",)
    return source


@respx.mock
def test_the_recorded_catalogue_field_by_field() -> None:
    mock_zone("fr-par-2")
    source = one_zone()
    offers = by_type(fetch(source))
    assert len(offers) == 16 and source.dropped == []  # 18 types, 2 CPU-only: neither offers nor drops
    h100 = offers["H100-SXM-8-80G"]
    assert (h100.accelerator, h100.gpu_count, h100.gpu_memory_gb) == ("H100-SXM", 8, 80)
    assert (h100.region, h100.zone) == ("fr-par", "fr-par-2")
    assert h100.original_currency == "EUR" and h100.original_price_per_hour == 25.3308
    assert h100.original_spot_price_per_hour is None and not h100.price_is_interruptible
    assert h100.price_usd_per_hour == pytest.approx(25.3308 * EUR)
    assert h100.spot_price_usd_per_hour is None
    assert h100.availability is Availability.AVAILABLE
    assert (h100.vcpus, h100.ram_gb) == (128, 1030.79)  # ram 960 GiB in bytes, in GB
    assert h100.interconnect is Interconnect.NVLINK
    assert "converted from EUR" in h100.notes and "GPUSCOUT_FX_EUR_USD" in h100.notes
    pcie = offers["H100-1-80G"]
    assert pcie.accelerator == "H100-PCIe" and pcie.price_usd_per_hour == pytest.approx(2.8665 * EUR)
    b300 = offers["B300-SXM-2-288G"]
    assert (b300.accelerator, b300.gpu_memory_gb) == ("B300", 288)  # 309237645312 bytes = 288 GiB
    assert b300.availability is Availability.UNAVAILABLE  # "shortage"
    assert offers["L4-1-24G"].accelerator == "L4"
    assert offers["L40S-4-48G"].availability is Availability.UNAVAILABLE


@respx.mock
def test_scarce_is_limited_and_a_type_missing_from_the_stock_page_is_unknown() -> None:
    avail = stock()
    avail["servers"]["L4-1-24G"] = {"availability": "scarce"}
    del avail["servers"]["L40S-1-48G"]
    mock_zone("fr-par-2", avail=avail)
    offers = by_type(fetch(one_zone()))
    assert offers["L4-1-24G"].availability is Availability.LIMITED
    assert offers["L40S-1-48G"].availability is Availability.UNKNOWN


@respx.mock
def test_the_euro_rate_can_be_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUSCOUT_FX_EUR_USD", "1.25")
    mock_zone("fr-par-2")
    h100 = by_type(fetch(one_zone()))["H100-1-80G"]
    assert h100.price_usd_per_hour == pytest.approx(2.8665 * 1.25)
    assert h100.extra["usd_per_unit"] == "1.25" and h100.extra["rate_as_of"] == "set by the user"
    monkeypatch.setenv("GPUSCOUT_FX_EUR_USD", "-3")
    with pytest.raises(InvalidInputError, match="GPUSCOUT_FX_EUR_USD"):
        fetch(one_zone())


@respx.mock
def test_every_zone_is_queried_and_one_failing_zone_is_a_warning() -> None:
    mock_zone("fr-par-1")
    mock_zone("fr-par-2")
    respx.get(servers_url("pl-waw-2")).mock(return_value=httpx.Response(404, json={"message": "zone"}))
    source = ScalewaySource()
    offers = fetch(source)
    assert {o.zone for o in offers} == {"fr-par-1", "fr-par-2"}
    assert any("pl-waw-2" in w for w in source.warnings)


@respx.mock
def test_every_zone_failing_fails_the_source() -> None:
    for zone in scaleway.ZONES:
        respx.get(servers_url(zone)).mock(return_value=httpx.Response(404, json={}))
    with pytest.raises(SourceError, match="HTTP 404"):
        fetch(ScalewaySource())


@respx.mock
def test_pages_are_followed_until_a_short_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scaleway, "PER_PAGE", 10)
    items = list(servers()["servers"].items())
    route = respx.get(servers_url("fr-par-2"))
    route.side_effect = [
        httpx.Response(200, json={"servers": dict(items[:10])}),
        httpx.Response(200, json={"servers": dict(items[10:])}),
    ]
    respx.get(availability_url("fr-par-2")).mock(return_value=httpx.Response(200, json=stock()))
    assert len(fetch(one_zone())) == 16
    assert [c.request.url.params["page"] for c in route.calls] == ["1", "2"]


@respx.mock
def test_bad_rows_are_dropped_with_reasons() -> None:
    body = servers()
    body["servers"]["H100-1-80G"]["hourly_price"] = 0
    body["servers"]["L4-1-24G"]["gpu_info"]["gpu_name"] = "Zorblax-9000"
    body["servers"]["L4-2-24G"]["end_of_service"] = True
    mock_zone("fr-par-2", body)
    source = one_zone()
    assert len(fetch(source)) == 13
    reasons = {(d.row, d.category, d.invalid) for d in source.dropped}
    assert reasons == {
        ("fr-par-2/H100-1-80G", "no positive price", True),
        ("fr-par-2/L4-1-24G", "unknown GPU", True),
        ("fr-par-2/L4-2-24G", "end of service", False),
    }


@respx.mock
def test_availability_failure_keeps_the_prices() -> None:
    respx.get(servers_url("fr-par-2")).mock(return_value=httpx.Response(200, json=servers()))
    respx.get(availability_url("fr-par-2")).mock(return_value=httpx.Response(404, json={}))
    source = one_zone()
    offers = fetch(source)
    assert len(offers) == 16 and {o.availability for o in offers} == {Availability.UNKNOWN}
    assert any("availability unknown" in w for w in source.warnings)


@respx.mock
def test_schema_change_names_the_field() -> None:
    respx.get(servers_url("fr-par-2")).mock(return_value=httpx.Response(200, json={"server_types": {}}))
    with pytest.raises(SourceError, match="field 'servers' missing"):
        fetch(one_zone())


@respx.mock
def test_the_stated_euro_price_is_stored_with_the_offer(tmp_path: Path) -> None:
    mock_zone("fr-par-2")
    with temp_store("sqlite", tmp_path) as store:
        [result] = refresh(store, [one_zone()], timeout_s=30)
        assert result.ok
        [h100] = [
            o
            for o in store.current_offers(OfferQuery(providers=("scaleway",)))
            if o.instance_type == "H100-1-80G"
        ]
    assert (h100.original_currency, h100.original_price_per_hour) == ("EUR", 2.8665)
    assert h100.price_usd_per_hour == pytest.approx(2.8665 * EUR)
