"""Vast.ai adapter against the recorded bundles payload."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.vastai import BUNDLES_URL, VastAISource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


def answer() -> dict:
    return sample("vastai")["response"]


@respx.mock
def test_parses_recorded_offer_field_by_field() -> None:
    route = respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json=answer()))
    offers = fetch(VastAISource())
    assert route.called
    body = json.loads(route.calls[0].request.content)
    assert body["rentable"] == {"eq": True} and body["limit"] == 3000
    (o,) = offers
    assert o.provider == "vastai"
    assert o.instance_type == "offer-5006600"
    assert o.region == "Norway"
    assert o.accelerator == "RTX3090"
    assert o.gpu_count == 1
    assert o.gpu_memory_gb == 24.0  # gpu_ram 24576 "MB" (MiB) -> 24 GB canonical
    assert o.price_usd_per_hour == pytest.approx(0.322777777777778)  # dph_total
    assert o.spot_price_usd_per_hour == pytest.approx(0.1438056)  # min_bid
    assert o.storage_usd_per_gb_month == pytest.approx(0.2)
    assert o.egress_usd_per_gb == pytest.approx(0.03)  # inet_up_cost: data leaving the host
    assert o.extra["inet_down_cost"] == "0.03"
    assert o.availability is Availability.AVAILABLE
    assert o.vcpus == 4  # cpu_cores_effective, the offer's share of 16 cores
    assert o.ram_gb == pytest.approx(128556 * 1.048576e-3 * 4 / 16, rel=1e-3)  # MiB -> GB
    assert o.disk_gb == pytest.approx(49.75)
    assert o.interconnect is Interconnect.PCIE  # bw_nvlink 0
    assert not o.fractional  # gpu_frac 0.25 is a share of the machine's GPUs, not a slice
    assert "verified" in o.notes and "99.94%" in o.notes
    assert o.extra["machine_id"] == "2555"
    assert o.source.startswith("vastai:https://console.vast.ai")
    assert o.observed_at is not None and o.observed_at.tzinfo is not None


@respx.mock
def test_unknown_gpu_is_dropped_with_reason() -> None:
    data = answer()
    bad = dict(data["offers"][0], id=1, gpu_name="Quantum Flux 9000")
    data["offers"].append(bad)
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json=data))
    src = VastAISource()
    offers = fetch(src)
    assert [o.instance_type for o in offers] == ["offer-5006600"]
    assert len(src.dropped) == 1
    assert src.dropped[0].row == "offer 1"
    assert "unknown GPU 'Quantum Flux 9000'" in src.dropped[0].reason


@respx.mock
def test_memory_contradicting_the_name_is_dropped() -> None:
    data = answer()
    data["offers"][0]["gpu_ram"] = 81920  # an "RTX 3090" with 80 GB is not a card that exists
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json=data))
    src = VastAISource()
    assert fetch(src) == []
    assert "matches no variant" in src.dropped[0].reason


@respx.mock
def test_schema_change_in_rows_names_the_field() -> None:
    data = answer()
    data["offers"][0]["gpu_model"] = data["offers"][0].pop("gpu_name")  # renamed upstream
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json=data))
    with pytest.raises(SourceError, match="gpu_name"):
        fetch(VastAISource())


@respx.mock
def test_schema_change_in_envelope_names_the_field() -> None:
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json={"bundles": []}))
    with pytest.raises(SourceError, match="'offers' missing"):
        fetch(VastAISource())


@respx.mock
def test_empty_answer_is_empty_list() -> None:
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json={"offers": []}))
    assert fetch(VastAISource()) == []


@respx.mock
def test_429_with_retry_after_then_success() -> None:
    respx.post(BUNDLES_URL).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "7"}, text="slow down"),
            httpx.Response(200, json=answer()),
        ]
    )
    sleep = SleepRecorder()
    offers = fetch(VastAISource(sleep=sleep))
    assert len(offers) == 1
    assert sleep.delays == [7.0]


@respx.mock
def test_malformed_json_is_a_source_error() -> None:
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, text="<html>maintenance</html>"))
    with pytest.raises(SourceError, match="malformed JSON"):
        fetch(VastAISource())


def test_no_credentials_needed() -> None:
    src = VastAISource()
    assert src.needs_credentials == ()
    assert src.credentials_present()


@respx.mock
def test_garbage_rows_are_dropped_not_fatal() -> None:
    data = answer()
    good = data["offers"][0]
    data["offers"] = [
        42,
        dict(good, id=2, num_gpus="many"),
        dict(good, id=3, num_gpus=float("inf")),
        dict(good, id=4, gpu_ram=[1, 2]),
        dict(good, id=5, dph_total=-3, min_bid=None),
        good,
    ]
    body = json.dumps(data)  # allows "Infinity", as a misbehaving server might send
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, content=body))
    src = VastAISource()
    assert [o.instance_type for o in fetch(src)] == ["offer-5006600"]
    reasons = {d.row: d.reason for d in src.dropped}
    assert reasons["offer 2"] == "field 'offers[].num_gpus' is 'many', expected a number"
    assert reasons["offer 3"] == "field 'offers[].num_gpus' is inf, expected a finite number"
    assert "gpu_ram" in reasons["offer 4"]
    assert reasons["offer 5"] == "no positive on-demand or spot price"
    assert len(src.dropped) == 5


@respx.mock
def test_nvlink_bandwidth_on_bridged_pcie_cards_is_not_a_full_nvlink_box() -> None:
    # bw_nvlink > 0 says the host's GPUs have NVLink. On SXM modules that is the switched baseboard every
    # GPU of the box is on; on PCIe cards (A100 PCIe, RTX 3090: "NVLink 3 bridge (2 GPUs)") it is bridges
    # joining pairs, the box's other GPUs reached over PCIe: the offer is pcie, its notes say bridges.
    data = answer()
    base = data["offers"][0]
    data["offers"] = [
        dict(base, id=1, gpu_name="A100 PCIE", gpu_ram=81920, num_gpus=4, bw_nvlink=93.5),
        dict(base, id=2, gpu_name="RTX 3090", num_gpus=2, bw_nvlink=56.2),
        dict(base, id=3, gpu_name="H100 SXM", gpu_ram=81559, num_gpus=8, bw_nvlink=372.0),
    ]
    respx.post(BUNDLES_URL).mock(return_value=httpx.Response(200, json=data))
    offers = {o.instance_type: o for o in fetch(VastAISource())}
    a100, rtx, h100 = offers["offer-1"], offers["offer-2"], offers["offer-3"]
    assert (a100.accelerator, rtx.accelerator, h100.accelerator) == ("A100-PCIe-80GB", "RTX3090", "H100-SXM")
    assert a100.interconnect is Interconnect.PCIE and rtx.interconnect is Interconnect.PCIE
    assert "NVLink bridges" in a100.notes and "NVLink bridges" in rtx.notes
    assert h100.interconnect is Interconnect.NVLINK and "NVLink bridges" not in h100.notes
