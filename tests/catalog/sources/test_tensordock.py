"""TensorDock v0 marketplace adapter against the recorded host specs fixture."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.tensordock import HOSTNODES_URL, TensorDockSource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


def answer() -> dict[str, Any]:
    specs = sample("tensordock")["v0_marketplace_hostnodes"]["specs_fixture"]
    return {
        "hostnodes": {"h-1": {"location": {"city": "Chicago", "country": "United States"}, "specs": specs}}
    }


@respx.mock
def test_component_priced_offers_from_free_capacity() -> None:
    respx.get(HOSTNODES_URL).mock(return_value=httpx.Response(200, json=answer()))
    offers = {o.gpu_count: o for o in fetch(TensorDockSource())}
    assert sorted(offers) == [1, 8]  # one GPU, and all 8 free L40s
    one = offers[1]
    assert (one.provider, one.accelerator, one.gpu_memory_gb) == ("tensordock", "L40", 48)
    assert one.region == "Chicago, United States"
    # 1.05 per GPU + 8 vCPU x 0.003 + 32 GB x 0.002 + 100 GB x 5e-05
    assert one.price_usd_per_hour == pytest.approx(1.05 + 8 * 0.003 + 32 * 0.002 + 100 * 5e-05)
    assert one.availability is Availability.AVAILABLE and one.available_count == 8
    assert one.interconnect is Interconnect.PCIE
    assert one.storage_usd_per_gb_month == pytest.approx(5e-05 * 730)
    eight = offers[8]
    assert eight.price_usd_per_hour == pytest.approx(8 * 1.05 + 64 * 0.003 + 256 * 0.002 + 100 * 5e-05)
    assert (eight.vcpus, eight.ram_gb) == (64, 256)


@respx.mock
def test_not_enough_free_cpu_is_unavailable() -> None:
    data = answer()
    data["hostnodes"]["h-1"]["specs"]["cpu"]["amount"] = 16
    respx.get(HOSTNODES_URL).mock(return_value=httpx.Response(200, json=data))
    offers = {o.gpu_count: o for o in fetch(TensorDockSource())}
    assert offers[1].availability is Availability.AVAILABLE
    assert offers[8].availability is Availability.UNAVAILABLE


@respx.mock
def test_schema_change_and_empty() -> None:
    data = answer()
    gpu = data["hostnodes"]["h-1"]["specs"]["gpu"]["l40-pcie-48gb"]
    gpu["price_hr"] = gpu.pop("price")
    respx.get(HOSTNODES_URL).mock(return_value=httpx.Response(200, json=data))
    with pytest.raises(SourceError, match="price"):
        fetch(TensorDockSource())
    respx.get(HOSTNODES_URL).mock(return_value=httpx.Response(200, json={"hostnodes": {}}))
    assert fetch(TensorDockSource()) == []


@respx.mock
def test_429_retry_after_then_success() -> None:
    respx.get(HOSTNODES_URL).mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "6"}), httpx.Response(200, json=answer())]
    )
    sleep = SleepRecorder()
    assert len(fetch(TensorDockSource(sleep=sleep))) == 2
    assert sleep.delays == [6.0]
