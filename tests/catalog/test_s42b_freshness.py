"""The freshness figures (``gpuscout sources``, the sources page, the web's banner) count stale rows by
the catalog's one rule (``query.STALE_AFTER``): a row its feed flagged, or a live row fetched over two
days before the store's newest live fetch; never a bundled snapshot's row by age."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.reader import SqliteReader, open_reader
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from tests.catalog.helpers import STORE_KINDS, make_offer, temp_store

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with temp_store(request.param, tmp_path) as s:
        yield s


def _write(store: Store) -> None:
    """vastai fetched an hour ago; lium 85 days ago (two rows) and one row of its flagged by its feed;
    a bundled snapshot 200 days old; runpod 40 hours ago (within the two days)."""
    hour, old = NOW - timedelta(hours=1), NOW - timedelta(days=85)
    store.write_snapshot("vastai", [make_offer(provider="vastai", instance_type="v-1", observed_at=hour)])
    lium = [
        make_offer(provider="lium", instance_type="l-1", observed_at=old),
        make_offer(provider="lium", instance_type="l-2", observed_at=old),
        make_offer(provider="lium", instance_type="l-3", observed_at=old, stale=True),
    ]
    store.write_snapshot("lium", lium)
    runpod = make_offer(provider="runpod", instance_type="r-1", observed_at=NOW - timedelta(hours=40))
    store.write_snapshot("runpod", [runpod])
    bundled = make_offer(provider="aws", instance_type="a-1", observed_at=NOW - timedelta(days=200))
    store.write_snapshot(SNAPSHOT_NAME, [bundled], fallback=True, fingerprint=SNAPSHOT_SHA256)


def test_a_live_row_85_days_older_than_the_newest_is_not_counted_current(store: Store) -> None:
    _write(store)
    stale = {s.source: s.stale_rows for s in store.sources_status()}
    assert stale == {"vastai": 0, "lium": 3, "runpod": 0, SNAPSHOT_NAME: 0}
    # the same rows the offer reads call stale
    read = {o.instance_type: o.stale for o in store.current_offers(OfferQuery())}
    assert sum(read.values()) == sum(stale.values()) == 3


def test_a_store_whose_feeds_are_all_fresh_has_only_its_flagged_rows_stale(store: Store) -> None:
    store.write_snapshot("vastai", [make_offer(provider="vastai", observed_at=NOW - timedelta(days=9))])
    flagged = make_offer(provider="lium", observed_at=NOW - timedelta(days=10), stale=True)
    store.write_snapshot("lium", [flagged, make_offer(provider="lium", instance_type="l-2")])
    # lium's second row: the helper's fixed date, long before: stale by age too
    stale = {s.source: s.stale_rows for s in store.sources_status()}
    assert stale == {"vastai": 0, "lium": 2}


def test_the_banners_sqlite3_read_counts_the_same(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    with Store(url) as store:
        _write(store)
        statuses = {s.source: s.stale_rows for s in store.sources_status()}
    reader = open_reader(url)
    assert isinstance(reader, SqliteReader)
    try:
        mine = {s.source: s.stale_rows for s in reader.current_sources()}
    finally:
        reader.close()
    assert mine == statuses == {"vastai": 0, "lium": 3, "runpod": 0, SNAPSHOT_NAME: 0}


def test_the_web_banner_counts_the_old_live_rows_out_of_the_current(tmp_path: Path) -> None:
    from gpuscout.web.overview import freshness
    from gpuscout.web.services import WebServices

    url = f"sqlite:///{tmp_path / 'w.sqlite3'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot("vastai", [make_offer(provider="vastai", observed_at=NOW)])
        store.write_snapshot("lium", [make_offer(provider="lium", observed_at=NOW - timedelta(days=85))])
    services = WebServices(url, cache_seconds=0)
    offers, providers = services.offer_totals()
    banner = freshness(services, services.current_sources(), offers, providers)
    assert (banner.offers, banner.stale_rows, banner.current_offers) == (2, 1, 1)
