"""Prime Intellect adapter against the docs example offer (Hyperstack H100 PCIe, CANADA-1)."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.currency import DEFAULT_RATES
from gpuscout.catalog.offer import Availability
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.primeintellect import AVAILABILITY_URL, PrimeIntellectSource
from tests.catalog.sources.samples import by_type, fetch, sample


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIME_INTELLECT_API_KEY", "pi-key")


def offer_row(**changes: Any) -> dict[str, Any]:
    row = sample("primeintellect")
    row.update(changes)
    return row


def page(items: list[dict[str, Any]], total: int | None = None) -> dict[str, Any]:
    return {"items": items, "totalCount": len(items) if total is None else total}


@respx.mock
def test_docs_example_field_by_field() -> None:
    route = respx.get(AVAILABILITY_URL).mock(return_value=httpx.Response(200, json=page([offer_row()])))
    [offer] = fetch(PrimeIntellectSource())
    assert route.calls[0].request.headers["Authorization"] == "Bearer pi-key"
    assert dict(route.calls[0].request.url.params) == {"page": "1", "page_size": "100"}
    assert offer.provider == "primeintellect" and offer.instance_type == "hyperstack:n3-H100x1"
    assert (offer.accelerator, offer.gpu_count, offer.gpu_memory_gb) == ("H100-PCIe", 1, 80)
    assert offer.price_usd_per_hour == pytest.approx(1.9) and offer.spot_price_usd_per_hour is None
    assert offer.region == "CANADA-1" and offer.extra["country"] == "CA"
    assert offer.availability is Availability.AVAILABLE and offer.secure is True
    assert (offer.vcpus, offer.ram_gb, offer.disk_gb) == (180, 180, 100)
    assert offer.extra["upstream_provider"] == "hyperstack" and "resold from hyperstack" in offer.notes
    assert offer.original_currency is None and "usd_per_unit" not in offer.extra


@respx.mock
def test_pages_are_read_until_the_total() -> None:
    first = [offer_row(cloudId=f"a{i}") for i in range(100)]
    second = [offer_row(cloudId="last")]
    route = respx.get(AVAILABILITY_URL)
    route.side_effect = [
        httpx.Response(200, json=page(first, 101)),
        httpx.Response(200, json=page(second, 101)),
    ]
    assert len(fetch(PrimeIntellectSource())) == 101
    assert [c.request.url.params["page"] for c in route.calls] == ["1", "2"]


@respx.mock
def test_spot_prepaid_eur_and_bad_rows() -> None:
    spot = offer_row(cloudId="spot", isSpot=True, stockStatus="Low")
    prepaid = offer_row(cloudId="prepaid", prepaidTime=720)
    eur = offer_row(cloudId="eur", prices={"onDemand": 2.0, "currency": "EUR"})
    bad = offer_row(cloudId="bad", prices={"onDemand": None, "communityPrice": None, "currency": "USD"})
    unknown = offer_row(cloudId="zz", gpuType="ZORBLAX_9000")
    respx.get(AVAILABILITY_URL).mock(
        return_value=httpx.Response(200, json=page([spot, prepaid, eur, bad, unknown]))
    )
    source = PrimeIntellectSource()
    offers = by_type(fetch(source))
    assert sorted(offers) == ["hyperstack:eur", "hyperstack:spot"]
    s = offers["hyperstack:spot"]
    assert s.price_usd_per_hour is None and s.spot_price_usd_per_hour == pytest.approx(1.9)
    assert s.availability is Availability.LIMITED
    e = offers["hyperstack:eur"]
    assert e.price_usd_per_hour == pytest.approx(2.0 * DEFAULT_RATES["EUR"].usd_per_unit)
    assert e.original_currency == "EUR" and e.original_price_per_hour == 2.0
    assert offers["hyperstack:spot"].original_currency is None  # stated in USD
    drops = sorted((d.category, d.invalid) for d in source.dropped)
    assert drops == [
        ("no positive price", True),
        ("prepaid term, not an hourly offer", False),
        ("unknown GPU", True),
    ]


@respx.mock
def test_the_older_map_by_gpu_type_is_read() -> None:
    respx.get(AVAILABILITY_URL).mock(return_value=httpx.Response(200, json={"H100_80GB": [offer_row()]}))
    assert len(fetch(PrimeIntellectSource())) == 1


@respx.mock
def test_schema_change_and_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    respx.get(AVAILABILITY_URL).mock(return_value=httpx.Response(200, json={"data": 3}))
    with pytest.raises(SourceError, match="no 'items' list"):
        fetch(PrimeIntellectSource())
    rows = [copy.deepcopy(offer_row()) for _ in range(2)]
    for r in rows:
        r["count"] = r.pop("gpuCount")
    respx.get(AVAILABILITY_URL).mock(return_value=httpx.Response(200, json=page(rows)))
    with pytest.raises(SourceError, match="gpuCount' missing in all"):
        fetch(PrimeIntellectSource())
    monkeypatch.delenv("PRIME_INTELLECT_API_KEY")
    with pytest.raises(CredentialsMissingError):
        fetch(PrimeIntellectSource())


@respx.mock
def test_gpu_memory_read_per_gpu_or_as_the_box_total() -> None:
    """``gpuMemory`` of a multi-GPU offer: the docs example (1 GPU) cannot tell per-GPU from the box
    total, and the data audit (2026-12, 5.2) reads SkyPilot's fetcher as taking it for the total. A
    total (640 for 8x H100_80GB) used to drop the offer ("matches no variant"); each reading is now
    accepted where it is the one that agrees with the named GPU."""
    total = offer_row(cloudId="n3-H100x8", gpuCount=8, gpuMemory=640, prices={"onDemand": 15.2})
    per_gpu = offer_row(cloudId="n3-H100x4", gpuCount=4, gpuMemory=80, prices={"onDemand": 7.6})
    contradicts = offer_row(cloudId="n3-H100x2", gpuCount=2, gpuMemory=100)
    answer = page([total, per_gpu, contradicts])
    respx.get(AVAILABILITY_URL).mock(return_value=httpx.Response(200, json=answer))
    source = PrimeIntellectSource()
    offers = by_type(fetch(source))
    eight, four = offers["hyperstack:n3-H100x8"], offers["hyperstack:n3-H100x4"]
    assert (eight.accelerator, eight.gpu_count, eight.gpu_memory_gb) == ("H100-PCIe", 8, 80)
    assert eight.price_usd_per_hour == pytest.approx(15.2)
    assert (four.accelerator, four.gpu_count, four.gpu_memory_gb) == ("H100-PCIe", 4, 80)
    assert [d.row for d in source.dropped] == ["hyperstack:n3-H100x2 CANADA-1"]
    assert "matches no variant" in source.dropped[0].reason


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("Available", Availability.AVAILABLE),  # the docs example's spelling
        ("Low", Availability.LIMITED),
        ("  low ", Availability.LIMITED),
        ("High", Availability.AVAILABLE),
        ("Out of Stock", Availability.UNAVAILABLE),
        ("out of  stock", Availability.UNAVAILABLE),
        ("OUT_OF_STOCK", Availability.UNAVAILABLE),
        ("Sold out", Availability.UNKNOWN),  # not a known status: not guessed
        ("", Availability.UNKNOWN),
    ],
)
@respx.mock
def test_stock_status_spellings(status: str, expected: Availability) -> None:
    """Case, surrounding space and space-vs-underscore do not change what a stock status means."""
    respx.get(AVAILABILITY_URL).mock(
        return_value=httpx.Response(200, json=page([offer_row(stockStatus=status)]))
    )
    [offer] = fetch(PrimeIntellectSource())
    assert offer.availability is expected
    assert offer.extra["stock_status"] == status  # kept as the feed wrote it
