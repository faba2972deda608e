"""GCP adapter: instance price = host (vCPU + RAM SKUs) + GPU SKUs, never a GPU SKU alone."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Interconnect
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.gcp import SKUS_URL, GcpSource
from tests.catalog.sources.samples import SleepRecorder, by_type, fetch, sample


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCP_API_KEY", "g-key")


def gpu_sku() -> dict[str, Any]:
    return sample("gcp")["sku_sample_opencost_fixture"]  # real: A100 2.933908 $/GPU-h


def spot_gpu_sku() -> dict[str, Any]:
    return sample("gcp")["sku_sample_spot"]  # shape real, numbers synthetic (1.1 $/GPU-h)


def host_sku(description: str, group: str, units: str, nanos: int, regions: list[str]) -> dict[str, Any]:
    """A host SKU in the recorded SKU's shape. The A2 rates below (0.031611 $/vCPU-h, 0.004237
    $/GB-h) are recalled list prices; 12 x 0.031611 + 85 x 0.004237 = 0.73948, the a2-highgpu-1g
    host price in price_snapshot.md."""
    sku = copy.deepcopy(gpu_sku())
    sku.update(description=description, skuId=description[:12], serviceRegions=regions)
    sku["category"] = {**sku["category"], "resourceGroup": group}
    sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"] = {
        "units": units,
        "nanos": nanos,
    }
    return sku


def page(skus: list[dict[str, Any]], token: str = "") -> dict[str, Any]:
    return {"skus": skus, "nextPageToken": token}


HOST = [
    host_sku("A2 Instance Core running in Americas", "CPU", "0", 31611000, ["us-central1", "us-east1"]),
    host_sku("A2 Instance Ram running in Americas", "RAM", "0", 4237000, ["us-central1", "us-east1"]),
]


@respx.mock
def test_composes_host_plus_gpu_and_pages() -> None:
    route = respx.get(SKUS_URL, params={"pageToken": "p2"}).mock(
        return_value=httpx.Response(200, json=page(HOST))
    )
    respx.get(SKUS_URL).mock(return_value=httpx.Response(200, json=page([gpu_sku()], "p2")))
    offers = {(o.instance_type, o.region): o for o in fetch(GcpSource())}
    assert route.called and route.calls[0].request.url.params["key"] == "g-key"
    one = offers[("a2-highgpu-1g", "us-central1")]
    assert one.price_usd_per_hour == pytest.approx(3.67339, abs=1e-5)  # = price_snapshot.md's check
    assert (one.accelerator, one.gpu_count, one.gpu_memory_gb) == ("A100-SXM4-40GB", 1, 40)
    assert (one.vcpus, one.ram_gb) == (12, 85)
    assert one.interconnect is Interconnect.NVLINK
    eight = offers[("a2-highgpu-8g", "us-central1")]
    assert eight.price_usd_per_hour == pytest.approx(29.387, abs=1e-3)
    # us-west1 has a GPU price but no A2 host price: no offer there, never a GPU-only price.
    assert not any(region == "us-west1" for _, region in offers)
    assert {name for name, _ in offers} == {
        "a2-highgpu-1g", "a2-highgpu-2g", "a2-highgpu-4g", "a2-highgpu-8g", "a2-megagpu-16g",
    }  # fmt: skip


@respx.mock
def test_spot_composed_from_spot_skus() -> None:
    spot_host = [
        host_sku(
            "Spot Preemptible A2 Instance Core running in Americas", "CPU", "0", 9483000, ["us-central1"]
        ),
        host_sku(
            "Spot Preemptible A2 Instance Ram running in Americas", "RAM", "0", 1271000, ["us-central1"]
        ),
    ]
    for s in spot_host:
        s["category"]["usageType"] = "Preemptible"
    respx.get(SKUS_URL).mock(
        return_value=httpx.Response(200, json=page([gpu_sku(), spot_gpu_sku(), *HOST, *spot_host]))
    )
    o = by_type([x for x in fetch(GcpSource()) if x.region == "us-central1"])["a2-highgpu-1g"]
    assert o.spot_price_usd_per_hour == pytest.approx(12 * 0.009483 + 85 * 0.001271 + 1.1)
    assert o.price_usd_per_hour == pytest.approx(3.67339, abs=1e-5)


@respx.mock
def test_gpu_without_host_gives_no_offer_and_a_warning() -> None:
    respx.get(SKUS_URL).mock(return_value=httpx.Response(200, json=page([gpu_sku()])))
    src = GcpSource()
    assert fetch(src) == []
    assert src.warnings == [
        "no offer composed: A2 host for Nvidia Tesla A100 not priced in any region with the GPU"
    ]


@respx.mock
def test_commitment_skus_are_ignored() -> None:
    commit = dict(gpu_sku(), description="Commitment v1: Nvidia Tesla A100 GPU running in Americas")
    commit["pricingInfo"] = [
        {"pricingExpression": {"tieredRates": [{"unitPrice": {"units": "0", "nanos": 1}}]}}
    ]
    respx.get(SKUS_URL).mock(return_value=httpx.Response(200, json=page([gpu_sku(), commit, *HOST])))
    o = by_type([x for x in fetch(GcpSource()) if x.region == "us-central1"])["a2-highgpu-1g"]
    assert o.price_usd_per_hour == pytest.approx(3.67339, abs=1e-5)


@respx.mock
def test_schema_change_names_the_field_and_empty() -> None:
    broken = [dict(s) for s in (gpu_sku(), *HOST)]
    for s in broken:
        s["regions"] = s.pop("serviceRegions")
    respx.get(SKUS_URL).mock(return_value=httpx.Response(200, json=page(broken)))
    with pytest.raises(SourceError, match="serviceRegions"):
        fetch(GcpSource())
    respx.get(SKUS_URL).mock(return_value=httpx.Response(200, json=page([])))
    assert fetch(GcpSource()) == []


def test_key_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GCP_API_KEY")
    with pytest.raises(CredentialsMissingError, match="GCP_API_KEY"):
        fetch(GcpSource())


@respx.mock
def test_429_retry_after_then_success() -> None:
    respx.get(SKUS_URL).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "1"}),
            httpx.Response(200, json=page([gpu_sku(), *HOST])),
        ]
    )
    sleep = SleepRecorder()
    assert fetch(GcpSource(sleep=sleep))
    assert sleep.delays == [1.0]
