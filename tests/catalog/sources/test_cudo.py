"""Cudo Compute adapter against the recorded machine-types fixture (component pricing)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.cudo import MACHINE_TYPES_URL, CudoSource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


def answer() -> dict[str, Any]:
    return {"machineTypes": sample("cudo")["machineTypes_fixture"]}


@respx.mock
def test_component_priced_configurations() -> None:
    respx.get(MACHINE_TYPES_URL).mock(return_value=httpx.Response(200, json=answer()))
    offers = {o.gpu_count: o for o in fetch(CudoSource())}
    assert sorted(offers) == [1, 2, 4]  # 8 exceeds maxGpuFree 5
    one = offers[1]
    assert (one.provider, one.region, one.accelerator, one.gpu_memory_gb) == (
        "cudo",
        "br-saopaulo-1",
        "RTX3080",
        10,
    )
    # 1 GPU 0.05 + 8 vCPU x 0.0025 + 32 GiB x 0.0038 + 100 GiB x 0.00013 + IPv4 0.0055
    assert one.price_usd_per_hour == pytest.approx(0.05 + 8 * 0.0025 + 32 * 0.0038 + 100 * 0.00013 + 0.0055)
    assert (one.vcpus, one.ram_gb, one.disk_gb) == (8, 32, 100)
    assert one.availability is Availability.AVAILABLE
    assert one.available_count == 24  # totalGpuFree // 1
    assert one.storage_usd_per_gb_month == pytest.approx(0.00013 * 730)
    four = offers[4]
    assert four.price_usd_per_hour == pytest.approx(4 * 0.05 + 32 * 0.0025 + 128 * 0.0038 + 0.013 + 0.0055)
    assert four.available_count == 6


@respx.mock
def test_no_free_gpu_is_unavailable() -> None:
    data = answer()
    data["machineTypes"][0].update(maxGpuFree=0, totalGpuFree=0)
    respx.get(MACHINE_TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    (o,) = fetch(CudoSource())
    assert o.gpu_count == 1 and o.availability is Availability.UNAVAILABLE and o.available_count == 0


@respx.mock
def test_schema_change_names_the_field_and_empty() -> None:
    data = answer()
    data["machineTypes"][0]["gpuPriceHr"] = {"amount": "0.05"}
    respx.get(MACHINE_TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    with pytest.raises(SourceError, match=r"gpuPriceHr\.value"):
        fetch(CudoSource())
    respx.get(MACHINE_TYPES_URL).mock(return_value=httpx.Response(200, json={"machineTypes": []}))
    assert fetch(CudoSource()) == []


@respx.mock
def test_500_then_success_uses_backoff() -> None:
    respx.get(MACHINE_TYPES_URL).mock(side_effect=[httpx.Response(500), httpx.Response(200, json=answer())])
    sleep = SleepRecorder()
    assert fetch(CudoSource(sleep=sleep))
    assert len(sleep.delays) == 1 and 0.75 <= sleep.delays[0] <= 1.25  # 1 s +- 25 % jitter


@respx.mock
def test_429_retry_after_then_success() -> None:
    respx.get(MACHINE_TYPES_URL).mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "9"}), httpx.Response(200, json=answer())]
    )
    sleep = SleepRecorder()
    assert len(fetch(CudoSource(sleep=sleep))) == 3
    assert sleep.delays == [9.0]
