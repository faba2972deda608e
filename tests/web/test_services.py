"""The service layer: SQL-sorted pages agree with the Python sort, and the cache computes once."""

from __future__ import annotations

import threading
import time

import pytest

from gpuscout.web.cache import TtlCache
from gpuscout.web.filters import OfferFilters
from gpuscout.web.offer_view import SORT_KEYS, sort_offers
from gpuscout.web.services import STORE_SORTS, WebServices


@pytest.mark.parametrize("column", sorted(STORE_SORTS))
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_store_sorted_pages_match_the_python_sort(db_url: str, column: str, order: str) -> None:
    services = WebServices(db_url, cache_seconds=0)
    filters = OfferFilters(sort=column, order=order)  # type: ignore[arg-type]
    from_store = [r.offer for r in services.offer_page(filters).rows]
    in_python = sort_offers(services.all_offers(), column, order == "desc")
    key = SORT_KEYS[column]
    assert [key(o) for o in from_store] == [key(o) for o in in_python]


def test_pages_of_the_store_path_cover_every_offer_once(db_url: str) -> None:
    services = WebServices(db_url, cache_seconds=0)
    seen = []
    for page in (1, 2, 3):
        seen += [r.offer.instance_type for r in services.offer_page(OfferFilters(per_page=4, page=page)).rows]
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
    assert services.offer_page(OfferFilters()).total == 9
    other = Store(db_url)  # e.g. the scheduled `gpuscout refresh` writing a new snapshot
    other.write_snapshot("oldfeed", [make_offer(instance_type="new-one", price_usd_per_hour=0.01)])
    other.close()
    page = services.offer_page(OfferFilters())
    assert page.total == 9 and page.rows[0].offer.instance_type == "new-one"  # d-l40s replaced
