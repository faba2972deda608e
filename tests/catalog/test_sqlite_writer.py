"""The sqlite3 writer of a refresh: the same rows as the Store writes, one transaction, ready stores only."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.dialects import sqlite as sqlite_dialect

from gpuscout.catalog import api
from gpuscout.catalog import schema as t
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.refresh import refresh, summarize
from gpuscout.catalog.rows import insert_binds
from gpuscout.catalog.sqlite_writer import SqliteWriter, open_writer, sqlite_binds
from gpuscout.catalog.store import Store
from tests.catalog.helpers import FakeSource, make_offer, many_offers

STARTED = datetime(2026, 11, 30, 9, 15, 1, 250, tzinfo=UTC)


def _odd_offers() -> list[Offer]:
    """Offers whose values take every conversion: times with and without an offset, none, NUL
    characters, quotes, lists, a mapping with a number, every enum member."""
    when = datetime(2026, 11, 2, 7, 0, tzinfo=timezone(timedelta(hours=2)))
    return [
        make_offer(instance_type="plain"),
        make_offer(
            instance_type="o'dd\x00one",
            notes="x\x00y 'q'",
            regions=("eu-west-1", "us_east%2"),
            also_listed_by=("shadeform",),
            extra={"line": "3", "n": 4},
            observed_at=when,
            spot_price_usd_per_hour=1.25,
            storage_usd_per_gb_month=0.1,
            egress_usd_per_gb=0.0,
            secure=True,
            stale=True,
            price_is_interruptible=True,
            interconnect=Interconnect.NVLINK,
            availability=Availability.UNAVAILABLE,
            internode="ib",
        ),
        make_offer(
            instance_type="no-time", observed_at=None, price_usd_per_hour=None, spot_price_usd_per_hour=2.0
        ),
        make_offer(
            provider="lambda", instance_type="unknown-gpu", accelerator="NOT-A-GPU", billing_terms="aws"
        ),
        *(
            make_offer(instance_type=f"a{k}", availability=a, interconnect=i)
            for k, (a, i) in enumerate(zip(Availability, Interconnect, strict=False))
        ),
    ]


def _url(path: Path) -> str:
    url = f"sqlite:///{path}"
    api.open_store(url).close()  # migrated, specs synced, bundled snapshot loaded: a ready store
    return url


def _dump(url: str) -> dict[str, Any]:
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        return {
            "offers": conn.execute("SELECT * FROM offers ORDER BY id").fetchall(),
            # finished_at is the clock's, and so is the bundled snapshot's started_at
            "snapshots": [
                (*row[:2], row[2] if row[1] != "snapshot" else None, *row[4:])
                for row in conn.execute("SELECT * FROM snapshots ORDER BY id")
            ],
            "current": conn.execute("SELECT * FROM current_snapshot ORDER BY source").fetchall(),
            "schema": conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall(),
            "stats": conn.execute("SELECT * FROM sqlite_stat1 ORDER BY tbl, idx").fetchall(),
        }
    finally:
        conn.close()


def test_binds_are_sqlalchemys_on_sqlite(tmp_path: Path) -> None:
    url = _url(tmp_path / "c.sqlite3")
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    values: list[Any] = [
        None,
        True,
        False,
        0,
        3,
        2.5,
        "text",
        "",
        datetime(2026, 1, 2, 3, 4, 5, 6),
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        date(2026, 1, 2),
        {"a": "b"},
        {"a": 1, "b": [1, None]},
        [],
        ["x", "y"],
        [1, "x"],
    ]
    for table in (t.offers, t.snapshots):
        declared = {row[1]: row[2] for row in conn.execute(f"PRAGMA table_info({table.name})")}
        assert set(declared) == {c.name for c in table.columns}
        theirs = insert_binds(sqlite_dialect.dialect(), table)
        ours = sqlite_binds(declared)
        for name, bind in theirs.items():
            mine = ours[name]
            assert (mine is None) == (bind is None), name
            if bind is None or mine is None:
                continue
            for value in values:
                try:
                    expected: Any = bind(value)
                except (TypeError, ValueError) as exc:
                    expected = type(exc)
                try:
                    got: Any = mine(value)
                except (TypeError, ValueError) as exc:
                    got = type(exc)
                assert got == expected, (name, value)
    conn.close()


@pytest.mark.parametrize("n", [0, 40, 6001])  # 6001: a bulk write (indexes built again, page cache raised)
def test_same_rows_as_the_store(tmp_path: Path, n: int) -> None:
    offers = [*_odd_offers(), *many_offers(n, instance_prefix="bulk")]
    reasons = {"invalid": {"no price": 2}, "excluded": {}}
    urls = [_url(tmp_path / "store.sqlite3"), _url(tmp_path / "writer.sqlite3")]
    with Store(urls[0]) as store:
        store.write_snapshot(
            "file:x", offers, started_at=STARTED, reason="r", dropped_count=2, drop_reasons=reasons
        )
        store.write_snapshot("feed", offers[:3], started_at=STARTED)  # a second source, then a new one
        store.write_snapshot("file:x", offers[::2], started_at=STARTED)
        store.record_attempt(
            "feed", "failed", started_at=STARTED, error="boom", row_count=4, drop_reasons=reasons
        )
        store.record_attempt("feed", "rejected", started_at=STARTED, reason="empty")
        counts = (
            store.last_good_row_count("file:x"),
            store.last_good_row_count("none"),
            store.fallback_offer_count(),
        )
    writer = open_writer(urls[1])
    assert isinstance(writer, SqliteWriter)
    with writer:
        report = writer.write_snapshot(
            "file:x", offers, started_at=STARTED, reason="r", dropped_count=2, drop_reasons=reasons
        )
        assert (report.rows, report.providers) == (len(offers), sorted({o.provider for o in offers}))
        writer.write_snapshot("feed", offers[:3], started_at=STARTED)
        writer.write_snapshot("file:x", offers[::2], started_at=STARTED)
        writer.record_attempt(
            "feed", "failed", started_at=STARTED, error="boom", row_count=4, drop_reasons=reasons
        )
        writer.record_attempt("feed", "rejected", started_at=STARTED, reason="empty")
        assert (writer.last_good_row_count("file:x"), writer.last_good_row_count("none")) == counts[:2]
        assert writer.fallback_offer_count() == counts[2]
    assert _dump(urls[1]) == _dump(urls[0])
    with Store(urls[1]) as store:
        assert store.last_good_row_count("file:x") == len(offers[::2])


def test_a_failed_write_keeps_the_last_good_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = _url(tmp_path / "c.sqlite3")
    with open_writer(url) as writer:  # type: ignore[union-attr]
        first = writer.write_snapshot("big", many_offers(6001, instance_prefix="g0"))
    before = _dump(url)
    writer = open_writer(url)
    assert writer is not None
    built = {"n": 0}
    rows_for = writer._rows_for

    def failing(columns: Any) -> Any:
        build = rows_for(columns)

        def row(*args: Any) -> Any:
            built["n"] += 1
            if built["n"] == 5500:  # after a first batch was inserted, the indexes dropped
                raise OSError("disk full")
            return build(*args)

        return row

    monkeypatch.setattr(writer, "_rows_for", failing)
    with pytest.raises(OSError, match="disk full"):
        writer.write_snapshot("big", many_offers(7000, instance_prefix="g1"))
    writer.close()
    assert _dump(url) == before  # rows, snapshots, the current pointer and every index as they were
    with Store(url) as store:
        assert store.last_good_row_count("big") == first.rows == 6001


def test_only_a_ready_sqlite_store_is_written_with_sqlite3(tmp_path: Path) -> None:
    assert open_writer("sqlite://") is None
    assert open_writer("sqlite:///:memory:") is None
    assert open_writer("postgresql+psycopg://u:p@127.0.0.1:1/db") is None
    fresh = tmp_path / "new" / "c.sqlite3"
    assert open_writer(f"sqlite:///{fresh}") is not None  # written from the packaged template first
    older = _url(tmp_path / "old.sqlite3")
    conn = sqlite3.connect(older.removeprefix("sqlite:///"))
    conn.execute("UPDATE accelerators SET bandwidth_gbps = bandwidth_gbps + 1")  # specs out of step
    conn.commit()
    conn.close()
    assert open_writer(older) is None
    assert isinstance(api.open_refresh_store(older), Store)  # the Store syncs them
    assert isinstance(api.open_refresh_store(older), SqliteWriter)  # now ready


def test_a_refresh_through_the_writer(tmp_path: Path) -> None:
    url = _url(tmp_path / "c.sqlite3")
    good = many_offers(30, provider="lambda")
    writer = api.open_refresh_store(url)
    assert isinstance(writer, SqliteWriter)
    results = refresh(writer, [FakeSource("lambda", good), FakeSource("bad", [])], timeout_s=30)
    assert [r.status for r in results] == ["ok", "rejected"]
    assert "bundled snapshot still in use" in summarize(results, writer).line
    writer.close()
    with Store(url) as store:
        status = {s.source: s for s in store.sources_status()}
        assert status["lambda"].current_snapshot_id == results[0].snapshot_id
        assert status["bad"].last_status == "rejected" and status["bad"].current_snapshot_id is None
        assert [
            replace(o, observed_at=None)
            for o in store.current_offers(
                api.OfferQuery(providers=("lambda",), limit=None, sort="instance_type")
            )
        ] == sorted((replace(o, observed_at=None) for o in good), key=lambda o: o.instance_type)
