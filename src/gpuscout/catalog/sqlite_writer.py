"""A refresh's writes into a ready SQLite store with the standard library's ``sqlite3``.

``gpuscout refresh --source file:offers.csv`` stores one snapshot and records what happened; on a
SQLite store that needs nothing done on opening (the reader's *ready* store: latest schema, spec
table in step, this package's bundled snapshot current, see :mod:`gpuscout.catalog.reader`),
importing SQLAlchemy and opening the :class:`~gpuscout.catalog.store.Store` would cost more than
checking and storing 1,500 offers. :class:`SqliteWriter` does what a refresh asks of the store
(:class:`~gpuscout.catalog.refresh.RefreshStore`) with the same statements and values as the Store
on SQLite: the snapshot row, its offers through the same compiled row builder and constant-column
split (:mod:`gpuscout.catalog.rows`, :mod:`gpuscout.catalog.constant_columns`), each column's value
converted as SQLAlchemy's SQLite binds convert it (:func:`sqlite_binds`), the indexes dropped and
built again after a bulk insert into a table no larger than the new rows, the current pointer
flipped and the statistics refreshed, all in one ``BEGIN IMMEDIATE`` transaction: a failed write
rolls back and leaves the last good data as it was. ``tests/catalog/test_sqlite_writer.py`` checks
that both write the same rows.

Any other store (PostgreSQL, a store to migrate or load) is opened as the Store, as before.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from operator import attrgetter
from typing import Any

from gpuscout.catalog.clock import now, utc
from gpuscout.catalog.constant_columns import constant_split, sample_rows
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.query import CURRENT_SNAPSHOTS_SQL, Params, current_scope
from gpuscout.catalog.reader import _connect, _install_template, _Snapshot, connect_if_ready, sqlite_path
from gpuscout.catalog.results import (
    DropReasons,
    WriteReport,
    attempt_row,
    drop_reasons_json,
)
from gpuscout.catalog.rows import (
    OFFER_COLUMNS,
    Convert,
    RowValues,
    Specs,
    json_text,
    row_values,
    sqlite_boolean,
)
from gpuscout.gc_pause import collection_paused

#: Rows per ``executemany`` (the Store's ``_INSERT_CHUNK``).
INSERT_CHUNK = 5000
WRITE_CACHE_KIB = 65536  # SQLite page cache while a large snapshot is inserted (the Store's)
_DATETIME = "%04d-%02d-%02d %02d:%02d:%02d.%06d"

_observed_at = attrgetter("observed_at")


def sqlite_datetime(value: Any) -> str | None:
    """A time as SQLAlchemy's SQLite ``DateTime`` stores it (its default storage format; the offset
    is not kept: the store's times are UTC)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return _DATETIME % (
            value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond
        )  # fmt: skip
    if isinstance(value, date):
        return _DATETIME % (value.year, value.month, value.day, 0, 0, 0, 0)
    raise TypeError("SQLite DateTime type only accepts Python datetime and date objects as input.")


def _json(value: Any) -> str:
    """A JSON column's value as SQLAlchemy's JSON bind writes it on SQLite (``json.dumps``; ``None``
    is the JSON ``null``)."""
    return json.dumps(value)


def sqlite_binds(declared: Mapping[str, str]) -> dict[str, Convert | None]:
    """Each column's conversion by its declared SQLite type (``PRAGMA table_info``): what
    :func:`~gpuscout.catalog.rows.insert_binds` gives on SQLite for the store's column types
    (DATETIME: SQLAlchemy's storage format; BOOLEAN: a strict bool as an integer; JSON: its text;
    numbers and text as they are)."""
    out: dict[str, Convert | None] = {}
    for name, kind in declared.items():
        upper = kind.upper()
        if upper == "DATETIME":
            out[name] = sqlite_datetime
        elif upper == "BOOLEAN":
            out[name] = sqlite_boolean
        elif upper == "JSON":
            out[name] = json_text(_json)
        else:
            out[name] = None
    return out


def _declared(conn: sqlite3.Connection, table: str) -> dict[str, str]:
    return {str(row[1]): str(row[2]) for row in conn.execute(f"PRAGMA table_info({table})")}


class SqliteWriter:
    """What a refresh asks of the store, on a ready SQLite file, with ``sqlite3`` (module docstring).

    Each thread works through its own connection (a refresh runs its store calls in worker threads),
    with the Store's settings: WAL, a 30 s busy timeout, foreign keys, ``synchronous=NORMAL``, and
    write transactions that take the write lock at ``BEGIN IMMEDIATE``."""

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._path = path
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._adopt(conn)
        self._offer_binds: dict[str, Convert | None] | None = None
        self._snapshot_binds: dict[str, Convert | None] | None = None
        self._builders: dict[tuple[str, ...], RowValues] = {}

    # ---- connections -----------------------------------------------------------------------
    def _adopt(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        self._local.conn = conn
        with self._lock:
            self._all.append(conn)
        return conn

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        return conn if conn is not None else self._adopt(_connect(self._path))

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()

    def __enter__(self) -> SqliteWriter:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SqliteWriter sqlite:///{self._path}>"

    # ---- reads -----------------------------------------------------------------------------
    def last_good_row_count(self, source: str) -> int | None:
        """Row count of the current snapshot of ``source`` (None when it has none)."""
        row = (
            self._conn()
            .execute(
                "SELECT snapshots.row_count FROM snapshots JOIN current_snapshot "
                "ON current_snapshot.snapshot_id = snapshots.id WHERE current_snapshot.source = ?",
                (source,),
            )
            .fetchone()
        )
        return None if row is None or row[0] is None else int(row[0])

    def fallback_offer_count(self) -> int:
        """How many current offers come from the bundled snapshot (the Store's query)."""
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            current = [_Snapshot(*row) for row in conn.execute(CURRENT_SNAPSHOTS_SQL)]
            fallback_ids = [int(r.id) for r in current if r.fallback]
            if not fallback_ids:
                return 0
            params = Params()
            scope = current_scope(current, params)
            mine = params.many(fallback_ids)
            stmt = f"SELECT count(*) FROM offers WHERE {scope} AND snapshot_id IN ({mine})"
            return int(conn.execute(stmt, params.values).fetchone()[0])
        finally:
            conn.execute("COMMIT")

    # ---- writes ----------------------------------------------------------------------------
    def _binds(self, conn: sqlite3.Connection) -> tuple[dict[str, Convert | None], dict[str, Convert | None]]:
        if self._offer_binds is None or self._snapshot_binds is None:
            self._offer_binds = sqlite_binds(_declared(conn, "offers"))
            self._snapshot_binds = sqlite_binds(_declared(conn, "snapshots"))
        return self._offer_binds, self._snapshot_binds

    def _insert_snapshot(self, conn: sqlite3.Connection, values: dict[str, Any]) -> int:
        _, binds = self._binds(conn)
        names = list(values)
        row = [(b(v) if (b := binds.get(k)) is not None else v) for k, v in values.items()]
        marks = ", ".join("?" * len(names))
        cur = conn.execute(f"INSERT INTO snapshots ({', '.join(names)}) VALUES ({marks}) RETURNING id", row)
        snapshot_id = int(cur.fetchone()[0])
        cur.close()
        return snapshot_id

    def record_attempt(
        self,
        source: str,
        status: str,
        *,
        started_at: datetime | None = None,
        error: str | None = None,
        reason: str | None = None,
        row_count: int = 0,
        dropped_count: int = 0,
        drop_reasons: DropReasons | None = None,
    ) -> int:
        """Record a rejected or failed refresh (the Store's ``record_attempt``)."""
        row = attempt_row(
            source, status, started_at=utc(started_at) or now(), finished_at=now(), error=error,
            reason=reason, row_count=row_count, dropped_count=dropped_count, drop_reasons=drop_reasons,
        )  # fmt: skip
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            snapshot_id = self._insert_snapshot(conn, row)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return snapshot_id

    def write_snapshot(
        self,
        source: str,
        offers: Sequence[Offer],
        *,
        started_at: datetime | None = None,
        reason: str | None = None,
        dropped_count: int = 0,
        fallback: bool = False,
        drop_reasons: DropReasons | None = None,
        fingerprint: str | None = None,
    ) -> WriteReport:
        """Store a good snapshot of ``source`` and make it current, in one transaction (the Store's
        ``write_snapshot`` on SQLite)."""
        started = utc(started_at) or now()
        times = set(map(_observed_at, offers))
        known = [x for t in times if (x := utc(t)) is not None]
        observed_at = min(known) if known and None not in times else None
        providers = sorted({o.provider for o in offers})
        conn = self._conn()
        specs: Specs = {
            str(name): (bw, tf)
            for name, bw, tf in conn.execute("SELECT name, bandwidth_gbps, bf16_tflops FROM accelerators")
        }
        with collection_paused(len(offers)):
            conn.execute("BEGIN IMMEDIATE")
            try:
                snapshot_id = self._insert_snapshot(
                    conn,
                    {
                        "source": source,
                        "started_at": started,
                        "finished_at": now(),
                        "status": "ok",
                        "error": None,
                        "row_count": len(offers),
                        "reason": reason,
                        "dropped_count": dropped_count,
                        "observed_at": observed_at,
                        "providers": ",".join(providers),
                        "fallback": fallback,
                        "drop_reasons": drop_reasons_json(drop_reasons),
                        "fingerprint": fingerprint,
                    },
                )
                self._insert_offers(conn, offers, snapshot_id, specs)
                conn.execute(
                    "INSERT INTO current_snapshot (source, snapshot_id) VALUES (?, ?) "
                    "ON CONFLICT (source) DO UPDATE SET snapshot_id = ?",
                    (source, snapshot_id, snapshot_id),
                )
                conn.execute("PRAGMA analysis_limit=20000")
                conn.execute("ANALYZE offers")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        return WriteReport(snapshot_id=snapshot_id, rows=len(offers), providers=providers)

    def _rows_for(self, columns: Sequence[str]) -> RowValues:
        key = tuple(columns)
        built = self._builders.get(key)
        if built is None:
            assert self._offer_binds is not None
            built = self._builders[key] = row_values(columns, self._offer_binds)
        return built

    def _insert_offers(
        self, conn: sqlite3.Connection, offers: Sequence[Offer], snapshot_id: int, specs: Specs
    ) -> None:
        """The Store's SQLite insert: the page cache raised and the indexes built again after a bulk
        insert into a table no larger than the new rows, the constant columns written into the
        statement, the rest bound in chunks."""
        binds, _ = self._binds(conn)
        cols = [name for name in binds if name != "id"]
        sql = f"INSERT INTO offers ({', '.join(cols)}) VALUES ({', '.join(['?'] * len(cols))})"
        big = len(offers) > INSERT_CHUNK
        if big:
            conn.execute(f"PRAGMA cache_size=-{WRITE_CACHE_KIB}")
        try:
            rebuild = _rebuild_indexes_for(conn, len(offers)) if big else {}
            for name in rebuild:
                conn.execute(f"DROP INDEX {name}")
            sample = [offers[i] for i in sample_rows(len(offers))]
            split = constant_split("offers", cols, OFFER_COLUMNS, sample, self._rows_for, snapshot_id, specs)
            values = self._rows_for(cols)
            for i in range(0, len(offers), INSERT_CHUNK):
                chunk = offers[i : i + INSERT_CHUNK]
                if split is not None:
                    fast, rows = split.split(chunk, snapshot_id, specs)
                    if fast:
                        conn.executemany(split.sql, fast)
                else:
                    rows = [values(o, snapshot_id, specs) for o in chunk]
                if rows:
                    conn.executemany(sql, rows)
            for ddl in rebuild.values():
                conn.execute(ddl)
        finally:
            if big:
                conn.execute("PRAGMA cache_size=-2000")


def _rebuild_indexes_for(conn: sqlite3.Connection, new_rows: int) -> dict[str, str]:
    """The Store's ``_rebuild_indexes_for``: every ``offers`` index when the table holds no more rows
    than are being added, none otherwise."""
    stored = int(conn.execute("SELECT count(*) FROM offers").fetchone()[0])
    if stored > new_rows:
        return {}
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'offers' AND sql IS NOT NULL"
    )
    return {str(name): str(ddl) for name, ddl in rows}


def open_writer(url: str) -> SqliteWriter | None:
    """A :class:`SqliteWriter` for the store at ``url`` when it is a ready SQLite file (a file that
    does not exist yet is first written from the packaged template, as for reading); ``None`` when the
    store must be opened as the Store (PostgreSQL, a store to migrate, sync or load)."""
    path = sqlite_path(url)
    if path is None:
        return None
    if not os.path.exists(path):
        _install_template(path)
    conn = connect_if_ready(path)
    return None if conn is None else SqliteWriter(conn, path)
