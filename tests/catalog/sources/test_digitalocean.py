"""DigitalOcean adapter against the recorded /v2/sizes payload."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.digitalocean import SIZES_URL, DigitalOceanSource
from tests.catalog.sources.samples import SleepRecorder, by_type, fetch, sample

CPU_SIZE = {"slug": "s-1vcpu-1gb", "memory": 1024, "vcpus": 1, "disk": 25, "price_hourly": 0.00893,
            "regions": ["nyc1"], "available": True}  # fmt: skip


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGITALOCEAN_TOKEN", "do-token")


def answer() -> dict[str, Any]:
    data = sample("digitalocean")["response"]
    data["sizes"].append(CPU_SIZE)
    return data


@respx.mock
def test_gpu_droplets_field_by_field() -> None:
    route = respx.get(SIZES_URL).mock(return_value=httpx.Response(200, json=answer()))
    offers = by_type(fetch(DigitalOceanSource()))
    assert route.calls[0].request.headers["Authorization"] == "Bearer do-token"
    assert sorted(offers) == ["gpu-h100x8-640gb", "gpu-mi300x8-1536gb"]
    h100 = offers["gpu-h100x8-640gb"]
    assert (h100.accelerator, h100.gpu_count, h100.gpu_memory_gb) == ("H100-SXM", 8, 80)  # 640 GiB total / 8
    assert h100.price_usd_per_hour == pytest.approx(23.92)
    assert h100.price_usd_per_gpu_hour == pytest.approx(2.99)
    assert (h100.vcpus, h100.ram_gb, h100.disk_gb) == (160, 2061.58, 2196.88)  # GiB -> GB
    assert (h100.region, h100.availability) == ("nyc1", Availability.AVAILABLE)
    assert h100.extra["included_transfer_tb_month"] == "60.0"
    mi = offers["gpu-mi300x8-1536gb"]
    assert (mi.accelerator, mi.gpu_memory_gb, mi.price_usd_per_hour) == ("MI300X", 192, 15.92)


@respx.mock
def test_unavailable_size_and_pagination() -> None:
    data = answer()
    first = {"sizes": data["sizes"][:1], "links": {"pages": {"next": SIZES_URL + "?page=2&per_page=500"}}}
    gone = dict(data["sizes"][1], available=False)
    respx.get(SIZES_URL, params={"page": "2"}).mock(return_value=httpx.Response(200, json={"sizes": [gone]}))
    respx.get(SIZES_URL).mock(return_value=httpx.Response(200, json=first))
    offers = by_type(fetch(DigitalOceanSource()))
    assert offers["gpu-h100x8-640gb"].availability is Availability.AVAILABLE
    mi = offers["gpu-mi300x8-1536gb"]
    assert (mi.region, mi.availability) == ("any", Availability.UNAVAILABLE)


def test_token_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DIGITALOCEAN_TOKEN")
    with pytest.raises(CredentialsMissingError, match="DIGITALOCEAN_TOKEN"):
        fetch(DigitalOceanSource())


@respx.mock
def test_schema_change_names_the_field() -> None:
    data = answer()
    for s in data["sizes"]:
        if "gpu_info" in s:
            s["gpu_info"]["gpu_count"] = s["gpu_info"].pop("count")
    data["sizes"] = [s for s in data["sizes"] if "gpu_info" in s]
    respx.get(SIZES_URL).mock(return_value=httpx.Response(200, json=data))
    with pytest.raises(SourceError, match=r"gpu_info\.count"):
        fetch(DigitalOceanSource())


@respx.mock
def test_empty_and_429() -> None:
    respx.get(SIZES_URL).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "5"}),
            httpx.Response(200, json={"sizes": []}),
        ]
    )
    sleep = SleepRecorder()
    assert fetch(DigitalOceanSource(sleep=sleep)) == []
    assert sleep.delays == [5.0]
