"""Verda (ex-DataCrunch) adapter against the recorded instance types and availabilities."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.sources.base import CredentialsMissingError, SourceError
from gpuscout.catalog.sources.verda import AVAILABILITY_URL, INSTANCE_TYPES_URL, TOKEN_URL, VerdaSource
from tests.catalog.sources.samples import SleepRecorder, fetch, sample


@pytest.fixture(autouse=True)
def _creds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERDA_CLIENT_ID", "cid")
    monkeypatch.setenv("VERDA_CLIENT_SECRET", "csecret")


def types() -> list[dict[str, Any]]:
    return sample("verda_v1")  # H100, 2x A6000, a CPU node, V100


SPOT = sample("verda_datacrunch")["availability_items"]  # recorded with get_availabilities(is_spot=True)
ON_DEMAND = [{"location_code": "FIN-02", "availabilities": ["2A6000.20V"]}]


def mock_all(availability: httpx.Response | None = None, on_demand: Any = ON_DEMAND) -> respx.Route:
    token = respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json={"access_token": "tok"}))
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=types()))
    respx.get(AVAILABILITY_URL, params={"is_spot": "true"}).mock(
        return_value=availability or httpx.Response(200, json=SPOT)
    )
    respx.get(AVAILABILITY_URL).mock(return_value=availability or httpx.Response(200, json=on_demand))
    return token


@respx.mock
def test_types_and_availability_field_by_field() -> None:
    token = mock_all()
    offers = {(o.instance_type, o.region): o for o in fetch(VerdaSource())}
    assert json.loads(token.calls[0].request.content) == {
        "grant_type": "client_credentials",
        "client_id": "cid",
        "client_secret": "csecret",
    }
    h100 = offers[("1H100.80S.30V", "any")]  # listed in no location -> unavailable
    assert h100.availability is Availability.UNAVAILABLE
    assert (h100.accelerator, h100.gpu_count, h100.gpu_memory_gb) == ("H100-SXM", 1, 80)
    assert h100.price_usd_per_hour == pytest.approx(3.95)  # string "3.95", per instance
    assert h100.spot_price_usd_per_hour == pytest.approx(1.70)
    assert (h100.vcpus, h100.ram_gb) == (30, 120)
    assert h100.interconnect is Interconnect.NVLINK

    a6000 = offers[("2A6000.20V", "FIN-02")]  # on-demand capacity listed there
    assert a6000.availability is Availability.AVAILABLE
    spot_only = offers[("2A6000.20V", "FIN-01")]  # only spot capacity listed there: the spot price only
    assert spot_only.availability is Availability.AVAILABLE and "only spot capacity" in spot_only.notes
    assert spot_only.price_usd_per_hour is None
    v100 = offers[("1V100.6V", "FIN-01")]
    assert (v100.accelerator, v100.spot_price_usd_per_hour) == ("V100-SXM2-16GB", pytest.approx(0.25))
    assert not any(o.instance_type.startswith("CPU") for o in offers.values())
    assert (a6000.accelerator, a6000.gpu_count, a6000.gpu_memory_gb) == ("A6000", 2, 48)  # 96 GB total / 2
    assert a6000.price_usd_per_hour == pytest.approx(1.98)
    assert a6000.price_usd_per_gpu_hour == pytest.approx(0.99)
    assert a6000.extra["p2p"] == "50GB/s"


@respx.mock
def test_availability_failure_keeps_prices_with_unknown_availability() -> None:
    mock_all(httpx.Response(404, json={"code": "not_found"}))
    src = VerdaSource()
    offers = fetch(src)
    assert {(o.region, o.availability) for o in offers} == {("any", Availability.UNKNOWN)}
    assert len(offers) == 3
    assert src.warnings and "availability unknown" in src.warnings[0]


def test_credentials_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERDA_CLIENT_SECRET")
    src = VerdaSource()
    assert src.missing_credentials() == ("VERDA_CLIENT_SECRET",)
    with pytest.raises(CredentialsMissingError):
        fetch(src)


@respx.mock
def test_schema_change_and_empty() -> None:
    rows = types()
    for r in rows:
        r["price"] = r.pop("price_per_hour")
    mock_all()
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=rows))
    with pytest.raises(SourceError, match="price_per_hour"):
        fetch(VerdaSource())
    respx.get(INSTANCE_TYPES_URL).mock(return_value=httpx.Response(200, json=[]))
    assert fetch(VerdaSource()) == []


@respx.mock
def test_token_failure_is_a_source_error() -> None:
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json={"error": "invalid_client"}))
    with pytest.raises(SourceError, match="access_token"):
        fetch(VerdaSource())


@respx.mock
def test_429_on_instance_types_then_success() -> None:
    mock_all()
    respx.get(INSTANCE_TYPES_URL).mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "2"}), httpx.Response(200, json=types())]
    )
    sleep = SleepRecorder()
    assert len(fetch(VerdaSource(sleep=sleep))) == 4
    assert sleep.delays == [2.0]


def test_the_documented_host() -> None:
    assert INSTANCE_TYPES_URL == "https://api.verda.com/v1/instance-types"
    assert TOKEN_URL == "https://api.verda.com/v1/oauth2/token"


@respx.mock
def test_prices_are_asked_for_in_usd() -> None:
    mock_all()
    fetch(VerdaSource())
    [call] = [c for c in respx.calls if c.request.url.path.endswith("/instance-types")]
    assert call.request.url.params["currency"] == "usd"
    assert call.request.headers["Authorization"] == "Bearer tok"


@respx.mock
def test_each_price_follows_its_own_capacity() -> None:
    """On-demand availability follows the on-demand list alone, spot's the spot list: a location with
    only spot capacity offers the spot price, not the on-demand one as "limited"."""
    mock_all(on_demand=[{"location_code": "FIN-02", "availabilities": ["2A6000.20V"]}])
    offers = {(o.instance_type, o.region): o for o in fetch(VerdaSource())}
    spot_only = offers[("2A6000.20V", "FIN-01")]  # in the recorded spot list only
    assert spot_only.price_usd_per_hour is None  # on demand cannot be bought there now
    assert spot_only.spot_price_usd_per_hour == pytest.approx(0.70)
    assert spot_only.availability is Availability.AVAILABLE
    assert "only spot capacity" in spot_only.notes and "1.98" in spot_only.notes
    on_demand_only = offers[("2A6000.20V", "FIN-02")]  # in the on-demand list only
    assert on_demand_only.price_usd_per_hour == pytest.approx(1.98)
    assert on_demand_only.spot_price_usd_per_hour is None  # no spot capacity listed there
    assert on_demand_only.availability is Availability.AVAILABLE
    assert "no spot capacity" in on_demand_only.notes
    nowhere = offers[("1H100.80S.30V", "any")]  # listed in neither: both prices, unavailable
    assert (nowhere.price_usd_per_hour, nowhere.spot_price_usd_per_hour) == (
        pytest.approx(3.95),
        pytest.approx(1.70),
    )
    assert nowhere.availability is Availability.UNAVAILABLE
    assert not any(o.availability is Availability.LIMITED for o in offers.values())


@respx.mock
def test_a_location_listed_for_both_carries_both_prices() -> None:
    both = [{"location_code": "FIN-01", "availabilities": ["2A6000.20V"]}]
    mock_all(on_demand=both)
    a6000 = {(o.instance_type, o.region): o for o in fetch(VerdaSource())}[("2A6000.20V", "FIN-01")]
    assert (a6000.price_usd_per_hour, a6000.spot_price_usd_per_hour) == (
        pytest.approx(1.98),
        pytest.approx(0.70),
    )
    assert a6000.availability is Availability.AVAILABLE
