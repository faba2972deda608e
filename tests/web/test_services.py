"""The service layer: SQL-sorted pages agree with a Python sort, and the cache computes once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC
from typing import Any

import pytest

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.web.cache import TtlCache
from gpuscout.web.filters import SORT_COLUMNS, OfferFilters
from gpuscout.web.services import WebServices

_AVAILABILITY_RANK = {
    Availability.AVAILABLE: 0,
    Availability.LIMITED: 1,
    Availability.UNKNOWN: 2,
    Availability.UNAVAILABLE: 3,
}
_INTERCONNECT_RANK = {Interconnect.NVLINK: 0, Interconnect.PCIE: 1}  # unknown: no rank, last

# What each column of the table means, sorted in Python ("asc": smallest / A first / freshest /
# NVLink first / available first; None is unknown and always last).
PYTHON_KEYS: dict[str, Callable[[Offer], Any]] = {
    "provider": lambda o: o.provider.lower(),
    "instance": lambda o: o.instance_type.lower(),
    "gpu": lambda o: o.accelerator.lower(),
    "gpu_count": lambda o: o.gpu_count,
    "vram": lambda o: o.gpu_memory_gb,  # memory per GPU, as the filter
    "interconnect": lambda o: _INTERCONNECT_RANK.get(o.interconnect),
    "region": lambda o: o.region.lower(),
    "price": lambda o: o.price_usd_per_hour,
    "spot_price": lambda o: o.spot_price_usd_per_hour,
    "price_per_gpu": lambda o: o.price_usd_per_gpu_hour,
    "availability": lambda o: _AVAILABILITY_RANK[o.availability],
    "age": lambda o: None if o.observed_at is None else -o.observed_at.astimezone(UTC).timestamp(),
    "source": lambda o: o.source.lower(),
}


def spot_per_gpu(o: Offer) -> float | None:
    return o.spot_price_usd_per_gpu_hour


def python_sort(offers: Sequence[Offer], column: str, descending: bool, pricing: str = "any") -> list[Offer]:
    key = reference_key(column, pricing)
    known = sorted((o for o in offers if key(o) is not None), key=key, reverse=descending)
    return known + [o for o in offers if key(o) is None]


def reference_key(column: str, pricing: str) -> Callable[[Offer], Any]:
    """The column's meaning; in spot mode $/GPU-h is the spot price per GPU."""
    return spot_per_gpu if (column, pricing) == ("price_per_gpu", "spot") else PYTHON_KEYS[column]


def shown(services: WebServices) -> list[Offer]:
    """The offers a default view lists: stale prices are hidden unless asked for."""
    return [o for o in services.all_offers() if not o.stale]


def test_every_column_has_a_reference_sort() -> None:
    assert set(PYTHON_KEYS) == set(SORT_COLUMNS)


@pytest.mark.parametrize("column", SORT_COLUMNS)
@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize("pricing", ["any", "spot"])
def test_store_sorted_pages_match_the_python_sort(db_url: str, column: str, order: str, pricing: str) -> None:
    services = WebServices(db_url, cache_seconds=0)
    filters = OfferFilters(sort=column, order=order, pricing=pricing)  # type: ignore[arg-type]
    from_store = [r.offer for r in services.offer_page(filters).rows]
    offers = [o for o in shown(services) if pricing == "any" or o.spot_price_usd_per_hour is not None]
    in_python = python_sort(offers, column, order == "desc", pricing)
    key = reference_key(column, pricing)
    assert len(from_store) == len(offers)
    assert [key(o) for o in from_store] == [key(o) for o in in_python]


@pytest.mark.parametrize("column", ["vram", "instance", "interconnect", "availability", "source"])
def test_pages_of_a_sorted_view_read_only_their_rows(
    db_url: str, column: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every page of every column comes from a limited store query (no read of the whole view),
    and the pages put together are the whole view in order."""
    services = WebServices(db_url, cache_seconds=0)
    reader = type(services.reader)  # what the view reads offers from (sqlite3 on a SQLite store)
    limits: list[int | None] = []
    original = reader.offer_page

    def spy(self: Any, query: Any = None, **kw: Any) -> tuple[list[Offer], int]:
        limits.append(query.limit if query is not None else None)
        return original(self, query, **kw)

    monkeypatch.setattr(reader, "offer_page", spy)
    pages = [
        services.offer_page(OfferFilters(sort=column, per_page=2, page=p)).rows  # type: ignore[arg-type]
        for p in range(1, 6)
    ]
    assert limits == [2] * 5
    monkeypatch.undo()
    joined = [r.offer for rows in pages for r in rows]
    assert [PYTHON_KEYS[column](o) for o in joined] == [
        PYTHON_KEYS[column](o) for o in python_sort(shown(services), column, False)
    ]
    assert sorted(o.instance_type for o in joined) == sorted(o.instance_type for o in shown(services))


def test_pages_of_the_store_path_cover_every_offer_once(db_url: str) -> None:
    services = WebServices(db_url, cache_seconds=0)
    seen = []
    for page in (1, 2, 3):
        filters = OfferFilters(per_page=4, page=page, include_stale=True)
        seen += [r.offer.instance_type for r in services.offer_page(filters).rows]
    assert sorted(seen) == sorted(o.instance_type for o in services.all_offers())


def test_cache_computes_a_key_once_under_concurrent_misses() -> None:
    cache: TtlCache[int] = TtlCache(ttl=60)
    calls: list[int] = []

    def slow() -> int:
        calls.append(1)
        time.sleep(0.05)
        return 42

    threads = [threading.Thread(target=cache.get_or_compute, args=("k", slow)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and cache.get_or_compute("k", slow) == 42


def test_cache_disabled_always_computes() -> None:
    cache: TtlCache[int] = TtlCache(ttl=0)
    calls: list[int] = []
    for _ in range(3):
        cache.get_or_compute("k", lambda: calls.append(1) or 1)
    assert len(calls) == 3


def test_cached_rows_follow_a_refresh_made_by_another_process(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpuscout.web.services as services_module
    from gpuscout.catalog.store import Store
    from tests.web.conftest import make_offer

    monkeypatch.setattr(services_module, "VERSION_CHECK_SECONDS", 0.0)
    services = WebServices(db_url, cache_seconds=3600)
    assert services.offer_page(OfferFilters(include_stale=True)).total == 9
    other = Store(db_url)  # e.g. the scheduled `gpuscout refresh` writing a new snapshot
    other.write_snapshot("oldfeed", [make_offer(instance_type="new-one", price_usd_per_hour=0.01)])
    other.close()
    page = services.offer_page(OfferFilters(include_stale=True))
    assert page.total == 9 and page.rows[0].offer.instance_type == "new-one"  # d-l40s replaced
