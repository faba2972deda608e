"""``/api/v1/offers`` written straight from the store's rows (``web/offer_json.py``) is byte for byte
what the validated models give, over many views of varied offers; uncached, each request reads the
store as it is (a refresh between two requests shows in the second)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.reader import SqliteReader
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import api, create_app, offer_json
from gpuscout.web.filters import SORT_COLUMNS, OfferFilters
from gpuscout.web.services import WebServices
from tests.web.conftest import NOW, make_offer, sample_offers


def _varied() -> list[Offer]:
    """Offers with every kind of value the encoder converts: several regions and aggregators, an
    assumed variant (and an extra without it), old, flagged stale and undated prices, NULL-able
    numbers set and unset, both fabrics and every availability, odd floats and text."""
    out = [*sample_offers()]
    for i, availability in enumerate(Availability):
        out.append(
            make_offer(
                provider=f"p{i}",
                instance_type=f"Inst-{i}",
                accelerator=("A100-80GB", "L4", "H200", "RTX4090")[i % 4],
                gpu_count=(1, 2, 4, 8)[i % 4],
                gpu_memory_gb=(80.0, 24.0, 141.0, 24.0)[i % 4],
                price_usd_per_hour=(0.1 + 0.2, 1e-05, 12345.678901, None)[i % 4],
                spot_price_usd_per_hour=(None, 0.3, 7.0, 1.0 / 3)[i % 4],
                availability=availability,
                interconnect=(Interconnect.NVLINK, Interconnect.PCIE)[i % 2],
                vcpus=(None, 16.0)[i % 2],
                ram_gb=(None, 1e3)[i % 2],
                available_count=(None, 0, 5, 1)[i % 4],
                secure=(None, True, False, None)[i % 4],
                zone=(None, "b")[i % 2],
                notes=("", 'quoted "é" \\ text')[i % 2],
                extra=({}, {"variant": "stated"}, {"variant": "assumed", "n": 1}, {"k": "v"})[i % 4],
            )
        )
    out += [
        make_offer(regions=("country:DE", "country:FR"), also_listed_by=("gpuhunt", "vast")),
        make_offer(source="https://example.com/list", observed_at=NOW - timedelta(days=3)),
        make_offer(stale=True, observed_at=NOW - timedelta(minutes=1, microseconds=5)),
        make_offer(observed_at=None, source="bundled"),
        make_offer(original_currency="EUR", original_price_per_hour=2.31, price_is_interruptible=True),
    ]
    return out


@pytest.fixture()
def services(tmp_path: Path) -> WebServices:
    url = f"sqlite:///{tmp_path / 'json.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.write_snapshot("test", _varied())
    store.close()
    return WebServices(url, cache_seconds=0)


VIEWS: list[dict[str, Any]] = [
    {},
    {"include_stale": True, "per_page": 200},
    {"gpu": "H100"},
    {"gpu": "A100,L4", "sort": "price", "order": "desc"},
    {"max_price": 10, "sort": "price"},
    {"pricing": "spot", "sort": "spot_price"},
    {"pricing": "on-demand", "per_page": 3, "page": 2},
    {"min_vram": 48, "gpus": 8, "interconnect": "nvlink"},
    {"provider": "alphacloud,p1", "include_stale": True},
    {"region": "us-", "available": True, "sort": "age"},
    {"region": "de", "include_stale": True},
    {"per_page": 2, "page": 50},  # past the last page: no items
    {"gpu": "MI300X"},  # nothing matches
    *(
        {"sort": c, "order": o, "include_stale": True, "per_page": 7}
        for c in SORT_COLUMNS
        for o in ("asc", "desc")
    ),
]


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: "&".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_the_page_from_rows_is_the_models_page_byte_for_byte(
    services: WebServices, view: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    now = datetime.now(UTC)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Frozen:  # type: ignore[override]
            return now  # type: ignore[return-value]

    monkeypatch.setattr(api, "datetime", Frozen)  # both paths see the same present (the ages)
    monkeypatch.setattr(offer_json, "datetime", Frozen)
    filters = OfferFilters.model_validate(view)
    expected = api.offer_page_out(services, filters).model_dump_json().encode()
    found = services.page_rows(filters)
    assert found is not None  # a SQLite store is read with sqlite3
    rows, total = found
    pages = max(1, -(-total // filters.per_page))
    got = offer_json.page_json(rows, total=total, page=filters.page, per_page=filters.per_page, pages=pages)
    assert got == expected


def test_the_rows_path_serves_the_api_and_the_models_path_the_rest(
    services: WebServices, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = TestClient(create_app(services.db, services=services))
    body = client.get("/api/v1/offers", params={"include_stale": "true", "per_page": 200}).json()
    assert body["total"] == len(_varied()) == len(body["items"])
    monkeypatch.setattr(services, "page_rows", lambda filters, reader=None: None)  # not read with sqlite3
    again = client.get("/api/v1/offers", params={"include_stale": "true", "per_page": 200}).json()
    assert [i["instance_type"] for i in again["items"]] == [i["instance_type"] for i in body["items"]]


def test_uncached_each_request_reads_the_store_as_it_is(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.write_snapshot("feed", [make_offer(instance_type="before-refresh", price_usd_per_hour=2.0)])
    client = TestClient(create_app(url, services=WebServices(url, cache_seconds=0)))
    try:
        before = client.get("/api/v1/offers").json()
        page_before = client.get("/", params={"gpu": "H100"}).text
        # a refresh by another writer (the CLI, a cron job) lands between two requests
        store.write_snapshot("feed", [make_offer(instance_type="after-refresh", price_usd_per_hour=3.0)])
        after = client.get("/api/v1/offers").json()
        page_after = client.get("/", params={"gpu": "H100"}).text
    finally:
        store.close()
    assert [(i["instance_type"], i["price_usd_per_hour"]) for i in before["items"]] == [
        ("before-refresh", 2.0)
    ]
    assert [(i["instance_type"], i["price_usd_per_hour"]) for i in after["items"]] == [("after-refresh", 3.0)]
    assert "before-refresh" in page_before and "after-refresh" not in page_before
    assert "after-refresh" in page_after and "before-refresh" not in page_after


@pytest.mark.parametrize("view", [{}, {"gpu": "H100"}, {"include_stale": True}, {"gpu": "MI300X"}])
def test_a_page_that_ends_early_gives_the_count_that_counting_gives(
    services: WebServices, view: dict[str, Any]
) -> None:
    """A page shorter than its limit holds the last matches, so its total is not counted again: on
    every page of every size (full, short, empty, past the end) it is what counting gives."""
    reader = services.reader
    assert isinstance(reader, SqliteReader)
    counted = reader.count_offers(services.offer_query(OfferFilters.model_validate(view)))
    for per_page in (1, 3, 7, 200):
        for page in range(1, counted // per_page + 3):
            filters = OfferFilters.model_validate({**view, "per_page": per_page, "page": page})
            found = services.page_rows(filters)
            assert found is not None
            rows, total = found
            assert total == counted, (per_page, page, len(rows))
            assert services.offer_page(filters).total == counted
