"""Schema migrations: an old-version database is brought up to date on open, data intact."""

from __future__ import annotations

import functools
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from gpuscout.catalog import schema
from gpuscout.catalog.db import make_engine as _make_engine
from gpuscout.catalog.migrations import (
    LATEST_VERSION,
    PRICE_PER_GPU_INDEX_COLUMNS,
    STEPS,
    current_version,
    migrate,
)
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.query import SORT_KEYS, OfferQuery
from gpuscout.catalog.reader import SqliteReader, open_ready
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.catalog.helpers import STORE_KINDS, make_offer, pg_schema_url


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
        offer_indexes = {ix["name"]: tuple(ix["column_names"]) for ix in inspector.get_indexes("offers")}
        sqlite_only = set() if db_url.startswith("sqlite") else {"ix_offers_count"}
        assert set(offer_indexes) == {ix.name for ix in schema.offers.indexes} - sqlite_only
        for col in ("accelerator", "provider", "price_usd_per_hour", "snapshot_id", "gpu_memory_gb"):
            assert offer_indexes[f"ix_offers_{col}"] == (col,)
        # the default sort's index: on SQLite with every filtered column after the price (migration 10)
        by_price = offer_indexes["ix_offers_price_usd_per_gpu_hour"]
        assert by_price == (PRICE_PER_GPU_INDEX_COLUMNS if db_url.startswith("sqlite") else (by_price[0],))
        assert by_price[0] == "price_usd_per_gpu_hour"
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


def _step_10_offers() -> dict[str, list[Offer]]:
    """Offers whose sorts and counts step 10 changes the plans of: memories and spot prices (the new
    sort indexes), stale rows, a gpuhunt feed a direct API supersedes, and providers a live feed
    covers in the bundled snapshot (the rows a scope leaves out)."""
    rows = [
        make_offer(
            provider=("aws", "lambda", "vast")[k % 3],
            instance_type=f"i-{k}",
            accelerator=("H100-SXM", "A100-SXM4-80GB", "L4", "RTX4090")[k % 4],
            gpu_count=(1, 2, 4, 8)[k % 4],
            gpu_memory_gb=(80.0, 80.0, 24.0, 24.0)[k % 4],
            price_usd_per_hour=None if k % 11 == 0 else 1.0 + (k * 37 % 23) / 4,
            spot_price_usd_per_hour=None if k % 3 else 0.5 + (k * 13 % 17) / 8,
            stale=k % 9 == 0,
            region=("us-east-1", "eu-west-2", "ap-south-1")[k % 3],
            interconnect=(Interconnect.NVLINK, Interconnect.PCIE)[k % 2],
            availability=list(Availability)[k % 4],
        )
        for k in range(60)
    ]
    return {
        "aws": [o for o in rows if o.provider == "aws"],
        "gpuhunt:aws": [replace(o, instance_type=f"gh-{o.instance_type}") for o in rows[:20]],
        "vast": [o for o in rows if o.provider == "vast"],
    }


STEP_10_QUERIES = [
    OfferQuery(),
    *(OfferQuery(sort=s, limit=9, offset=2) for s in SORT_KEYS),
    *(
        OfferQuery(sort=s, spot=True, descending=True, limit=7)
        for s in ("price", "gpu_memory", "price_per_gpu")
    ),
    OfferQuery(min_vram_gb=40, gpu_count=2, sort="gpu_memory", exclude_stale=True),
    OfferQuery(spot=True, max_price_usd_per_hour=2, sort="spot_price"),
    OfferQuery(providers=("aws", "lambda"), regions=("us",), available_only=True, interconnect="nvlink"),
    OfferQuery(gpus=("H100-SXM", "L4"), exclude_stale=True, sort="price_per_gpu", limit=5, offset=1),
]


def _answers(store: Store) -> list[object]:
    answers: list[object] = []
    for query in STEP_10_QUERIES:
        offers, total = store.offer_page(query)
        answers.append(([(o.provider, o.instance_type, o.source) for o in offers], total))
        answers.append(store.count_offers(query, include_superseded=True))
    return answers


def test_step_10_keeps_every_answer_of_a_version_9_store(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written at step 9 (history, superseded and stale rows) answers every sort and filter
    the same after step 10, which adds the memory and spot price indexes (and on SQLite builds the
    price-per-GPU and count indexes again and drops the stale rows' index)."""
    from gpuscout.catalog import store as store_module

    monkeypatch.setattr(store_module, "migrate", functools.partial(migrate, target=9))
    with Store(db_url) as old:
        bundled = [make_offer(provider="aws"), make_offer(provider="oci")]
        old.write_snapshot(SNAPSHOT_NAME, bundled, fallback=True, fingerprint=SNAPSHOT_SHA256)
        for source, offers in _step_10_offers().items():
            old.write_snapshot(source, [replace(o, price_usd_per_hour=9.0) for o in offers])  # history
            old.write_snapshot(source, offers)
        with old.engine.connect() as conn:
            assert current_version(conn) == 9
        before = _answers(old)
    monkeypatch.undo()
    with Store(db_url) as new:
        with new.engine.connect() as conn:
            assert current_version(conn) == LATEST_VERSION == 10
        indexes = {ix["name"] for ix in sa.inspect(new.engine).get_indexes("offers")}
        assert {"ix_offers_gpu_memory_gb", "ix_offers_spot_price_usd_per_hour"} <= indexes
        assert "ix_offers_stale" not in indexes
        assert _answers(new) == before
    if db_url.startswith("sqlite"):  # the sqlite3 reader reads a store at step 10: the same answers
        reader = open_ready(db_url)
        assert isinstance(reader, SqliteReader)
        try:
            for query in STEP_10_QUERIES:
                offers, total = reader.offer_page(query)
                assert ([(o.provider, o.instance_type, o.source) for o in offers], total) == before[
                    2 * STEP_10_QUERIES.index(query)
                ]
        finally:
            reader.close()
