"""Schema migrations: an old-version database is brought up to date on open, data intact."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from gpuscout.catalog import schema
from gpuscout.catalog.db import make_engine as _make_engine
from gpuscout.catalog.migrations import LATEST_VERSION, STEPS, current_version, migrate
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.store import Store
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.catalog.helpers import STORE_KINDS, pg_schema_url


@pytest.fixture(params=STORE_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}"
    else:
        with pg_schema_url() as url:
            yield url


def _v1_offer(snapshot_id: int, price: float, gpus: int) -> dict[str, object]:
    return {
        "snapshot_id": snapshot_id,
        "provider": "oldcloud",
        "instance_type": f"{gpus}xA100",
        "region": "r1",
        "zone": None,
        "accelerator": "A100-SXM4-80GB",
        "gpu_count": gpus,
        "gpu_memory_gb": 80.0,
        "price_usd_per_hour": price,
        "spot_price_usd_per_hour": None,
        "source": "old:feed",
        "observed_at": datetime(2026, 1, 1, tzinfo=UTC),
        "vcpus": None,
        "ram_gb": None,
        "disk_gb": None,
        "interconnect": "unknown",
        "internode": None,
        "availability": "unknown",
        "available_count": None,
        "billing_terms": None,
        "stale": False,
        "fractional": False,
        "storage_usd_per_gb_month": None,
        "egress_usd_per_gb": None,
        "secure": None,
        "notes": "",
        "extra": "{}",
    }


def test_steps_are_numbered_in_order() -> None:
    versions = [v for v, _, _ in STEPS]
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] == LATEST_VERSION


def test_version_1_database_is_migrated_on_open(db_url: str) -> None:
    engine = _make_engine(db_url)
    assert migrate(engine, target=1) == [1]
    with engine.begin() as conn:
        assert current_version(conn) == 1
        insert_snap = sa.text(
            "INSERT INTO snapshots (source, started_at, finished_at, status, error, row_count, reason,"
            " dropped_count)"
            " VALUES (:s, :t, :t, :st, NULL, :n, NULL, 0)"
        )
        t = datetime(2026, 1, 1, tzinfo=UTC)
        conn.execute(insert_snap, {"s": "old", "t": t, "st": "ok", "n": 2})
        conn.execute(insert_snap, {"s": "old", "t": t, "st": "failed", "n": 0})
        ok_id = conn.execute(sa.text("SELECT id FROM snapshots WHERE status = 'ok'")).scalar_one()
        cols = list(_v1_offer(0, 0, 1))
        insert_offer = sa.text(
            f"INSERT INTO offers ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"
        )
        conn.execute(insert_offer, [_v1_offer(ok_id, 16.0, 8), _v1_offer(ok_id, 2.5, 1)])
    engine.dispose()

    store = Store(db_url)
    try:
        with store.engine.connect() as conn:
            assert current_version(conn) == LATEST_VERSION
            versions = (
                conn.execute(sa.text("SELECT version FROM schema_version ORDER BY version")).scalars().all()
            )
        assert versions == list(range(1, LATEST_VERSION + 1))
        offers = store.current_offers(OfferQuery(sort="price_per_gpu"))
        assert [o.price_usd_per_gpu_hour for o in offers] == [2.0, 2.5]  # per-GPU column backfilled
        by_bandwidth = store.current_offers(OfferQuery(sort="bandwidth_per_dollar"))
        assert [o.price_usd_per_gpu_hour for o in by_bandwidth] == [2.0, 2.5]
        with store.engine.connect() as conn:
            values = conn.execute(sa.text("SELECT bandwidth_per_usd FROM offers ORDER BY id")).scalars().all()
        spec = resolve_gpu("A100-SXM4-80GB").bandwidth_gbps
        assert values == [pytest.approx(spec / 2.0), pytest.approx(spec / 2.5)]  # backfilled from the specs
        [status] = store.sources_status()
        assert status.current_snapshot_id == ok_id  # pointer set to the latest *good* snapshot
        assert status.last_status == "failed"
        # the backfilled provider list makes old rows count as live coverage
        assert store.snapshots("old")[-1]["providers"] == "oldcloud"
        with Store(db_url) as again:  # reopening applies nothing and loses nothing
            assert again.count_offers() == 2
    finally:
        store.close()


def test_migrated_schema_matches_schema_module(db_url: str) -> None:
    store = Store(db_url, sync_accelerators=False)
    try:
        inspector = sa.inspect(store.engine)
        for table in schema.metadata.sorted_tables:
            have = {c["name"] for c in inspector.get_columns(table.name)}
            assert have == {c.name for c in table.columns}, table.name
        offer_indexes = {tuple(ix["column_names"]) for ix in inspector.get_indexes("offers")}
        for col in ("accelerator", "provider", "price_usd_per_hour", "price_usd_per_gpu_hour", "snapshot_id"):
            assert (col,) in offer_indexes
    finally:
        store.close()


def test_fresh_store_is_at_latest_version(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with store.engine.connect() as conn:
        assert current_version(conn) == LATEST_VERSION
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    assert mode == "wal"
    assert migrate(store.engine) == []
    store.close()
