"""Vultr adapter against the recorded plans / plans-metal fixtures."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.vultr import METAL_URL, PLANS_URL, VultrSource
from tests.catalog.sources.samples import SleepRecorder, by_type, fetch, sample

CPU_PLAN = {"id": "vc2-1c-1gb", "vcpu_count": 1, "ram": 1024, "disk": 25, "hourly_cost": 0.007,
            "type": "vc2", "locations": ["ewr"]}  # fmt: skip


def plans(extra: list[dict[str, Any]] | None = None, cursor: str = "") -> dict[str, Any]:
    rows = sample("vultr")["plans_fixture"]["plans"] + (extra or [])
    return {"plans": rows, "meta": {"total": len(rows), "links": {"next": cursor, "prev": ""}}}


def metal() -> dict[str, Any]:
    data = sample("vultr")["plans_metal_fixture"]
    return {**data, "meta": {"total": 1, "links": {"next": "", "prev": ""}}}


@respx.mock
def test_vgpu_slice_full_card_and_metal_field_by_field() -> None:
    respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json=plans([CPU_PLAN])))
    respx.get(METAL_URL).mock(return_value=httpx.Response(200, json=metal()))
    src = VultrSource()
    offers = by_type(fetch(src))
    assert sorted(offers) == [
        "vbm-112c-2048gb-8-h100-gpu",
        "vcg-a100-12c-120g-80vram",
        "vcg-a100-1c-6g-4vram",
    ]
    assert src.dropped == []  # the CPU plan is not an offer and not a drop

    slice_ = offers["vcg-a100-1c-6g-4vram"]
    assert slice_.fractional and slice_.gpu_memory_gb == 4 and slice_.gpu_count == 1
    assert slice_.accelerator.startswith("A100-")
    assert slice_.price_usd_per_hour == pytest.approx(0.123)
    assert (slice_.vcpus, slice_.ram_gb, slice_.region) == (1, 6.44, "ewr")  # 6,144 MiB

    full = offers["vcg-a100-12c-120g-80vram"]
    assert not full.fractional and full.gpu_memory_gb == 80 and full.gpu_count == 1
    assert full.price_usd_per_hour == pytest.approx(2.397)
    assert full.ram_gb == 128.85 and full.disk_gb == 1400  # 120 GiB
    assert full.extra["included_transfer_gb_month"] == "10240"
    assert full.availability is Availability.AVAILABLE

    bm = offers["vbm-112c-2048gb-8-h100-gpu"]
    assert (bm.accelerator, bm.gpu_count, bm.gpu_memory_gb) == ("H100-SXM", 8, 80)
    assert bm.price_usd_per_hour == pytest.approx(23.92)
    assert bm.spot_price_usd_per_hour == pytest.approx(18.4)  # hourly_cost_preemptible
    assert bm.region == "sea" and bm.ram_gb == 2199.02 and bm.disk_gb == 1920  # 2,048 GiB
    assert bm.interconnect is Interconnect.NVLINK  # "h100": SXM assumed, with its NVLink baseboard


@respx.mock
def test_cursor_pagination_two_pages() -> None:
    extra = dict(
        sample("vultr")["plans_fixture"]["plans"][1], id="vcg-a100-24c-240g-160vram", gpu_vram_gb=160
    )
    second = {"plans": [extra], "meta": {"links": {"next": "", "prev": "c1"}}}
    respx.get(PLANS_URL, params={"cursor": "c1"}).mock(return_value=httpx.Response(200, json=second))
    respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json=plans(cursor="c1")))
    respx.get(METAL_URL).mock(return_value=httpx.Response(200, json={"plans_metal": []}))
    offers = by_type(fetch(VultrSource()))
    assert offers["vcg-a100-24c-240g-160vram"].gpu_count == 2  # 160 GB = two whole 80 GB cards
    assert "vcg-a100-1c-6g-4vram" in offers


@respx.mock
def test_unlisted_plan_is_unavailable() -> None:
    row = dict(sample("vultr")["plans_fixture"]["plans"][1], locations=[])
    respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json={"plans": [row]}))
    respx.get(METAL_URL).mock(return_value=httpx.Response(200, json={"plans_metal": []}))
    (o,) = fetch(VultrSource())
    assert (o.region, o.availability) == ("any", Availability.UNAVAILABLE)


@respx.mock
def test_schema_change_and_empty() -> None:
    respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json={"data": []}))
    with pytest.raises(SourceError, match="'plans' missing"):
        fetch(VultrSource())
    respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json={"plans": []}))
    respx.get(METAL_URL).mock(return_value=httpx.Response(200, json={"plans_metal": []}))
    assert fetch(VultrSource()) == []


@respx.mock
def test_503_retry_after_then_success() -> None:
    respx.get(PLANS_URL).mock(
        side_effect=[httpx.Response(503, headers={"Retry-After": "4"}), httpx.Response(200, json=plans())]
    )
    respx.get(METAL_URL).mock(return_value=httpx.Response(200, json=metal()))
    sleep = SleepRecorder()
    assert len(fetch(VultrSource(sleep=sleep))) == 3
    assert sleep.delays == [4.0]


@respx.mock
def test_metal_gpu_plan_whose_id_is_not_understood_is_a_counted_drop() -> None:
    """A bare-metal plan id ending in ``-gpu`` is a GPU plan; one the id pattern cannot read (no GPU
    count before the model, as in the recalled ``vbm-72c-480gb-gh200-gpu``) used to pass silently as a
    CPU plan, so the GPU offer vanished without a reason. It is now dropped with the reason named."""
    data = metal()
    odd = dict(data["plans_metal"][0], id="vbm-72c-480gb-gh200-gpu")
    data["plans_metal"].append(odd)
    respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json=plans([CPU_PLAN])))
    respx.get(METAL_URL).mock(return_value=httpx.Response(200, json=data))
    src = VultrSource()
    offers = by_type(fetch(src))
    assert "vbm-72c-480gb-gh200-gpu" not in offers and "vbm-112c-2048gb-8-h100-gpu" in offers
    assert [d.row for d in src.dropped] == ["vbm-72c-480gb-gh200-gpu"]
    assert "does not match the plan-id pattern ...-<count>-<gpu>-gpu" in src.dropped[0].reason
    assert src.dropped[0].invalid


@respx.mock
def test_a_dropped_metal_plan_id_is_said_not_to_match_the_pattern_whatever_it_lacks() -> None:
    """A GPU token with a hyphen ("8-h100-sxm") states its count, yet the drop said the id "states no GPU
    count before the model": the reason now says only that the id does not match the pattern."""
    data = metal()
    data["plans_metal"].append(dict(data["plans_metal"][0], id="vbm-112c-2048gb-8-h100-sxm-gpu"))
    respx.get(PLANS_URL).mock(return_value=httpx.Response(200, json=plans([CPU_PLAN])))
    respx.get(METAL_URL).mock(return_value=httpx.Response(200, json=data))
    src = VultrSource()
    fetch(src)
    (drop,) = src.dropped
    assert drop.row == "vbm-112c-2048gb-8-h100-sxm-gpu"
    assert "GPU count" not in drop.reason, drop.reason
    assert drop.reason == (
        "bare-metal GPU plan id 'vbm-112c-2048gb-8-h100-sxm-gpu' does not match the plan-id pattern "
        "...-<count>-<gpu>-gpu"
    )
