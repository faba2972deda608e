"""Akash adapter: the API owner's functional-test body (seeded names) and rows from the live excerpt."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability
from gpuscout.catalog.sources.akash import GPU_PRICES_URL, AkashSource, ram_gb
from gpuscout.catalog.sources.base import SourceError
from tests.catalog.sources.samples import by_type, fetch, sample

# The live probe quoted in akash.source.md (2026-07-17) for the A100 row, and the H100 SXM5 row of
# OpenComputePrices' tests/test_akash.py as that note gives it (its availability is not given there).
A100_LIVE: dict[str, Any] = {
    "vendor": "nvidia", "model": "a100", "ram": "80Gi", "interface": "SXM4",
    "availability": {"total": 48, "available": 6}, "providerAvailability": {"total": 4, "available": 3},
    "price": {"currency": "USD", "min": 1.13, "max": 1.83, "avg": 1.48, "weightedAverage": 1.36, "med": 1.48},
}  # fmt: skip
H100_OCP: dict[str, Any] = {
    "vendor": "nvidia", "model": "h100", "ram": "80Gi", "interface": "SXM5",
    "availability": {"total": 16, "available": 0},
    "price": {"currency": "USD", "min": 1.17, "max": 2.02, "weightedAverage": 1.48},
}  # fmt: skip


def mock(models: list[dict[str, Any]]) -> None:
    body = {"availability": {"total": 30, "available": 15}, "models": models}
    respx.get(GPU_PRICES_URL).mock(return_value=httpx.Response(200, json=body))


@respx.mock
def test_production_shaped_rows_field_by_field() -> None:
    mock([A100_LIVE, H100_OCP])
    offers = by_type(fetch(AkashSource()))
    a100 = offers["nvidia-a100-80gi-sxm4"]
    assert (a100.accelerator, a100.gpu_count, a100.region) == ("A100-SXM4-80GB", 1, "global")
    assert a100.price_usd_per_hour == pytest.approx(1.36)  # weightedAverage, per GPU-hour
    assert a100.spot_price_usd_per_hour is None  # a lease keeps its accepted bid: not interruptible
    assert a100.availability is Availability.AVAILABLE and a100.available_count == 6
    assert "bids 1.13-1.83 USD/GPU-h" in a100.notes and "market summary" in a100.notes
    assert (a100.extra["min"], a100.extra["max"], a100.extra["med"]) == ("1.13", "1.83", "1.48")
    assert a100.extra["providers_available"] == "3"
    h100 = offers["nvidia-h100-80gi-sxm5"]
    assert h100.accelerator == "H100-SXM" and h100.availability is Availability.UNAVAILABLE


@respx.mock
def test_the_recorded_body_seeded_names_are_dropped_and_no_bid_is_excluded() -> None:
    respx.get(GPU_PRICES_URL).mock(return_value=httpx.Response(200, json=sample("akash")))
    source = AkashSource()
    assert fetch(source) == []  # gpu0..gpu3 are the seeded test database's names
    drops = sorted((d.row, d.category, d.invalid) for d in source.dropped)
    assert drops == [
        ("amd gpu2 4096 pcie", "no bids: price null", False),
        ("amd gpu3 8192 sxm", "unknown GPU", True),
        ("nvidia gpu0 1024 pcie", "unknown GPU", True),
        ("nvidia gpu1 2048 sxm", "no bids: price null", False),
    ]


@respx.mock
def test_price_falls_back_to_the_median_and_other_currencies_are_invalid() -> None:
    med_only = {**A100_LIVE, "price": {"currency": "USD", "med": 1.5, "weightedAverage": None}}
    eur = {**H100_OCP, "price": {"currency": "EUR", "weightedAverage": 1.4}}
    mock([med_only, eur])
    source = AkashSource()
    [offer] = fetch(source)
    assert offer.price_usd_per_hour == 1.5 and offer.extra["price_statistic"] == "med"
    assert [d.category for d in source.dropped] == ["price not in USD"]


def test_ram_sizes() -> None:
    assert ram_gb("80Gi") == 80 and ram_gb("141Gi") == 141 and ram_gb("4096") == 4 and ram_gb("24G") == 24


@respx.mock
def test_schema_change() -> None:
    respx.get(GPU_PRICES_URL).mock(return_value=httpx.Response(200, json={"gpus": []}))
    with pytest.raises(SourceError, match="field 'models' missing"):
        fetch(AkashSource())
