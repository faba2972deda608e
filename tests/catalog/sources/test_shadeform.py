"""Shadeform adapter against the recorded instance-types fixtures."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.shadeform import TYPES_URL, ShadeformSource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHADEFORM_API_KEY", "sf-key")


def answer() -> dict[str, Any]:
    return sample("shadeform")["response"]


@respx.mock
def test_recorded_types_field_by_field() -> None:
    route = respx.get(TYPES_URL).mock(return_value=httpx.Response(200, json=answer()))
    src = ShadeformSource()
    offers = {(o.instance_type, o.region): o for o in fetch(src)}
    assert route.calls[0].request.headers["X-API-KEY"] == "sf-key"

    a10g = offers[("lambda:A10Gx1", "us-east")]
    assert (a10g.provider, a10g.accelerator, a10g.gpu_count, a10g.gpu_memory_gb) == (
        "shadeform",
        "A10G",
        1,
        24,
    )
    assert a10g.price_usd_per_hour == pytest.approx(1.50)  # 150 cents
    assert (a10g.vcpus, a10g.ram_gb, a10g.disk_gb) == (4, 16, 128)
    assert a10g.availability is Availability.AVAILABLE
    assert a10g.extra["cloud"] == "lambda"

    a100 = offers[("runpod:A100_80G", "any")]
    assert a100.accelerator == "A100-PCIe-80GB"  # interconnect "pcie" pins the variant
    assert a100.interconnect is Interconnect.PCIE
    assert a100.price_usd_per_hour == pytest.approx(2.03)
    assert a100.extra["cloud_instance_type"] == "NVIDIA A100 80GB PCIe"

    # The Crusoe fixture has no "configuration": num_gpus at top level, GPU named by the type.
    crusoe = offers[("crusoe:H100_sxm5x8", "us-east1-a")]
    assert (crusoe.accelerator, crusoe.gpu_count, crusoe.price_usd_per_hour) == ("H100-SXM", 8, 27.80)
    assert crusoe.interconnect is Interconnect.NVLINK
    assert offers[("crusoe:H100_sxm5x8", "eu-iceland1-a")].availability is Availability.UNAVAILABLE
    assert src.dropped == []


@respx.mock
def test_per_region_availability_booleans() -> None:
    data = answer()
    crusoe = data["instance_types"][2]
    crusoe["configuration"] = {
        "gpu_type": "H100",
        "num_gpus": 8,
        "interconnect": "sxm",
        "vram_per_gpu_in_gb": 80,
    }
    respx.get(TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    offers = {(o.instance_type, o.region): o for o in fetch(ShadeformSource())}
    assert offers[("crusoe:H100_sxm5x8", "us-east1-a")].availability is Availability.AVAILABLE
    assert offers[("crusoe:H100_sxm5x8", "us-east1-a")].extra["region_name"] == "US, Virginia"
    assert offers[("crusoe:H100_sxm5x8", "eu-iceland1-a")].availability is Availability.UNAVAILABLE
    assert offers[("crusoe:H100_sxm5x8", "us-east1-a")].price_usd_per_hour == pytest.approx(27.80)


@respx.mock
def test_schema_change_names_the_field_and_empty() -> None:
    data = answer()
    for row in data["instance_types"]:
        row["price_hourly"] = row.pop("hourly_price")
    respx.get(TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    with pytest.raises(SourceError, match="hourly_price"):
        fetch(ShadeformSource())
    respx.get(TYPES_URL).mock(return_value=httpx.Response(200, json={"instance_types": []}))
    assert fetch(ShadeformSource()) == []


@respx.mock
def test_429_then_success() -> None:
    respx.get(TYPES_URL).mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "1.5"}), httpx.Response(200, json=answer())]
    )
    sleep = SleepRecorder()
    assert fetch(ShadeformSource(sleep=sleep))
    assert sleep.delays == [1.5]


@respx.mock
def test_nvlink_stated_for_pcie_cards_is_bridges_not_a_full_nvlink_box() -> None:
    # interconnect "nvlink" on an H100 PCIe box is NVLink bridges between pairs of cards (the card's only
    # NVLink), not a switched baseboard: the offer is pcie and its notes say so
    data = answer()
    row = data["instance_types"][1]
    row["shade_instance_type"] = "H100_pcie_nvlinkx8"
    row["configuration"].update(gpu_type="H100_PCIe", num_gpus=8, interconnect="nvlink")
    data["instance_types"] = [row]
    respx.get(TYPES_URL).mock(return_value=httpx.Response(200, json=data))
    (o,) = fetch(ShadeformSource())
    assert (o.accelerator, o.gpu_count) == ("H100-PCIe", 8)
    assert o.interconnect is Interconnect.PCIE
    assert "NVLink bridges" in o.notes
