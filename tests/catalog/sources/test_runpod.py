"""RunPod adapter (REST v2 catalogue) against the official example response and variations of it."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.runpod import GPUS_URL, RunPodSource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNPOD_API_KEY", "rp-key")


def example() -> dict[str, Any]:
    return sample("runpod_rest_v2")["gpus"][0]  # the OpenAPI example: RTX 4090, one data centre


def answer(types: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"gpus": [example()] if types is None else types}


def mock(types: list[dict[str, Any]] | None = None) -> respx.Route:
    return respx.get(GPUS_URL).mock(return_value=httpx.Response(200, json=answer(types)))


def index(offers: list[Any]) -> dict[tuple[str, str, bool | None], Any]:
    # the instance type names the cloud ("1x NVIDIA GeForce RTX 4090 (secure)"); keyed here without it
    return {(o.instance_type.rsplit(" (", 1)[0], o.region, o.secure): o for o in offers}


@respx.mock
def test_the_official_example_field_by_field() -> None:
    route = mock()
    offers = index(fetch(RunPodSource()))
    assert route.call_count == 2
    sent = [dict(c.request.url.params) for c in route.calls]
    assert sent == [
        {"include": "AVAILABILITY", "product": "POD", "cloud": "SECURE"},
        {"include": "AVAILABILITY", "product": "POD", "cloud": "COMMUNITY"},
    ]
    assert route.calls[0].request.headers["Authorization"] == "Bearer rp-key"
    assert sorted(offers) == [
        ("1x NVIDIA GeForce RTX 4090", "US-KS-2", False),
        ("1x NVIDIA GeForce RTX 4090", "US-KS-2", True),
        ("4x NVIDIA GeForce RTX 4090", "US-KS-2", False),
        ("8x NVIDIA GeForce RTX 4090", "US-KS-2", True),
    ]
    one = offers[("1x NVIDIA GeForce RTX 4090", "US-KS-2", True)]
    assert (one.accelerator, one.gpu_count, one.gpu_memory_gb) == ("RTX4090", 1, 24)
    assert one.price_usd_per_hour == pytest.approx(0.44)  # price.secure, per GPU-hour
    assert one.spot_price_usd_per_hour is None  # the v2 catalogue states no interruptible price
    assert one.availability is Availability.AVAILABLE  # data centre HIGH
    assert one.interconnect is Interconnect.PCIE
    assert one.extra["data_center"] == "US Kansas 2"
    eight = offers[("8x NVIDIA GeForce RTX 4090", "US-KS-2", True)]
    assert eight.price_usd_per_hour == pytest.approx(8 * 0.44)  # maxCount.secure 8
    assert eight.availability is Availability.UNKNOWN  # stock is stated for one GPU only
    four = offers[("4x NVIDIA GeForce RTX 4090", "US-KS-2", False)]
    assert four.price_usd_per_hour == pytest.approx(4 * 0.31)  # community, maxCount.community 4


@respx.mock
def test_stock_levels_per_data_centre() -> None:
    t = example()
    t["dataCenters"] = [
        {"id": "EU-RO-1", "name": "Romania", "availability": "LOW"},
        {"id": "US-TX-3", "name": "Texas", "availability": "NONE"},
        {"id": "CA-MTL-1", "name": "Montreal", "availability": "MEDIUM"},
    ]
    mock([t])
    offers = index(fetch(RunPodSource()))
    assert offers[("1x NVIDIA GeForce RTX 4090", "EU-RO-1", True)].availability is Availability.LIMITED
    assert offers[("1x NVIDIA GeForce RTX 4090", "US-TX-3", True)].availability is Availability.UNAVAILABLE
    assert offers[("8x NVIDIA GeForce RTX 4090", "US-TX-3", True)].availability is Availability.UNAVAILABLE
    assert offers[("1x NVIDIA GeForce RTX 4090", "CA-MTL-1", True)].availability is Availability.AVAILABLE


@respx.mock
def test_without_data_centres_the_type_wide_availability_is_used() -> None:
    t = example()
    del t["dataCenters"]
    t["availability"] = "LOW"
    mock([t])
    offers = index(fetch(RunPodSource()))
    assert offers[("1x NVIDIA GeForce RTX 4090", "any", True)].availability is Availability.LIMITED


@respx.mock
def test_a_cloud_that_does_not_offer_the_type_gives_no_offer_and_no_drop() -> None:
    t = example()
    t["secure"] = False  # its price.secure (0.44) is then a placeholder
    mock([t])
    source = RunPodSource()
    offers = fetch(source)
    assert {o.secure for o in offers} == {False}
    assert source.dropped == []


@respx.mock
def test_a_zero_price_is_an_invalid_row_not_a_free_gpu() -> None:
    t = example()
    t["price"]["secure"] = 0
    mock([t])
    source = RunPodSource()
    offers = fetch(source)
    assert {o.secure for o in offers} == {False}
    [drop] = source.dropped
    assert (
        drop.invalid
        and drop.category == "no positive price"
        and drop.row == "NVIDIA GeForce RTX 4090 (secure)"
    )


def _from_graphql(row: dict[str, Any]) -> dict[str, Any]:
    """A v2 ``GpuType`` for a type of the recorded GraphQL answer (same id strings, per the source note)."""
    t = copy.deepcopy(example())
    t.update(id=row["id"], name=row["displayName"], memory=row["memoryInGb"])
    t["price"] = {"secure": row["securePrice"], "community": row["communityPrice"], "serverless": None}
    t["secure"] = bool(row["securePrice"])
    return t


@respx.mock
def test_the_ids_of_the_recorded_graphql_answer_resolve() -> None:
    rows = sample("runpod_graphql_gpuindex")["data"]["gpuTypes"]
    mock([_from_graphql(r) for r in rows])
    source = RunPodSource()
    accelerators = {(o.extra["display_name"], o.accelerator) for o in fetch(source)}
    assert accelerators == {
        ("A100 SXM 40GB", "A100-SXM4-40GB"),  # community only: securePrice 0 means "not offered"
        ("B200", "B200"),
        ("B300", "B300"),
        ("H100 SXM", "H100-SXM"),
        ("H200 SXM", "H200-SXM"),
        ("L40S", "L40S"),
        ("MI300X", "MI300X"),
        ("RTX 3070", "RTX3070"),
        ("RTX 4090", "RTX4090"),
    }
    assert source.dropped == []


@respx.mock
def test_unknown_gpu_is_dropped_with_a_reason() -> None:
    t = example()
    t.update(id="Zorblax 9000 Ultra", name="Zorblax")
    mock([t, example()])
    source = RunPodSource()
    assert fetch(source)
    assert {d.category for d in source.dropped} == {"unknown GPU"}


def test_needs_the_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RUNPOD_API_KEY")
    source = RunPodSource()
    assert source.missing_credentials() == ("RUNPOD_API_KEY",)
    with pytest.raises(CredentialsMissingError):
        fetch(source)


@respx.mock
def test_schema_change_names_the_field() -> None:
    respx.get(GPUS_URL).mock(return_value=httpx.Response(200, json={"data": []}))
    with pytest.raises(SourceError, match="field 'gpus' missing"):
        fetch(RunPodSource())
    types = [example(), example()]
    for t in types:
        t["vram"] = t.pop("memory")
    mock(types)
    with pytest.raises(SourceError, match=r"field 'gpus\[\]\.memory' missing in all"):
        fetch(RunPodSource())


@respx.mock
def test_429_retry_after_http_date_then_success() -> None:
    respx.get(GPUS_URL).mock(
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
def test_refused_key_is_a_source_error() -> None:
    respx.get(GPUS_URL).mock(return_value=httpx.Response(401, json={"error": "unauthorized"}))
    with pytest.raises(SourceError, match="refused, check the credentials"):
        fetch(RunPodSource())
