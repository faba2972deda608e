"""Reading current offers: the standard library's ``sqlite3`` on a ready SQLite store, else the store.

A command that only reads offers (``gpuscout offers``, ``recommend``...) should not pay for
SQLAlchemy: importing it costs more than the whole answer. :func:`open_reader` therefore opens a
SQLite store with ``sqlite3`` when the store is *ready*, that is when nothing would be written on
opening it: its schema is at the latest migration, its accelerator spec table matches the knowledge
table, and its bundled snapshot is the one this package ships. Otherwise (a fresh install, an
upgrade, a PostgreSQL URL) it opens the :class:`~gpuscout.catalog.store.Store`, which migrates,
syncs and loads the snapshot, and reads through it.

Both read with the same SQL (:func:`gpuscout.catalog.query.offers_sql`) and turn rows into offers
with the same decoder (:func:`gpuscout.catalog.rows.decode_offer`), so the answers are the same.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from gpuscout.catalog.clock import utc
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.query import (
    CURRENT_SNAPSHOTS_SQL,
    OfferQuery,
    Params,
    aged_terms,
    aging_snapshots,
    check_sort,
    offers_sql,
)
from gpuscout.catalog.rows import OFFER_COLUMNS, decode_offer

if TYPE_CHECKING:
    from gpuscout.catalog.store import Store

#: The schema version this package's store is at (``migrations.LATEST_VERSION``; a test keeps them in
#: step). A store at another version is opened through the Store, which migrates it.
SCHEMA_VERSION = 10
SNAPSHOT_SOURCE = "snapshot"
#: The stale rows, in the words of migration 9's partial index ``ix_offers_stale`` (a query had to say
#: it so for SQLite to read that index); since migration 10 ``ix_offers_count`` is searched for them.
STALE_ROWS = "stale = 1"
#: How long a read waits for a lock a writer holds (SQLite's busy timeout), unless told otherwise.
BUSY_TIMEOUT_S = 30.0


class OfferReader(Protocol):
    """What the read-only faces need of a store (the :class:`Store` has it too)."""

    def current_offers(
        self, query: OfferQuery | None = None, *, include_superseded: bool = False
    ) -> list[Offer]: ...

    def count_offers(self, query: OfferQuery | None = None, *, include_superseded: bool = False) -> int: ...

    def offer_totals(self, query: OfferQuery | None = None) -> tuple[int, int]: ...

    def offer_page(
        self, query: OfferQuery | None = None, *, include_superseded: bool = False
    ) -> tuple[list[Offer], int]: ...

    def close(self) -> None: ...


class SqliteReader:
    """Current offers of a ready SQLite store, read with ``sqlite3`` (see the module docstring).

    Each read runs in one transaction: a refresh landing meanwhile is seen entirely or not at all.
    Each thread reads through its own connection (the web service reads from its thread pool), which
    waits up to ``busy_timeout_s`` for a lock (then the read raises ``sqlite3.OperationalError``) and
    keeps up to ``cache_kib`` KiB of pages (default: SQLite's, 2 MiB).
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: str,
        *,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        cache_kib: int | None = None,
    ) -> None:
        self._path = path
        self.busy_timeout_s = busy_timeout_s
        self.cache_kib = cache_kib
        self._local = threading.local()
        self._local.conn = conn
        self._all = [conn]
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self._path, self.busy_timeout_s, self.cache_kib)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connection()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def _current(self, conn: sqlite3.Connection) -> list[Any]:
        return [_Snapshot(*row) for row in conn.execute(CURRENT_SNAPSHOTS_SQL)]

    def _page(self, conn: sqlite3.Connection, query: OfferQuery, include_superseded: bool) -> list[Offer]:
        return [decode_offer(row) for row in self._rows(conn, query, include_superseded)]

    def _rows(self, conn: sqlite3.Connection, query: OfferQuery, include_superseded: bool) -> sqlite3.Cursor:
        """The page's rows, read as they are iterated (every match of a large store is not held twice)."""
        text, params = offers_sql(
            query, self._current(conn), OFFER_COLUMNS, dialect="sqlite", include_superseded=include_superseded
        )
        return conn.execute(text, params)

    def _count(self, conn: sqlite3.Connection, query: OfferQuery, include_superseded: bool) -> int:
        text, params = offers_sql(
            query,
            self._current(conn),
            (),
            dialect="sqlite",
            include_superseded=include_superseded,
            count=True,
        )
        return int(conn.execute(text, params).fetchone()[0])

    def _total(
        self, conn: sqlite3.Connection, query: OfferQuery, shown: int, include_superseded: bool
    ) -> int:
        """How many match in all, given the ``shown`` rows of ``query``'s page read in the same
        transaction: a page that ends before its limit holds the last matches (its offset plus its rows
        is the count; none at offset 0 is none at all); a full page, or one past the end, is counted."""
        ends = query.limit is None or shown < query.limit
        if ends and (shown or not query.offset):
            return query.offset + shown
        return self._count(conn, query, include_superseded)

    def current_offers(
        self, query: OfferQuery | None = None, *, include_superseded: bool = False
    ) -> list[Offer]:
        query = query or OfferQuery()
        check_sort(query.sort)
        with self._read() as conn:
            return self._page(conn, query, include_superseded)

    def count_offers(self, query: OfferQuery | None = None, *, include_superseded: bool = False) -> int:
        with self._read() as conn:
            return self._count(conn, query or OfferQuery(), include_superseded)

    def offer_totals(self, query: OfferQuery | None = None) -> tuple[int, int]:
        with self._read() as conn:
            text, params = offers_sql(
                query or OfferQuery(), self._current(conn), (), dialect="sqlite", count=True, providers=True
            )
            offers, providers = conn.execute(text, params).fetchone()
        return int(offers), int(providers)

    def offer_page(
        self, query: OfferQuery | None = None, *, include_superseded: bool = False
    ) -> tuple[list[Offer], int]:
        query = query or OfferQuery()
        check_sort(query.sort)
        with self._read() as conn:
            offers = self._page(conn, query, include_superseded)
            return offers, self._total(conn, query, len(offers), include_superseded)

    def offer_page_rows(self, query: OfferQuery | None = None) -> tuple[list[Any], int]:
        """:meth:`offer_page` with its rows as ``sqlite3`` returns them (the :data:`OFFER_COLUMNS`
        values in that order), not decoded: for a face that encodes them itself (the JSON API)."""
        query = query or OfferQuery()
        check_sort(query.sort)
        with self._read() as conn:
            rows = self._rows(conn, query, False).fetchall()
            return rows, self._total(conn, query, len(rows), False)

    def current_sources(self) -> list[CurrentSource]:
        """Each source's current snapshot as the freshness banner counts it, in one transaction: its
        rows, its stale rows by the catalog's rule (:data:`~gpuscout.catalog.query.STALE_AFTER`: the
        rows its feed flagged, a search of ``ix_offers_count``, migration 10, and its live rows fetched
        too long before the newest, :func:`aged_rows_sql`), when its data was observed and when it was
        stored. The same figures as the Store's ``sources_status`` gives for these sources (a test
        keeps them equal)."""
        with self._read() as conn:
            rows = conn.execute(_CURRENT_SOURCES_SQL).fetchall()
            aged_sql = aged_rows_sql(self._current(conn), "sqlite")
            aged = dict(conn.execute(*aged_sql).fetchall()) if aged_sql is not None else {}
        stamp = datetime.now(UTC)
        return [CurrentSource.from_row(row, stamp, aged.get(row[1], 0)) for row in rows]

    def sibling(self, *, busy_timeout_s: float, cache_kib: int | None = None) -> SqliteReader:
        """Another reader of the same file whose connections wait ``busy_timeout_s`` for a lock and
        keep up to ``cache_kib`` KiB of pages (the web API's reader on its event loop, which must not
        wait long and reads on every request: see ``web/lean_offers.py``)."""
        conn = _connect(self._path, busy_timeout_s, cache_kib)
        return SqliteReader(conn, self._path, busy_timeout_s=busy_timeout_s, cache_kib=cache_kib)

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()


class _Snapshot:
    """A current snapshot row, as :func:`~gpuscout.catalog.query.current_scope` reads it."""

    __slots__ = ("fallback", "id", "providers", "source")

    def __init__(self, id: int, source: str, fallback: Any, providers: str) -> None:
        self.id, self.source, self.fallback, self.providers = id, source, bool(fallback), providers


_CURRENT_SOURCES_SQL = (
    "SELECT snapshots.source, snapshots.id, snapshots.fallback, snapshots.row_count, "
    "snapshots.observed_at, snapshots.finished_at, "
    f"(SELECT count(*) FROM offers WHERE offers.snapshot_id = snapshots.id AND offers.{STALE_ROWS}) "
    "FROM current_snapshot JOIN snapshots ON snapshots.id = current_snapshot.snapshot_id"
)


def aged_rows_sql(current: Sequence[Any], dialect: str) -> tuple[str, dict[str, Any]] | None:
    """How many rows of each current live snapshot (``snapshot_id, count``) its feed did not flag but
    the catalog's staleness rule holds stale by age (the rule's own terms,
    :func:`~gpuscout.catalog.query.aged_terms`, which ``exclude_stale`` reads too), and its bound
    values; ``None`` when no current snapshot is live. A source's stale rows are these and its
    flagged rows (:data:`STALE_ROWS`). ``current``: rows with ``id``, ``source``, ``fallback``,
    ``providers`` (:data:`~gpuscout.catalog.query.CURRENT_SNAPSHOTS_SQL`)."""
    live = aging_snapshots(current)
    params = Params()
    aged = aged_terms(current, params, dialect)
    if not live or aged is None:
        return None
    text = (
        f"SELECT snapshot_id, count(*) FROM offers WHERE snapshot_id IN ({params.many(live)}) "
        f"AND stale = {params.add(False)} AND NOT ({aged}) GROUP BY snapshot_id"
    )
    return text, params.values


@dataclass(frozen=True, slots=True)
class CurrentSource:
    """A source's current snapshot: the figures of :class:`~gpuscout.catalog.status.SourceStatus`
    the freshness banner reads, under the same names."""

    source: str
    current_snapshot_id: int
    fallback: bool
    row_count: int
    stale_rows: int
    data_observed_at: datetime | None
    age_s: float | None  # since the data was observed, when read
    current_loaded_at: datetime | None

    @classmethod
    def from_row(cls, row: Sequence[Any], stamp: datetime, aged: int = 0) -> CurrentSource:
        """A row of ``_CURRENT_SOURCES_SQL``; ``aged``: its live rows stale by age, not flagged."""
        source, snapshot_id, fallback, row_count, observed, finished, flagged = row
        observed_at, loaded_at = _datetime(observed), _datetime(finished)
        return cls(
            source=source,
            current_snapshot_id=int(snapshot_id),
            fallback=bool(fallback),
            row_count=int(row_count),
            stale_rows=int(flagged) + int(aged),
            data_observed_at=observed_at,
            age_s=(stamp - observed_at).total_seconds() if observed_at is not None else None,
            current_loaded_at=loaded_at,
        )


def _datetime(value: str | None) -> datetime | None:
    """A stored time (SQLite: ISO text, UTC without an offset), in UTC."""
    return None if value is None else utc(datetime.fromisoformat(value))


def sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:///PATH`` URL (``None`` for any other URL, memory or options)."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or "?" in url:
        return None
    path = url.removeprefix(prefix)
    return path if path and path != ":memory:" else None


def _connect(
    path: str, busy_timeout_s: float = BUSY_TIMEOUT_S, cache_kib: int | None = None
) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={round(busy_timeout_s * 1000)}")
    if cache_kib is not None:
        conn.execute(f"PRAGMA cache_size=-{int(cache_kib)}")  # negative: KiB, not pages
    return conn


def open_ready(url: str) -> SqliteReader | None:
    """A :class:`SqliteReader` for the store at ``url`` when it is a SQLite file that is ready (see the
    module docstring); ``None`` when the store must be opened (and so migrated, synced or loaded)."""
    path = sqlite_path(url)
    if path is None:
        return None
    conn = connect_if_ready(path)
    return None if conn is None else SqliteReader(conn, path)


def connect_if_ready(path: str) -> sqlite3.Connection | None:
    """A connection to the SQLite file at ``path`` when it is a ready store (see the module docstring);
    ``None`` when it is not a file, not a store, locked past the timeout, damaged or in need of a
    migration, sync or load: the Store opens it then and says what is wrong."""
    if not os.path.isfile(path):
        return None
    try:
        conn = _connect(path)
    except sqlite3.Error:
        return None
    try:
        if _ready(conn):
            return conn
    except sqlite3.Error:
        pass
    conn.close()
    return None


def _ready(conn: sqlite3.Connection) -> bool:
    from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
    from gpuscout.knowledge.accelerators import all_accelerators

    conn.execute("BEGIN")
    try:
        version = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            return False
        bundled = conn.execute(
            "SELECT snapshots.fingerprint FROM current_snapshot JOIN snapshots "
            "ON snapshots.id = current_snapshot.snapshot_id WHERE current_snapshot.source = ?",
            (SNAPSHOT_SOURCE,),
        ).fetchone()
        if bundled is None or bundled[0] != SNAPSHOT_SHA256:
            return False
        stored = {
            name: (memory, bandwidth, tflops)
            for name, memory, bandwidth, tflops in conn.execute(
                "SELECT name, memory_gb, bandwidth_gbps, bf16_tflops FROM accelerators"
            )
        }
    finally:
        conn.execute("COMMIT")
    wanted = {a.name: (float(a.memory_gb), a.bandwidth_gbps, a.bf16_tflops) for a in all_accelerators()}
    return stored == wanted


def _install_template(path: str) -> None:
    """A fresh store from the packaged template (:mod:`gpuscout.catalog.store_template`); when that
    cannot be done the Store builds it (and says what is wrong, if anything is)."""
    from gpuscout.catalog.store_template import install

    with suppress(OSError, sqlite3.Error, ValueError, KeyError, TypeError):
        install(path)


def open_reader(url: str) -> OfferReader:
    """A reader of the current offers of the store at ``url``: ``sqlite3`` on a ready SQLite store,
    else the opened :class:`~gpuscout.catalog.store.Store` (migrated, synced, bundled snapshot loaded).
    A SQLite file that does not exist yet is first written from the packaged template."""
    path = sqlite_path(url)
    if path is not None and not os.path.exists(path):
        _install_template(path)
    lean = open_ready(url)
    if lean is not None:
        return lean
    from gpuscout.catalog.api import open_store

    store: Store = open_store(url)
    return store
