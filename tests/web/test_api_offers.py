"""JSON API: offers with filters, sort, pages, and errors naming the field at fault."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from tests.web.conftest import NOW, XSS


def test_offers_default_sort_is_cheapest_per_gpu_hour_first(client: TestClient) -> None:
    body = client.get("/api/v1/offers").json()
    assert body["total"] == 8  # the stale d-l40s is hidden unless asked for
    assert client.get("/api/v1/offers", params={"include_stale": "true"}).json()["total"] == 9
    prices = [o["price_usd_per_gpu_hour"] for o in body["items"]]
    known = [p for p in prices if p is not None]
    assert known == sorted(known)
    assert prices[-1] is None  # the spot-only offer has no on-demand price: unknown goes last
    assert known[0] == 0.4  # 4x RTX4090 at $1.60/h


def test_filters_gpu_family_and_max_price(client: TestClient) -> None:
    body = client.get("/api/v1/offers", params={"gpu": "H100", "max_price": 5}).json()
    assert {(o["provider"], o["instance_type"]) for o in body["items"]} == {
        ("alphacloud", "h100x1"),
        ("betagpu", "b-h100"),
    }


def test_filters_interconnect_pricing_available_provider_region(client: TestClient) -> None:
    get = lambda **p: client.get("/api/v1/offers", params=p).json()["items"]  # noqa: E731
    assert {o["instance_type"] for o in get(interconnect="nvlink")} == {"h100x8", "b-a100"}
    spot = get(pricing="spot")
    assert all(o["spot_price_usd_per_hour"] is not None for o in spot) and len(spot) == 4
    assert "b-a100" not in {o["instance_type"] for o in get(available="true")}
    assert {o["provider"] for o in get(provider="betagpu,alphacloud")} == {"betagpu", "alphacloud"}
    assert {o["instance_type"] for o in get(region="eu-")} == {"h100x1"}
    assert {o["instance_type"] for o in get(min_vram=48, gpus=1, gpu="L40S")} == {f"evil{XSS}"}
    assert {o["instance_type"] for o in get(min_vram=48, gpus=1, gpu="L40S", include_stale="true")} == {
        "d-l40s",
        f"evil{XSS}",
    }


def test_sort_on_every_column_and_direction(client: TestClient) -> None:
    for column in (
        "provider",
        "instance",
        "gpu",
        "gpu_count",
        "vram",
        "interconnect",
        "region",
        "price",
        "spot_price",
        "price_per_gpu",
        "availability",
        "age",
        "source",
    ):
        asc = client.get("/api/v1/offers", params={"sort": column}).json()["items"]
        desc = client.get("/api/v1/offers", params={"sort": column, "order": "desc"}).json()["items"]
        assert len(asc) == len(desc) == 8, column
    by_price = client.get("/api/v1/offers", params={"sort": "price", "order": "desc"}).json()["items"]
    assert by_price[0]["price_usd_per_hour"] == 24.0
    by_vram = client.get("/api/v1/offers", params={"sort": "vram"}).json()["items"]
    assert by_vram[0]["gpu_memory_gb"] == 24.0  # memory per GPU, smallest first


def test_spot_mode_sorts_and_prices_per_gpu_by_the_spot_price(spot_client: TestClient) -> None:
    items = spot_client.get("/api/v1/offers", params={"pricing": "spot"}).json()["items"]
    assert [o["instance_type"] for o in items] == ["deep-spot", "shallow-spot"]  # by spot $/GPU-h
    on_demand = spot_client.get("/api/v1/offers").json()["items"]
    assert [o["instance_type"] for o in on_demand] == ["shallow-spot", "deep-spot"]  # by on-demand


def test_pages_are_bounded_and_consistent(client: TestClient) -> None:
    first = client.get("/api/v1/offers", params={"per_page": 4, "page": 1, "include_stale": "true"}).json()
    second = client.get("/api/v1/offers", params={"per_page": 4, "page": 3, "include_stale": "true"}).json()
    assert first["pages"] == 3 and len(first["items"]) == 4 and len(second["items"]) == 1
    too_big = client.get("/api/v1/offers", params={"per_page": 100000})
    assert too_big.status_code == 422
    assert too_big.json()["field"] == "per_page"


def _hours_since(t: datetime) -> float:
    return (t - NOW).total_seconds() / 3600


def test_age_and_stale_flags(client: TestClient) -> None:
    # the fixture's offers were stamped at import (NOW - 1 h); a long, contended run can reach this test
    # well after that, so the age is bounded by the clock around the request, not by a fixed window
    before = datetime.now(UTC)
    rows = client.get("/api/v1/offers", params={"include_stale": "true"}).json()["items"]
    after = datetime.now(UTC)
    items = {o["instance_type"]: o for o in rows}
    assert items["d-l40s"]["observed_at"] is None and items["d-l40s"]["age_hours"] is None
    assert items["d-l40s"]["stale"] is True  # flagged by the catalog (old feed)
    assert items["b-h100"]["stale"] is False  # 30 h old, within 2 days of the newest live row
    assert items["g-4090"]["stale"] is False
    assert 1 + _hours_since(before) - 0.01 <= items["g-4090"]["age_hours"] <= 1 + _hours_since(after) + 0.01
    assert items[f"evil{XSS}"]["source_url"] is None  # a javascript: "URL" is never a link


def test_unknown_gpu_is_422_with_field_and_closest_names(client: TestClient) -> None:
    r = client.get("/api/v1/offers", params={"gpu": "H1000"})
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "gpu" and "H100-SXM" in body["suggestions"]


def test_bad_values_name_the_field(client: TestClient) -> None:
    for params, field in (
        ({"max_price": "cheap"}, "max_price"),
        ({"sort": "colour"}, "sort"),
        ({"pricing": "free"}, "pricing"),
        ({"page": 0}, "page"),
    ):
        r = client.get("/api/v1/offers", params=params)
        assert r.status_code == 422, params
        assert r.json()["field"] == field


def test_history_gives_min_and_median_per_provider_and_snapshot(client: TestClient) -> None:
    points = client.get("/api/v1/history", params={"gpu": "H100-SXM", "provider": "alphacloud"}).json()
    assert [p["min_usd_per_gpu_hour"] for p in points] == [3.6, 3.0]  # 10 days ago (+20%), now
    assert points[0]["median_usd_per_gpu_hour"] == pytest.approx((3.6 + 4.68) / 2)
    assert client.get("/api/v1/history", params={"gpu": "H1000"}).json()["field"] == "gpu"
    newest = client.get("/api/v1/history", params={"gpu": "H100-SXM", "provider": "alphacloud", "limit": 1})
    assert [p["min_usd_per_gpu_hour"] for p in newest.json()] == [3.0]


def test_an_assumed_gpu_variant_is_flagged(client: TestClient) -> None:
    items = client.get("/api/v1/offers", params={"gpu": "H100"}).json()["items"]
    flags = {o["instance_type"]: o["variant_assumed"] for o in items}
    assert flags == {"b-h100": True, "h100x1": False, "h100x8": False, "e-h100-spot": False}
