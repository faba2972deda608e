"""The sqlite3 read path: the same answers as the Store, and used only on a ready store."""

from __future__ import annotations

import dataclasses
import hashlib
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from gpuscout.catalog import api
from gpuscout.catalog import schema as t
from gpuscout.catalog.migrations import LATEST_VERSION
from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.catalog.query import SORT_KEYS, OfferQuery
from gpuscout.catalog.reader import SCHEMA_VERSION, SqliteReader, open_reader, open_ready
from gpuscout.catalog.rows import OFFER_COLUMNS, decode_offer, insert_binds, offer_row, row_values
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME, SnapshotSource, bundled_snapshot_text
from gpuscout.catalog.store import Store
from tests.catalog.helpers import make_offer


def _live_offers() -> dict[str, list]:  # type: ignore[type-arg]
    now = datetime(2026, 11, 20, 8, 30, tzinfo=UTC)
    odd = dict(notes="x\x00y", regions=("eu-west-1", "us_east%2"), also_listed_by=("shadeform",))
    return {
        "aws": [  # a direct API: hides the bundled snapshot's AWS rows and gpuhunt's
            make_offer(
                provider="aws",
                instance_type=f"p5.{i}",
                accelerator="H100-SXM",
                gpu_count=8,
                price_usd_per_hour=30.0 + i,
                spot_price_usd_per_hour=12.0 + i if i % 2 else None,
                observed_at=now - timedelta(hours=i),
                region=("us-east-1", "eu-west-1")[i % 2],
                interconnect=Interconnect.NVLINK,
                availability=list(Availability)[i % 4],
            )
            for i in range(12)
        ],
        "gpuhunt:aws": [make_offer(provider="aws", instance_type="g6.xlarge", accelerator="L4")],
        "file:/tmp/mine.csv": [
            make_offer(provider="aws", instance_type="reserved", price_usd_per_hour=9.0, **odd),
            make_offer(
                provider="onprem",
                instance_type="box",
                accelerator="A100-SXM4-80GB",
                gpu_count=4,
                gpu_memory_gb=80.0,
                price_usd_per_hour=None,
                spot_price_usd_per_hour=3.0,
                observed_at=datetime(2026, 11, 2, tzinfo=timezone(timedelta(hours=2))),
            ),
        ],
    }


@pytest.fixture()
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    with api.open_store(url) as store:
        for source, offers in _live_offers().items():
            store.write_snapshot(source, offers)
    return url


QUERIES = [
    OfferQuery(),
    *(OfferQuery(sort=s, limit=25) for s in SORT_KEYS),
    *(OfferQuery(sort=s, descending=True, spot=True, limit=7, offset=3) for s in SORT_KEYS),
    OfferQuery(gpus=api.gpu_family("H100"), sort="price_per_gpu"),
    OfferQuery(regions=("US-", "west"), available_only=True, sort="age"),
    OfferQuery(regions=("us_east%",)),
    OfferQuery(providers=("AWS", "vast"), min_vram_gb=40, interconnect="NVLink", max_price_usd_per_hour=40),
    OfferQuery(spot=False, gpu_count=8, min_total_vram_gb=320, exclude_stale=True, offset=2),
    OfferQuery(spot=True, max_price_usd_per_hour=5, sort="tflops_per_dollar"),
]


@pytest.mark.parametrize("superseded", [False, True])
def test_the_sqlite3_reader_answers_what_the_store_answers(url: str, superseded: bool) -> None:
    lean = open_ready(url)
    assert isinstance(lean, SqliteReader)
    with Store(url) as store:
        for query in QUERIES:
            mine, total = lean.offer_page(query, include_superseded=superseded)
            theirs, their_total = store.offer_page(query, include_superseded=superseded)
            assert (mine, total) == (theirs, their_total), query
            assert [o.extra for o in mine] == [o.extra for o in theirs]  # not part of Offer equality
            assert lean.count_offers(query, include_superseded=superseded) == total
            assert lean.current_offers(query, include_superseded=superseded) == theirs
    lean.close()


def test_offer_totals_count_the_offers_and_their_providers(url: str) -> None:
    """The summary counted in SQL is what counting the rows gives (the web's freshness banner)."""
    lean = open_ready(url)
    assert isinstance(lean, SqliteReader)
    with Store(url) as store:
        for query in (OfferQuery(), *QUERIES[-6:]):
            offers = store.current_offers(dataclasses.replace(query, limit=None, offset=0))
            expected = (len(offers), len({o.provider for o in offers}))
            assert lean.offer_totals(query) == store.offer_totals(query) == expected, query
        assert expected[0] > 0 and lean.offer_totals()[1] > 1
    lean.close()


def test_a_store_is_read_with_sqlite3_only_when_nothing_would_be_written(tmp_path: Path, url: str) -> None:
    assert SCHEMA_VERSION == LATEST_VERSION
    fresh = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    assert open_ready(fresh) is None  # no file yet
    # ... so it is written from the packaged template (test_store_template.py), ready as it is
    assert isinstance(open_reader(fresh), SqliteReader)
    assert isinstance(open_ready(fresh), SqliteReader)
    for url_ in ("sqlite://", "sqlite:///:memory:", "postgresql+psycopg://u:p@h/db", f"{url}?mode=ro"):
        assert open_ready(url_) is None
    for name, change, repaired in (
        ("newer", "INSERT INTO schema_version VALUES (99, '2030-01-01', 'a later package')", False),
        (
            "specs",
            "UPDATE accelerators SET bandwidth_gbps = bandwidth_gbps + 1 WHERE name = 'H100-SXM'",
            True,
        ),
        ("bundle", "UPDATE snapshots SET fingerprint = 'older' WHERE source = 'snapshot'", True),
    ):
        copy = tmp_path / f"{name}.sqlite3"
        copy.write_bytes(Path(url.removeprefix("sqlite:///")).read_bytes())
        db = sqlite3.connect(copy)
        db.execute(change)
        db.commit()
        db.close()
        assert open_ready(f"sqlite:///{copy}") is None, name
        api.open_store(f"sqlite:///{copy}").close()  # the Store puts back what it owns
        assert isinstance(open_ready(f"sqlite:///{copy}"), SqliteReader) is repaired, name


def test_each_thread_reads_through_its_own_connection(url: str) -> None:
    import threading

    lean = open_ready(url)
    assert lean is not None
    expected = lean.offer_page(OfferQuery(limit=5))
    found: list[object] = []
    threads = [
        threading.Thread(target=lambda: found.append(lean.offer_page(OfferQuery(limit=5)))) for _ in range(4)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert found == [expected] * 4
    lean.close()


def test_row_values_are_the_rows_the_store_wrote_before(url: str) -> None:
    """The compiled row builder, with the store's binds (:func:`insert_binds`), gives what
    ``offer_row`` + each column's SQLAlchemy bind processor give."""
    with Store(url) as store:
        dialect = store.engine.dialect
        columns = [c for c in t.offers.columns if c.name != "id"]
        binds = {c.name: c.type.dialect_impl(dialect).bind_processor(dialect) for c in columns}
        values = row_values([c.name for c in columns], insert_binds(dialect, t.offers))
        specs = store._specs()
    offers = [*SnapshotSource().offers(), *(o for v in _live_offers().values() for o in v)]
    last = offers[-1]
    offers.append(dataclasses.replace(last, zone="z\x00", interconnect=Interconnect.PCIE, secure=True))
    odd = {"ñ": "\u2028\U0001f600", "k": "x\x00"}
    offers.append(
        dataclasses.replace(
            last, secure=False, stale=True, regions=("é-1", 'a"b\\c\n'), extra=odd, also_listed_by=("x",)
        )
    )
    for offer in offers:
        row = offer_row(offer, 7, specs)
        before = tuple(binds[c.name](row[c.name]) if binds[c.name] else row[c.name] for c in columns)
        assert values(offer, 7, specs) == before


def test_decoded_rows_are_what_sqlalchemys_typed_columns_give(url: str) -> None:
    """The compiled decoder of raw driver values equals reading the typed columns through SQLAlchemy."""
    import sqlalchemy as sa

    from gpuscout.catalog.rows import row_offer

    path = url.removeprefix("sqlite:///")
    raw = (
        sqlite3.connect(path).execute(f"SELECT {', '.join(OFFER_COLUMNS)} FROM offers ORDER BY id").fetchall()
    )
    with Store(url) as store, store.engine.connect() as conn:
        typed = [row_offer(r._mapping) for r in conn.execute(sa.select(t.offers).order_by(t.offers.c.id))]
    decoded = [decode_offer(r) for r in raw]
    assert decoded == typed and [o.extra for o in decoded] == [o.extra for o in typed]
    assert {o.observed_at.tzinfo for o in decoded if o.observed_at} == {UTC}


# ---- the bundled snapshot of an upgraded package -----------------------------------------------
def test_the_fingerprint_is_the_shipped_files() -> None:
    """Regenerate with `python -m gpuscout.catalog.snapshot_build` when this fails."""
    assert hashlib.sha256(bundled_snapshot_text().encode("utf-8")).hexdigest() == SNAPSHOT_SHA256
    assert SnapshotSource().fingerprint == SNAPSHOT_SHA256
    assert SnapshotSource("provider\n").fingerprint != SNAPSHOT_SHA256


def test_a_store_with_an_older_packages_snapshot_loads_this_one_and_keeps_the_old(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    old = make_offer(provider="cudo", instance_type="retired", source="snapshot:old")
    with Store(url) as store:  # what an older gpuscout left: its own bundled rows, no fingerprint
        first = store.write_snapshot(SNAPSHOT_NAME, [old], fallback=True).snapshot_id
    assert open_ready(url) is None  # the read path notices
    offers = api.current_offers(OfferQuery(), db=url)
    assert len(offers) == len(SnapshotSource().offers()) and old not in offers
    with Store(url) as store:
        history = store.snapshots(SNAPSHOT_NAME)
        assert [s["id"] for s in history][-1] == first and len(history) == 2  # the old one is history
        assert store.current_fingerprint(SNAPSHOT_NAME) == (True, SNAPSHOT_SHA256)
    api.open_store(url).close()
    with Store(url) as store:
        assert len(store.snapshots(SNAPSHOT_NAME)) == 2  # opened again: not loaded again
    assert isinstance(open_ready(url), SqliteReader)


def test_an_explicit_refresh_of_the_snapshot_records_its_fingerprint(tmp_path: Path) -> None:
    from gpuscout.catalog.refresh import refresh, resolve_sources

    url = f"sqlite:///{tmp_path / 's.sqlite3'}"
    with api.open_store(url) as store:
        [result] = refresh(store, resolve_sources(["snapshot"]))
        assert result.ok
        assert store.current_fingerprint(SNAPSHOT_NAME) == (True, SNAPSHOT_SHA256)
        assert len(store.snapshots(SNAPSHOT_NAME)) == 2
    assert isinstance(open_ready(url), SqliteReader)


def test_current_sources_give_the_banner_what_the_stores_status_gives(url: str) -> None:
    """Rows, stale rows, observed and loaded times of each current snapshot, read in one sqlite3 query,
    are the Store's ``sources_status`` figures; the stale rows of an older snapshot are not counted."""
    with Store(url) as store:
        store.write_snapshot("gpuhunt:aws", [make_offer(provider="aws", instance_type="old", stale=True)])
        store.write_snapshot(
            "gpuhunt:aws",
            [
                make_offer(
                    provider="aws",
                    instance_type=f"g{i}",
                    stale=i % 3 == 0,
                    observed_at=datetime(2026, 11, 20, tzinfo=UTC),  # as new as the feed's newest: not aged
                )
                for i in range(7)
            ],
        )
        statuses = {s.source: s for s in store.sources_status() if s.current_snapshot_id is not None}
    lean = open_ready(url)
    assert isinstance(lean, SqliteReader)
    mine = {s.source: s for s in lean.current_sources()}
    lean.close()
    assert mine.keys() == statuses.keys() and SNAPSHOT_NAME in mine
    names = (
        "current_snapshot_id",
        "fallback",
        "row_count",
        "stale_rows",
        "data_observed_at",
        "current_loaded_at",
    )
    for source, status in statuses.items():
        assert [getattr(mine[source], n) for n in names] == [getattr(status, n) for n in names], source
        if status.age_s is None:
            assert mine[source].age_s is None
        else:  # read a moment apart
            assert mine[source].age_s == pytest.approx(status.age_s, abs=60)
    assert mine["gpuhunt:aws"].stale_rows == 3 and mine["gpuhunt:aws"].row_count == 7


def test_counts_read_the_narrow_indexes(url: str) -> None:
    """A count with no selective filter searches the covering index of the filtered columns for the
    current snapshots, a maximum price and a minimum memory included (not the price or memory index,
    row by row); the banner's stale rows are searched in it too; a page's plan does not use it."""
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    lean = open_ready(url)
    assert isinstance(lean, SqliteReader)
    current = lean._current(conn)
    from gpuscout.catalog.query import offers_sql
    from gpuscout.catalog.reader import _CURRENT_SOURCES_SQL

    def plan(text: str, params: dict[str, object] | None = None) -> str:
        return " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {text}", params or {}))

    for query in (
        OfferQuery(exclude_stale=True),
        OfferQuery(max_price_usd_per_hour=5),
        OfferQuery(min_vram_gb=40),
    ):
        assert "SEARCH offers USING COVERING INDEX ix_offers_count (snapshot_id=?" in plan(
            *offers_sql(query, current, (), dialect="sqlite", count=True)
        )
        assert "ix_offers_count" not in plan(*offers_sql(query, current, OFFER_COLUMNS, dialect="sqlite"))
    assert "COVERING INDEX ix_offers_count (snapshot_id=? AND stale=?)" in plan(_CURRENT_SOURCES_SQL)
    lean.close()
    conn.close()
