"""Azure Retail Prices adapter against the recorded items (docs sample + GPU fixtures)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.azure import AZURE_GPU_SIZES, PRICES_URL, AzureSource
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import RetryPolicy
from tests.catalog.sources.samples import SleepRecorder, by_type, fetch, sample


def items() -> list[dict[str, Any]]:
    s = sample("azure")
    return s["Items_docs_sample"] + s["Items_gpu_fixtures"]


def page(rows: list[dict[str, Any]], next_link: str | None = None) -> dict[str, Any]:
    return {"BillingCurrency": "USD", "Items": rows, "NextPageLink": next_link, "Count": len(rows)}


def spot_row() -> dict[str, Any]:
    # The recorded H100 row, re-metered as its Spot meter (shape of the docs' "F16s Spot" row).
    row = dict(sample("azure")["Items_gpu_fixtures"][0])
    row.update(meterName="NC40adsH100v5 Spot", skuName="NC40adsH100v5 Spot", unitPrice=2.1, retailPrice=2.1)
    return row


@respx.mock
def test_recorded_items_reservation_and_devtest_excluded() -> None:
    route = respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page(items())))
    src = AzureSource()
    offers = by_type(fetch(src))
    params = route.calls[0].request.url.params
    assert "priceType eq 'Consumption'" in params["$filter"]
    assert params["api-version"] == "2023-01-01-preview"
    assert list(offers) == ["Standard_NC40ads_H100_v5"]
    o = offers["Standard_NC40ads_H100_v5"]
    assert o.provider == "azure" and o.region == "eastus"
    assert o.accelerator == "H100-NVL" and o.gpu_memory_gb == 94 and o.gpu_count == 1
    assert o.price_usd_per_hour == pytest.approx(6.98)
    assert o.spot_price_usd_per_hour is None
    assert (o.vcpus, o.ram_gb) == (40, 320)
    assert o.interconnect is Interconnect.PCIE
    assert o.availability is Availability.UNKNOWN  # the retail API says nothing about capacity
    reasons = {d.row.split()[0]: d.reason for d in src.dropped}
    # The reservation row's 42066 "per 1 Hour" is the 1-year term amount, never an hourly price.
    assert "reservation" in reasons["Standard_NC48ads_A100_v4"]
    assert reasons["Standard_F16s"] == "dev/test pricing"


@respx.mock
def test_spot_meter_merges_into_the_same_offer() -> None:
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page([*items(), spot_row()])))
    o = by_type(fetch(AzureSource()))["Standard_NC40ads_H100_v5"]
    assert o.price_usd_per_hour == pytest.approx(6.98)
    assert o.spot_price_usd_per_hour == pytest.approx(2.1)
    assert "NC40adsH100v5 Spot" in o.extra["meters"]


@respx.mock
def test_low_priority_and_unknown_sizes_dropped() -> None:
    low = dict(spot_row(), meterName="NC40adsH100v5 Low Priority", skuName="NC40adsH100v5 Low Priority")
    odd = dict(items()[1], armSkuName="Standard_NP10s", meterName="NP10s")
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page([low, odd])))
    src = AzureSource()
    assert fetch(src) == []
    assert sorted(d.reason for d in src.dropped) == [
        "low-priority meter (retiring)",
        "not a known Azure GPU size",
    ]


@respx.mock
def test_pagination_follows_next_page_link() -> None:
    second = "https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview&$skip=1000"
    respx.get(PRICES_URL, params={"$skip": "1000"}).mock(
        return_value=httpx.Response(200, json=page([spot_row()]))
    )
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page(items(), second)))
    o = by_type(fetch(AzureSource()))["Standard_NC40ads_H100_v5"]
    assert (o.price_usd_per_hour, o.spot_price_usd_per_hour) == (6.98, 2.1)


@respx.mock
def test_fractional_a10_slice_is_marked() -> None:
    row = dict(
        items()[1],
        armSkuName="Standard_NV6ads_A10_v5",
        meterName="NV6ads A10 v5",
        type="Consumption",
        retailPrice=0.454,
        unitPrice=0.454,
    )
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page([row])))
    (o,) = fetch(AzureSource())
    assert o.accelerator == "A10" and o.fractional and o.gpu_memory_gb == 4


@respx.mock
def test_429_retry_after_then_success_and_give_up() -> None:
    respx.get(PRICES_URL).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "3"}),
            httpx.Response(200, json=page(items())),
        ]
    )
    sleep = SleepRecorder()
    assert len(fetch(AzureSource(sleep=sleep))) == 1
    assert sleep.delays == [3.0]

    respx.get(PRICES_URL).mock(return_value=httpx.Response(429, headers={"Retry-After": "1"}))
    sleep = SleepRecorder()
    with pytest.raises(SourceError, match="gave up after 3 attempts: HTTP 429"):
        fetch(AzureSource(sleep=sleep, retry=RetryPolicy(attempts=3)))
    assert sleep.delays == [1.0, 1.0]


@respx.mock
def test_schema_change_names_the_field() -> None:
    rows = items()
    for r in rows:
        r["armSku"] = r.pop("armSkuName")
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page(rows)))
    with pytest.raises(SourceError, match="armSkuName"):
        fetch(AzureSource())
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json={"items": []}))
    with pytest.raises(SourceError, match="'Items' missing"):
        fetch(AzureSource())


@respx.mock
def test_empty_answer() -> None:
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page([])))
    assert fetch(AzureSource()) == []


def test_size_table_resolves_every_row() -> None:
    from gpuscout.catalog.normalize import match_gpu

    for sku, size in AZURE_GPU_SIZES.items():
        m = match_gpu(size.gpu, size.slice_gb, allow_fractional=size.slice_gb is not None)
        assert m.fractional == (size.slice_gb is not None), sku
        assert size.series_url.startswith("https://learn.microsoft.com/"), sku


@respx.mock
def test_an_nd_size_carries_its_documented_inter_node_bandwidth() -> None:
    # the recorded H100 row re-metered as an ND H100 v5 (8 GPUs, 8 x 400 Gbit/s InfiniBand): the live row
    # states the figure the advisor times multi-node training over, as the snapshot's rows do
    row = dict(sample("azure")["Items_gpu_fixtures"][0])
    row.update(armSkuName="Standard_ND96isr_H100_v5", meterName="ND96isr H100 v5", skuName="ND96isr H100 v5")
    respx.get(PRICES_URL).mock(return_value=httpx.Response(200, json=page([row])))
    nd = by_type(fetch(AzureSource()))["Standard_ND96isr_H100_v5"]
    assert nd.internode == "infiniband" and nd.gpu_count == 8
    assert nd.extra["internode_gbps"] == "3200" and "learn.microsoft.com" in nd.extra["internode_source"]
