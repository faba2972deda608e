"""RunPod adapter against the recorded gpuTypes fixtures."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.runpod import GRAPHQL_URL, RunPodSource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


def gpu_types() -> list[dict[str, Any]]:
    s = sample("runpod")
    return [s["gpu_type_docs_sample"], s["gpu_type_with_stock_fixture"]]


def answer(types: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"data": {"gpuTypes": gpu_types() if types is None else types}}


def index(offers: list) -> dict[tuple[str, bool | None], Any]:
    return {(o.instance_type, o.secure): o for o in offers}


@respx.mock
def test_secure_and_community_offers_field_by_field() -> None:
    route = respx.post(GRAPHQL_URL).mock(return_value=httpx.Response(200, json=answer()))
    offers = index(fetch(RunPodSource()))
    assert route.call_count == 2
    secure_flags = [
        json.loads(c.request.content)["variables"]["lowestPriceInput"]["secureCloud"] for c in route.calls
    ]
    assert secure_flags == [True, False]

    h100_sec = offers[("1x NVIDIA H100 80GB HBM3", True)]
    assert h100_sec.accelerator == "H100-SXM"
    assert h100_sec.gpu_memory_gb == 80
    assert h100_sec.price_usd_per_hour == pytest.approx(2.69)
    assert h100_sec.spot_price_usd_per_hour == pytest.approx(2.49)
    assert h100_sec.availability is Availability.AVAILABLE  # stockStatus Medium
    assert h100_sec.region == "any"
    assert h100_sec.interconnect is Interconnect.NVLINK

    # per-GPU price x count: secure max 8 GPUs, community max 4 (maxGpuCount*Cloud)
    h100_sec8 = offers[("8x NVIDIA H100 80GB HBM3", True)]
    assert h100_sec8.gpu_count == 8
    assert h100_sec8.price_usd_per_hour == pytest.approx(8 * 2.69)
    assert h100_sec8.spot_price_usd_per_hour == pytest.approx(8 * 2.49)
    h100_com4 = offers[("4x NVIDIA H100 80GB HBM3", False)]
    assert h100_com4.price_usd_per_hour == pytest.approx(4 * 2.39)
    assert h100_com4.spot_price_usd_per_hour == pytest.approx(4 * 2.19)
    assert ("8x NVIDIA H100 80GB HBM3", False) not in offers

    a100_com = offers[("1x NVIDIA A100 80GB PCIe", False)]
    assert a100_com.accelerator == "A100-PCIe-80GB"
    assert a100_com.price_usd_per_hour == pytest.approx(1.59)
    assert a100_com.spot_price_usd_per_hour == pytest.approx(0.89)
    assert a100_com.availability is Availability.UNKNOWN  # lowestPrice has no stockStatus key
    assert a100_com.interconnect is Interconnect.PCIE
    # secure A100: securePrice 1.89, secureSpotPrice null -> spot unknown, never 0
    a100_sec = offers[("1x NVIDIA A100 80GB PCIe", True)]
    assert a100_sec.price_usd_per_hour == pytest.approx(1.89)
    assert a100_sec.spot_price_usd_per_hour is None
    assert a100_sec.extra["display_name"] == "A100 80GB"


@respx.mock
def test_stock_status_mapping_and_available_counts() -> None:
    t = gpu_types()[1]
    low = dict(
        t, lowestPrice={"stockStatus": "Low", "availableGpuCounts": [1, 2], "maxUnreservedGpuCount": 2}
    )
    respx.post(GRAPHQL_URL).mock(return_value=httpx.Response(200, json=answer([low])))
    offers = index(fetch(RunPodSource()))
    assert sorted(k[0] for k in offers if k[1]) == ["1x NVIDIA H100 80GB HBM3", "2x NVIDIA H100 80GB HBM3"]
    assert offers[("2x NVIDIA H100 80GB HBM3", True)].availability is Availability.LIMITED
    assert offers[("2x NVIDIA H100 80GB HBM3", True)].available_count == 2

    gone = dict(t, lowestPrice={"stockStatus": None})
    respx.post(GRAPHQL_URL).mock(return_value=httpx.Response(200, json=answer([gone])))
    offers = index(fetch(RunPodSource()))
    assert offers[("1x NVIDIA H100 80GB HBM3", True)].availability is Availability.UNAVAILABLE


@respx.mock
def test_memory_in_gb_is_taken_as_gb() -> None:
    # RunPod's UI printed memoryInGb as "80 MiB"; the value is GB and must give an 80 GB part.
    respx.post(GRAPHQL_URL).mock(return_value=httpx.Response(200, json=answer()))
    for o in fetch(RunPodSource()):
        assert o.gpu_memory_gb == 80


@respx.mock
def test_graphql_errors_are_a_source_error() -> None:
    respx.post(GRAPHQL_URL).mock(
        return_value=httpx.Response(200, json={"errors": [{"message": "Something went wrong"}]})
    )
    with pytest.raises(SourceError, match="GraphQL errors: Something went wrong"):
        fetch(RunPodSource())


@respx.mock
def test_renamed_price_field_names_the_field() -> None:
    types = gpu_types()
    for t in types:
        t["securePriceUsd"] = t.pop("securePrice")
    respx.post(GRAPHQL_URL).mock(return_value=httpx.Response(200, json=answer(types)))
    with pytest.raises(SourceError, match="securePrice"):
        fetch(RunPodSource())


@respx.mock
def test_empty_answer() -> None:
    respx.post(GRAPHQL_URL).mock(return_value=httpx.Response(200, json=answer([])))
    assert fetch(RunPodSource()) == []


@respx.mock
def test_429_retry_after_http_date_then_success() -> None:
    respx.post(GRAPHQL_URL).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
            httpx.Response(200, json=answer()),
            httpx.Response(200, json=answer()),
        ]
    )
    sleep = SleepRecorder()
    assert fetch(RunPodSource(sleep=sleep))
    assert sleep.delays == [0.0]  # a date in the past means "retry now"


@respx.mock
def test_api_key_is_sent_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNPOD_API_KEY", "k-123")
    route = respx.post(GRAPHQL_URL).mock(return_value=httpx.Response(200, json=answer()))
    fetch(RunPodSource())
    assert route.calls[0].request.headers["Authorization"] == "Bearer k-123"
