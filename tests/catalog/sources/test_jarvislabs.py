"""Jarvislabs adapter against gpuhunt's server_meta fixture (string numbers, vm and container rows)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.jarvislabs import SERVER_META_URL, JarvislabsSource
from tests.catalog.sources.samples import fetch, sample


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JL_API_KEY", "jl-key")


def meta() -> dict[str, Any]:
    return sample("jarvislabs")


def index(offers: list[Any]) -> dict[tuple[str, str], Any]:
    return {(o.instance_type, o.region): o for o in offers}


@respx.mock
def test_recorded_fixture_field_by_field() -> None:
    route = respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=meta()))
    source = JarvislabsSource()
    offers = index(fetch(source))
    assert route.calls[0].request.headers["Authorization"] == "Bearer jl-key"
    assert source.dropped == []
    l4 = offers[("vm:L4:1x", "india-noida-01")]
    assert (l4.accelerator, l4.gpu_count, l4.gpu_memory_gb) == ("L4", 1, 24)
    assert l4.price_usd_per_hour == pytest.approx(0.44) and l4.spot_price_usd_per_hour is None  # vm: no spot
    assert offers[("container:L4:1x", "india-noida-01")].spot_price_usd_per_hour == pytest.approx(0.29)
    assert l4.availability is Availability.AVAILABLE and l4.available_count == 3
    assert (l4.vcpus, l4.ram_gb) == (28, 124)
    eight = offers[("container:L4:8x", "india-noida-01")]  # num_gpus "8": per-GPU price x 8
    assert eight.price_usd_per_hour == pytest.approx(8 * 0.44)
    assert eight.availability is Availability.UNAVAILABLE  # 3 free
    a100 = offers[("vm:A100-80GB:4x", "india-noida-01")]
    assert a100.accelerator.startswith("A100") and a100.gpu_memory_gb == 80
    assert a100.price_usd_per_hour == pytest.approx(4 * 1.49)
    h100 = offers[("vm:H100:1x", "europe-01")]  # an older row: no num_gpus, no workload_type
    assert h100.spot_price_usd_per_hour is None and h100.available_count == 25
    assert ("vm:H100:2x", "europe-01") not in offers
    pro = offers[("vm:RTX PRO 6000:1x", "india-noida-01")]  # spaced spelling of RTX-PRO6000
    assert pro.accelerator == offers[("vm:RTX-PRO6000:1x", "india-chennai-01")].accelerator


@respx.mock
def test_bad_rows_and_other_currencies_are_dropped() -> None:
    data = meta()
    rows = data["server_meta"]
    rows[0]["price_per_hour"] = "abc"
    rows[0]["spot_price"] = None
    rows[1]["gpu_type"] = "Zorblax-9000"
    rows[2]["currency"] = "INR"
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=data))
    source = JarvislabsSource()
    fetch(source)
    assert sorted(d.category for d in source.dropped) == [
        "no positive price",
        "price not in USD",
        "unknown GPU",
    ]


def test_needs_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JL_API_KEY")
    with pytest.raises(CredentialsMissingError):
        fetch(JarvislabsSource())


@respx.mock
def test_schema_change() -> None:
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json={"success": False}))
    with pytest.raises(SourceError, match="field 'server_meta' missing"):
        fetch(JarvislabsSource())


@respx.mock
def test_spot_price_follows_the_spot_count() -> None:
    """A container's spot price is on offer only where ``spot_num_free_devices`` covers the count; the
    on-demand price follows ``effective_num_free_devices`` alone."""
    data = meta()
    container = data["server_meta"][0]  # container L4, india-noida-01: 3 free on demand, 2 spot
    assert (container["workload_type"], container["spot_num_free_devices"]) == ("container", 2)
    container["spot_num_free_devices"] = 0
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=data))
    one = index(fetch(JarvislabsSource()))[("container:L4:1x", "india-noida-01")]
    assert one.price_usd_per_hour == pytest.approx(0.44)
    assert one.spot_price_usd_per_hour is None  # no spot GPU free: the spot price is not on offer
    assert one.availability is Availability.AVAILABLE and one.available_count == 3
    assert "0 GPUs free" in one.notes

    container["spot_num_free_devices"] = 2
    container["effective_num_free_devices"] = container["num_free_devices"] = 0
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=data))
    spot_only = index(fetch(JarvislabsSource()))[("container:L4:1x", "india-noida-01")]
    assert spot_only.price_usd_per_hour is None  # nothing free on demand
    assert spot_only.spot_price_usd_per_hour == pytest.approx(0.29)
    assert spot_only.availability is Availability.AVAILABLE and spot_only.available_count == 2


@respx.mock
def test_a_spot_count_the_feed_does_not_state_is_not_zero() -> None:
    """With no ``spot_num_free_devices`` the notes say "free count not stated" but ``extra["spot_free"]``
    read "0" (none free); it is now "" (not stated), and a stated count, 0 too, is kept."""
    data = meta()
    container = data["server_meta"][0]  # container L4, india-noida-01: 2 spot GPUs free
    del container["spot_num_free_devices"]
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=data))
    unstated = index(fetch(JarvislabsSource()))[("container:L4:1x", "india-noida-01")]
    assert "spot (interruptible): free count not stated" in unstated.notes
    assert unstated.extra["spot_free"] == ""

    container["spot_num_free_devices"] = 0
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=data))
    none_free = index(fetch(JarvislabsSource()))[("container:L4:1x", "india-noida-01")]
    assert none_free.extra["spot_free"] == "0" and "0 GPUs free" in none_free.notes


@respx.mock
def test_nothing_free_keeps_both_prices_unavailable() -> None:
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=meta()))
    eight = index(fetch(JarvislabsSource()))[("container:L4:8x", "india-noida-01")]  # 3 free, 2 spot
    assert (eight.price_usd_per_hour, eight.spot_price_usd_per_hour) == (
        pytest.approx(8 * 0.44),
        pytest.approx(8 * 0.29),
    )
    assert eight.availability is Availability.UNAVAILABLE and eight.available_count == 0
