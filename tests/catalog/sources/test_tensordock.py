"""TensorDock v2 adapter against the docs example of GET /api/v2/locations (component pricing)."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.tensordock import LOCATIONS_URL, TensorDockSource
from tests.catalog.sources.samples import by_type, fetch, sample


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENSORDOCK_API_KEY", "td-key")


def body() -> dict[str, Any]:
    return sample("tensordock_v2")


def rtx4090(entry: dict[str, Any]) -> dict[str, Any]:
    """The docs page's second GPU entry, as far as the stored copy shows it (name, max_count 4, price
    0.5, 32 vCPU / 128 GB / 2000 GB); its per-resource pricing was cut off, the H100's is reused."""
    gpu = copy.deepcopy(entry)
    gpu.update(v0Name="geforcertx4090-pcie-24gb", displayName="NVIDIA GeForce RTX 4090 PCIe 24GB")
    gpu.update(max_count=4, price_per_hr=0.5)
    gpu["resources"] = {"max_vcpus": 32, "max_ram_gb": 128, "max_storage_gb": 2000}
    return gpu


@respx.mock
def test_docs_example_component_priced_field_by_field() -> None:
    route = respx.get(LOCATIONS_URL).mock(return_value=httpx.Response(200, json=body()))
    offers = by_type(fetch(TensorDockSource()))
    assert route.calls[0].request.headers["Authorization"] == "Bearer td-key"
    assert sorted(offers) == ["h100-sxm5-80gb:1x", "h100-sxm5-80gb:8x"]
    one = offers["h100-sxm5-80gb:1x"]
    assert (one.accelerator, one.gpu_count, one.gpu_memory_gb) == ("H100-SXM", 1, 80)
    # GPU 2.20 + 8 vCPU x 0.003 + 32 GB x 0.002 + 100 GB x 0.00005 = 2.293
    assert one.price_usd_per_hour == pytest.approx(2.2 + 8 * 0.003 + 32 * 0.002 + 100 * 0.00005)
    assert (one.vcpus, one.ram_gb, one.disk_gb) == (8, 32, 100)
    assert one.region == "Austin, Texas, United States"
    assert one.availability is Availability.AVAILABLE and one.available_count == 8
    assert one.spot_price_usd_per_hour is None
    assert one.extra["location_id"] == "loc-uuid-12345"
    eight = offers["h100-sxm5-80gb:8x"]
    assert eight.price_usd_per_hour == pytest.approx(8 * 2.2 + 64 * 0.003 + 256 * 0.002 + 100 * 0.00005)
    assert eight.available_count == 1
    assert "component-priced configuration chosen by gpuscout" in eight.notes


@respx.mock
def test_resources_are_capped_at_the_locations_maxima() -> None:
    data = body()
    gpus = data["data"]["locations"][0]["gpus"]
    gpus.append(rtx4090(gpus[0]))
    gpus[0]["resources"]["max_ram_gb"] = 100  # less than 8 x 32 GB
    respx.get(LOCATIONS_URL).mock(return_value=httpx.Response(200, json=data))
    offers = by_type(fetch(TensorDockSource()))
    assert offers["h100-sxm5-80gb:8x"].ram_gb == 100
    rtx = offers["geforcertx4090-pcie-24gb:4x"]
    assert (rtx.accelerator, rtx.gpu_count, rtx.vcpus) == ("RTX4090", 4, 32)


@respx.mock
def test_bad_rows_are_dropped_with_reasons() -> None:
    data = body()
    gpus = data["data"]["locations"][0]["gpus"]
    good = gpus[0]
    bad_price, unknown = copy.deepcopy(good), copy.deepcopy(good)
    bad_price.update(v0Name="a", price_per_hr="abc")
    unknown.update(v0Name="zorblax-9000", displayName="Zorblax 9000")
    gpus.extend([bad_price, unknown])
    respx.get(LOCATIONS_URL).mock(return_value=httpx.Response(200, json=data))
    source = TensorDockSource()
    assert len(fetch(source)) == 2
    assert sorted(d.category for d in source.dropped) == ["no positive price", "unknown GPU"]


def test_needs_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TENSORDOCK_API_KEY")
    with pytest.raises(CredentialsMissingError):
        fetch(TensorDockSource())


@respx.mock
def test_schema_change_names_the_field() -> None:
    respx.get(LOCATIONS_URL).mock(return_value=httpx.Response(200, json={"hostnodes": {}}))
    with pytest.raises(SourceError, match="field 'data' missing"):
        fetch(TensorDockSource())
    data = body()
    for loc in data["data"]["locations"]:
        for gpu in loc["gpus"]:
            gpu["price"] = gpu.pop("price_per_hr")
    respx.get(LOCATIONS_URL).mock(return_value=httpx.Response(200, json=data))
    with pytest.raises(SourceError, match=r"price_per_hr' missing in all"):
        fetch(TensorDockSource())


@respx.mock
def test_a_list_under_data_is_the_locations_list() -> None:
    data = {"data": body()["data"]["locations"]}
    respx.get(LOCATIONS_URL).mock(return_value=httpx.Response(200, json=data))
    assert len(fetch(TensorDockSource())) == 2
