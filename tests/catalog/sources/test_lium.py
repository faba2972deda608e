"""Lium adapter against the recorded public nodes feed (four nodes, 2026-09-10)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.lium import NODES_URL, LiumSource, rental_counts
from tests.catalog.sources.samples import by_type, fetch, sample

H200 = "f092246d-5704-4c9e-b57f-7c0710a06deb"


def feed() -> dict[str, Any]:
    return sample("lium")


@respx.mock
def test_recorded_feed_field_by_field() -> None:
    respx.get(NODES_URL).mock(return_value=httpx.Response(200, json=feed()))
    source = LiumSource()
    offers = by_type(fetch(source))
    assert source.dropped == []
    # 8 of 8 H200s free, rentable from 1: counts 1, 2, 4 and the 5 free
    assert sorted(k for k in offers if k.startswith(H200)) == [f"{H200}:{n}x" for n in (1, 2, 4, 5)]
    h200 = offers[f"{H200}:2x"]
    assert (h200.accelerator, h200.gpu_count, h200.gpu_memory_gb) == ("H200-SXM", 2, 141)  # feed says 140
    assert h200.price_usd_per_hour == pytest.approx(2 * 3.99) and h200.spot_price_usd_per_hour is None
    assert (h200.region, h200.zone) == ("US-MS", "Jackson")
    assert h200.availability is Availability.AVAILABLE and h200.available_count == 2
    assert (h200.vcpus, h200.ram_gb) == (48, pytest.approx(2015 * 2 / 8, abs=0.01))
    assert h200.observed_at == datetime(2026, 9, 10, 7, 37, 2, 247559, tzinfo=UTC)  # generated_at
    assert h200.extra["rent_url"].endswith(H200)
    # the spot-tier node is priced as spot only
    spot = offers["45af0308-a13c-497f-93ea-ab06144eee29:1x"]
    assert spot.price_usd_per_hour is None and spot.spot_price_usd_per_hour == pytest.approx(0.5)
    assert spot.accelerator == "RTX5090" and spot.region == "US-MN"
    # rentable only whole (min 8 of 8): one offer
    assert [k for k in offers if k.startswith("ebdfdbe2")] == ["ebdfdbe2-875a-4caa-8eea-1ab5c2a763e1:8x"]
    a100 = offers["6780e503-6861-4dca-bdec-ca9dcf37e8d0:8x"]
    assert a100.accelerator == "A100-SXM4-80GB" and a100.price_usd_per_hour == pytest.approx(9.84)


def test_rental_counts() -> None:
    assert rental_counts(1, 5) == [1, 2, 4, 5]
    assert rental_counts(8, 8) == [8]
    assert rental_counts(2, 8) == [2, 4, 8]
    assert rental_counts(4, 2) == [4]  # less free than the minimum: one (unavailable) offer


@respx.mock
def test_a_node_with_too_few_free_gpus_is_unavailable() -> None:
    data = feed()
    node = data["nodes"][0]
    node["available_gpu_count"] = 2  # minimum 8
    respx.get(NODES_URL).mock(return_value=httpx.Response(200, json=data))
    offer = by_type(fetch(LiumSource()))["ebdfdbe2-875a-4caa-8eea-1ab5c2a763e1:8x"]
    assert offer.availability is Availability.UNAVAILABLE and offer.available_count == 0


@respx.mock
def test_bad_rows_are_dropped_with_reasons() -> None:
    data = feed()
    data["nodes"][0]["price_per_gpu_hour"] = "abc"
    data["nodes"][1]["gpu_model"] = "Zorblax 9000"
    respx.get(NODES_URL).mock(return_value=httpx.Response(200, json=data))
    source = LiumSource()
    assert len(fetch(source)) == 2
    assert sorted(d.category for d in source.dropped) == ["no positive price", "unknown GPU"]


@respx.mock
def test_a_future_generated_at_is_not_trusted() -> None:
    data = feed()
    data["generated_at"] = "2999-01-01T00:00:00Z"
    respx.get(NODES_URL).mock(return_value=httpx.Response(200, json=data))
    offers = fetch(LiumSource())
    assert all(o.observed_at is not None and o.observed_at.year < 2999 for o in offers)


@respx.mock
def test_schema_change() -> None:
    respx.get(NODES_URL).mock(return_value=httpx.Response(200, json={"executors": []}))
    with pytest.raises(SourceError, match="field 'nodes' missing"):
        fetch(LiumSource())
