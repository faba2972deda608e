"""Price history and the catalog's staleness rule (``query.STALE_AFTER``): a live row fetched over two days
before the store's newest is stale as a price of now, but it is a true price at its fetch time, so the
history keeps it there (dated, never as today's); a row its feed flagged stale is left out (its fetch
time is not when its price was observed). See ``status.price_history``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.store import Store
from tests.catalog.helpers import STORE_KINDS, make_offer, temp_store

NOW = datetime.now(UTC).replace(microsecond=0)
OLD = NOW - timedelta(days=5)


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with temp_store(request.param, tmp_path) as s:
        yield s


def test_an_aged_row_is_history_at_its_own_time_and_stale_now(store: Store) -> None:
    store.write_snapshot(
        "lium",
        [
            make_offer(provider="lium", instance_type="l-1", observed_at=OLD, price_usd_per_hour=1.0),
            make_offer(
                provider="lium", instance_type="l-2", observed_at=OLD, price_usd_per_hour=0.5, stale=True
            ),
        ],
    )
    store.write_snapshot("vastai", [make_offer(provider="vastai", instance_type="v", observed_at=NOW)])
    # now: lium's rows are stale by the rule (the age part), as every face reads them
    assert {o.instance_type: o.stale for o in store.current_offers(OfferQuery())} == {
        "l-1": True,
        "l-2": True,
        "v": False,
    }
    assert [o.instance_type for o in store.current_offers(OfferQuery(exclude_stale=True))] == ["v"]
    # the history: lium's unflagged price at its fetch time, five days back, never as of now; the
    # flagged one ($0.50) is no point at all
    points = [(p.provider, p.at, p.min_usd_per_gpu_hour) for p in store.price_history("H100-SXM")]
    assert points == [("lium", OLD, 1.0), ("vastai", NOW, 2.5)]


def test_a_providers_latest_point_is_dated_by_its_own_fetch(store: Store) -> None:
    """A provider whose refresh has failed since: its last point stays at its last fetch, however long
    ago, so "latest" is read with its date (the current offers are the reads for now)."""
    store.write_snapshot(
        "lium", [make_offer(provider="lium", instance_type="l", observed_at=OLD - timedelta(days=3))]
    )
    store.write_snapshot(
        "lium", [make_offer(provider="lium", instance_type="l", observed_at=OLD, price_usd_per_hour=2.0)]
    )
    store.write_snapshot("vastai", [make_offer(provider="vastai", instance_type="v", observed_at=NOW)])
    lium = [p for p in store.price_history("H100-SXM") if p.provider == "lium"]
    assert [(p.at, p.min_usd_per_gpu_hour) for p in lium] == [(OLD - timedelta(days=3), 2.5), (OLD, 2.0)]
    assert all(p.at is not None and NOW - p.at > timedelta(days=2) for p in lium)
