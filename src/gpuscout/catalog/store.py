"""The offer store: SQLite (default, WAL) or PostgreSQL, with snapshot history.

Every refresh of a source is one row in ``snapshots``. A good snapshot's offers are written and
the source's ``current_snapshot`` pointer is flipped *in the same transaction*, so a reader sees
either the previous snapshot or the new one, never a mix. Rejected and failed refreshes are
recorded (status, error, reason) without touching the current data. Old snapshots are kept for
:meth:`Store.price_history` until :meth:`Store.prune` removes them.

The store is cut by concern: the engine and its PRAGMAs in :mod:`.db`, the Offer <-> row mapping in
:mod:`.rows`, filters, sorts and the current-snapshot scope in :mod:`.query`, source status and
price history in :mod:`.status`. This module holds the transactions: snapshot writes, the current
pointer, pruning and the offer reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any

import sqlalchemy as sa

from gpuscout.catalog import schema as t
from gpuscout.catalog.clock import now, utc
from gpuscout.catalog.constant_columns import ConstantSplit, constant_split, sample_rows
from gpuscout.catalog.db import advisory_lock, make_engine, read_engine, write_engine
from gpuscout.catalog.migrations import fill_value_columns, migrate
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.paths import default_db_url
from gpuscout.catalog.query import (
    OfferQuery,
    Params,
    check_sort,
    current_scope,
    offers_sql,
    source_preference,
)
from gpuscout.catalog.results import WriteReport, attempt_row
from gpuscout.catalog.rows import OFFER_COLUMNS, RowValues, Specs, decode_offer, insert_binds, row_values
from gpuscout.catalog.status import (
    DropReasons,
    HistoryPoint,
    KnownSource,
    SourceStatus,
    current_snapshots,
    drop_reasons_json,
    format_age,
    price_history,
    snapshot_rows,
    sources_status,
)
from gpuscout.errors import InvalidInputError
from gpuscout.gc_pause import collection_paused

__all__ = [
    "SNAPSHOT_SOURCE",
    "HistoryPoint",
    "SourceStatus",
    "Store",
    "WriteReport",
    "format_age",
    "source_preference",
]

SNAPSHOT_SOURCE = "snapshot"
_INSERT_CHUNK = 5000
_WRITE_CACHE_KIB = 65536  # SQLite page cache while a large snapshot is inserted
# PostgreSQL advisory lock keys (migrations take 727001).
_ACCELERATOR_LOCK = 727002
_FIRST_SNAPSHOT_LOCK = 727003


class Store:
    """The offer store. ``url`` None -> ``$GPUSCOUT_DB`` or a SQLite file in the user data dir.

    Opening applies pending migrations and refreshes the accelerator spec table.
    """

    def __init__(self, url: str | None = None, *, sync_accelerators: bool = True) -> None:
        self.url = url or default_db_url()
        self.engine = make_engine(self.url)
        self._write_engine = write_engine(self.engine)
        # Reads run their statements in one transaction: one consistent view of the data.
        self._read_engine = read_engine(self.engine)
        migrate(self.engine)
        self._spec_cache: Specs | None = None
        self._insert_plan: tuple[str, RowValues] | None = None
        self._row_builders: dict[tuple[str, ...], RowValues] = {}
        if sync_accelerators:
            self.sync_accelerators()

    # ---- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def __repr__(self) -> str:
        return f"<Store {self.engine.url.render_as_string(hide_password=True)}>"

    # ---- accelerator specs ---------------------------------------------------------------
    def sync_accelerators(self) -> None:
        """Copy the specs the spec-based sorts need from the knowledge table (only when changed)."""
        from gpuscout.knowledge.accelerators import all_accelerators

        wanted = {a.name: (float(a.memory_gb), a.bandwidth_gbps, a.bf16_tflops) for a in all_accelerators()}

        def have(conn: sa.Connection) -> dict[str, tuple[Any, Any, Any]]:
            return {
                r.name: (r.memory_gb, r.bandwidth_gbps, r.bf16_tflops)
                for r in conn.execute(sa.select(t.accelerators))
            }

        with self.engine.connect() as conn:
            if have(conn) == wanted:
                return
        with self._write_engine.begin() as conn:
            advisory_lock(conn, _ACCELERATOR_LOCK)  # two processes opening at once: one rewrites
            if have(conn) == wanted:
                return
            conn.execute(t.accelerators.delete())
            conn.execute(
                t.accelerators.insert(),
                [
                    {"name": n, "memory_gb": m, "bandwidth_gbps": b, "bf16_tflops": f}
                    for n, (m, b, f) in wanted.items()
                ],
            )
            fill_value_columns(conn)  # stored offers' spec-per-dollar keys follow the new specs
        self._spec_cache = None

    def _specs(self) -> Specs:
        if self._spec_cache is None:
            with self.engine.connect() as conn:
                self._spec_cache = {
                    r.name: (r.bandwidth_gbps, r.bf16_tflops) for r in conn.execute(sa.select(t.accelerators))
                }
        return self._spec_cache

    # ---- writes ----------------------------------------------------------------------------
    def write_snapshot(
        self,
        source: str,
        offers: Sequence[Offer],
        *,
        started_at: datetime | None = None,
        reason: str | None = None,
        dropped_count: int = 0,
        fallback: bool = False,
        only_if_absent: bool = False,
        drop_reasons: DropReasons | None = None,
        fingerprint: str | None = None,
        unless_fingerprint: bool = False,
    ) -> WriteReport:
        """Store a good snapshot of ``source`` and make it current, in one transaction.

        ``only_if_absent``: store it only while ``source`` has no current snapshot, checked inside the
        write transaction (of several processes loading the first snapshot at once, exactly one writes
        it); the others get a report with ``written`` false and the current snapshot's id.
        ``drop_reasons`` (``{"invalid": {reason: n}, "excluded": {reason: n}}``) says why feed rows
        were not stored; ``gpuscout sources`` shows it. ``fingerprint`` records what the rows were
        read from (the bundled file's SHA-256); with ``unless_fingerprint`` the snapshot is stored only
        when the current one of ``source`` has another fingerprint (or none), decided inside the write
        transaction like ``only_if_absent``.
        """
        started = utc(started_at) or now()
        # The snapshot's data age is its oldest row; unknown as soon as one row's time is unknown.
        # (Each distinct time once: the rows of a feed or a file mostly share one.)
        times = set(map(_observed_at, offers))
        known = [x for t in times if (x := utc(t)) is not None]
        observed_at = min(known) if known and None not in times else None
        providers = sorted({o.provider for o in offers})
        specs = self._specs()
        with collection_paused(len(offers)), self._write_engine.begin() as conn:
            if only_if_absent or unless_fingerprint:
                advisory_lock(conn, _FIRST_SNAPSHOT_LOCK)
                current = _current_id(conn, source)
                if current is not None and (only_if_absent or _fingerprint(conn, current) == fingerprint):
                    return WriteReport(snapshot_id=current, rows=0, written=False)
            snapshot_id = conn.execute(
                t.snapshots.insert()
                .values(
                    source=source,
                    started_at=started,
                    finished_at=now(),
                    status="ok",
                    error=None,
                    row_count=len(offers),
                    reason=reason,
                    dropped_count=dropped_count,
                    observed_at=observed_at,
                    providers=",".join(providers),
                    fallback=fallback,
                    drop_reasons=drop_reasons_json(drop_reasons),
                    fingerprint=fingerprint,
                )
                .returning(t.snapshots.c.id)
            ).scalar_one()
            self._insert_offers(conn, offers, snapshot_id, specs)
            set_current(conn, source, snapshot_id)
            if conn.dialect.name == "sqlite":
                # Keep the planner's statistics current (sampled: bounded cost, ~40 ms). Without
                # them SQLite drives queries from the unselective snapshot_id index.
                conn.exec_driver_sql("PRAGMA analysis_limit=20000")
                conn.exec_driver_sql("ANALYZE offers")
        return WriteReport(snapshot_id=snapshot_id, rows=len(offers), providers=providers)

    def _insert_offers(
        self, conn: sa.Connection, offers: Sequence[Offer], snapshot_id: int, specs: Specs
    ) -> None:
        """Bulk insert straight through the driver's executemany, in chunks.

        Values go through each column type's own bind processor for this dialect (datetimes,
        JSON...), or an equivalent that gives the same values for the types an offer holds
        (:func:`~gpuscout.catalog.rows.insert_binds`); skipping SQLAlchemy's per-row statement
        machinery, and building each row as one tuple (:func:`~gpuscout.catalog.rows.row_values`),
        makes ingest several times faster (``benchmarks/catalog.py``). On SQLite the connection's
        page cache is raised for a large insert (a larger cache keeps the index pages being updated
        in memory), and when the new rows are at least as many as those already stored the offers
        indexes are dropped and built again after the insert, in the same transaction (see
        :func:`_rebuild_indexes_for`), and the columns that hold one ``None`` or text in every row
        are written into the statement instead of bound per row (:func:`_constant_split`).
        """
        if self._insert_plan is None:
            dialect = self.engine.dialect
            cols = _insert_columns()
            mark = "?" if dialect.paramstyle == "qmark" else "%s"
            sql = f"INSERT INTO offers ({', '.join(cols)}) VALUES ({', '.join([mark] * len(cols))})"
            self._insert_plan = (sql, row_values(cols, insert_binds(dialect, t.offers)))
        sql, values = self._insert_plan
        lite = conn.dialect.name == "sqlite"
        big = lite and len(offers) > _INSERT_CHUNK
        if big:
            conn.exec_driver_sql(f"PRAGMA cache_size=-{_WRITE_CACHE_KIB}")
        try:
            rebuild = _rebuild_indexes_for(conn, len(offers)) if big else {}
            for name in rebuild:
                conn.exec_driver_sql(f"DROP INDEX {name}")
            if conn.dialect.name == "postgresql" and self._copy_offers(conn, offers, snapshot_id, specs):
                return
            split = self._constant_split(offers, snapshot_id, specs) if lite else None
            for i in range(0, len(offers), _INSERT_CHUNK):
                chunk = offers[i : i + _INSERT_CHUNK]
                if split is not None:
                    fast, rows = split.split(chunk, snapshot_id, specs)
                    if fast:
                        conn.exec_driver_sql(split.sql, fast)
                else:
                    rows = [values(o, snapshot_id, specs) for o in chunk]
                if rows:
                    conn.exec_driver_sql(sql, rows)
            for ddl in rebuild.values():
                conn.exec_driver_sql(ddl)
        finally:
            if big:
                conn.exec_driver_sql("PRAGMA cache_size=-2000")  # SQLite's default again

    def _constant_split(
        self, offers: Sequence[Offer], snapshot_id: int, specs: Specs
    ) -> ConstantSplit | None:
        """SQLite: the insert with the columns whose field holds one ``None`` or text in the sampled
        offers written into the statement (:mod:`~gpuscout.catalog.constant_columns`)."""
        sample = [offers[i] for i in sample_rows(len(offers))]
        return constant_split(
            "offers", _insert_columns(), OFFER_COLUMNS, sample, self._rows_for, snapshot_id, specs
        )

    def _rows_for(self, columns: Sequence[str]) -> RowValues:
        """The compiled row builder for these ``offers`` columns (cached: a store writes few shapes)."""
        key = tuple(columns)
        built = self._row_builders.get(key)
        if built is None:
            built = self._row_builders[key] = row_values(columns, insert_binds(self.engine.dialect, t.offers))
        return built

    def _copy_offers(
        self, conn: sa.Connection, offers: Sequence[Offer], snapshot_id: int, specs: Specs
    ) -> bool:
        """PostgreSQL: the rows sent with ``COPY ... FROM STDIN`` through psycopg, on the write
        transaction's own connection (the same values as the ``INSERT``: PostgreSQL parses each one
        as the column's type); False when the driver has no ``copy`` (then the insert is used)."""
        assert self._insert_plan is not None
        _sql, values = self._insert_plan
        driver = conn.connection.driver_connection
        cursor = driver.cursor() if driver is not None else None
        if cursor is None or not hasattr(cursor, "copy"):
            return False
        columns = ", ".join(c.name for c in t.offers.columns if c.name != "id")
        with cursor, cursor.copy(f"COPY offers ({columns}) FROM STDIN") as copy:
            write = copy.write_row
            for o in offers:
                write(values(o, snapshot_id, specs))
        return True

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
        """Record a rejected or failed refresh; the current data of ``source`` is left as it is."""
        row = attempt_row(
            source, status, started_at=utc(started_at) or now(), finished_at=now(), error=error,
            reason=reason, row_count=row_count, dropped_count=dropped_count, drop_reasons=drop_reasons,
        )  # fmt: skip
        with self._write_engine.begin() as conn:
            snapshot_id: int = conn.execute(
                t.snapshots.insert().values(**row).returning(t.snapshots.c.id)
            ).scalar_one()
        return snapshot_id

    def prune(self, older_than_days: float) -> int:
        """Delete snapshots (and their offers) older than N days, except each source's current
        one. Returns the number of snapshots removed."""
        if not older_than_days >= 0:  # also refuses NaN
            raise InvalidInputError("days", f"must be >= 0, got {older_than_days}", "a number of days >= 0")
        try:
            cutoff = now() - timedelta(days=older_than_days)
        except OverflowError:  # older than any date: nothing to remove
            return 0
        with self._write_engine.begin() as conn:
            ids = [
                r[0]
                for r in conn.execute(
                    sa.select(t.snapshots.c.id).where(
                        t.snapshots.c.started_at < cutoff,
                        t.snapshots.c.id.not_in(sa.select(t.current_snapshot.c.snapshot_id)),
                    )
                )
            ]
            for i in range(0, len(ids), 500):
                part = ids[i : i + 500]
                conn.execute(t.offers.delete().where(t.offers.c.snapshot_id.in_(part)))
                conn.execute(t.snapshots.delete().where(t.snapshots.c.id.in_(part)))
        return len(ids)

    # ---- reads -----------------------------------------------------------------------------
    def has_source(self, source: str) -> bool:
        with self.engine.connect() as conn:
            return _current_id(conn, source) is not None

    def current_fingerprint(self, source: str) -> tuple[bool, str | None]:
        """(whether ``source`` has a current snapshot, the fingerprint it was stored with)."""
        with self.engine.connect() as conn:
            current = _current_id(conn, source)
            return current is not None, None if current is None else _fingerprint(conn, current)

    def last_good_row_count(self, source: str) -> int | None:
        """Row count of the current snapshot of ``source`` (None when it has none)."""
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(t.snapshots.c.row_count)
                .join(t.current_snapshot, t.current_snapshot.c.snapshot_id == t.snapshots.c.id)
                .where(t.current_snapshot.c.source == source)
            ).scalar()
        return None if value is None else int(value)

    def _read(
        self, conn: sa.Connection, query: OfferQuery, include_superseded: bool, *, count: bool = False
    ) -> sa.CursorResult[Any]:
        text, params = offers_sql(
            query, current_snapshots(conn), OFFER_COLUMNS, dialect=conn.dialect.name,
            include_superseded=include_superseded, count=count,
        )  # fmt: skip
        return conn.execute(sa.text(text), params)

    def _page(self, conn: sa.Connection, query: OfferQuery, include_superseded: bool) -> list[Offer]:
        return [decode_offer(r) for r in self._read(conn, query, include_superseded)]

    def _count(self, conn: sa.Connection, query: OfferQuery, include_superseded: bool) -> int:
        return int(self._read(conn, query, include_superseded, count=True).scalar_one())

    def current_offers(
        self, query: OfferQuery | None = None, *, include_superseded: bool = False
    ) -> list[Offer]:
        """Current offers matching ``query``, filtered, sorted and limited in SQL.

        Sorts are best-first (cheapest for prices, highest for ``*_per_dollar``, most memory for
        ``gpu_memory``, freshest for ``age``); ``query.descending`` reverses that (see
        :func:`gpuscout.catalog.query.order_by`). Rows of the bundled snapshot are hidden for
        providers that a live source covers, unless ``include_superseded``.
        """
        query = query or OfferQuery()
        check_sort(query.sort)
        with self._read_engine.connect() as conn:
            return self._page(conn, query, include_superseded)

    def count_offers(self, query: OfferQuery | None = None, *, include_superseded: bool = False) -> int:
        """How many current offers match ``query`` (ignoring its limit/offset)."""
        with self._read_engine.connect() as conn:
            return self._count(conn, query or OfferQuery(), include_superseded)

    def offer_totals(self, query: OfferQuery | None = None) -> tuple[int, int]:
        """How many current offers match ``query`` and how many providers they come from (what a
        summary needs, without reading the rows)."""
        with self._read_engine.connect() as conn:
            text, params = offers_sql(
                query or OfferQuery(), current_snapshots(conn), (), dialect=conn.dialect.name,
                count=True, providers=True,
            )  # fmt: skip
            offers, providers = conn.execute(sa.text(text), params).one()
        return int(offers), int(providers)

    def offer_page(
        self, query: OfferQuery | None = None, *, include_superseded: bool = False
    ) -> tuple[list[Offer], int]:
        """The offers of one page of ``query`` and how many match in all, read in one transaction
        (a refresh landing between the two reads cannot pair old rows with a new total)."""
        query = query or OfferQuery()
        check_sort(query.sort)
        with self._read_engine.connect() as conn:
            return self._page(conn, query, include_superseded), self._count(conn, query, include_superseded)

    def sources_status(self, sources: Mapping[str, KnownSource] | None = None) -> list[SourceStatus]:
        """Freshness and last attempt of every source the store has seen, plus every source in
        ``sources`` (name -> Source, for its credential state) even if never refreshed."""
        with self._read_engine.connect() as conn:
            return sources_status(conn, sources)

    def fallback_offer_count(self) -> int:
        """How many current offers come from the bundled snapshot (those of providers no live
        source covers): 0 once live data has replaced it everywhere."""
        with self._read_engine.connect() as conn:
            current = current_snapshots(conn)
            fallback_ids = [int(r.id) for r in current if r.fallback]
            if not fallback_ids:
                return 0
            params = Params()
            scope = current_scope(current, params)
            mine = params.many(fallback_ids)
            stmt = f"SELECT count(*) FROM offers WHERE {scope} AND snapshot_id IN ({mine})"
            return int(conn.execute(sa.text(stmt), params.values).scalar_one())

    def snapshots(self, source: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The most recent snapshot rows (all statuses), newest first."""
        with self.engine.connect() as conn:
            return snapshot_rows(conn, source, limit)

    def price_history(
        self, accelerator: str | Iterable[str], provider: str | None = None, days: float | None = None
    ) -> list[HistoryPoint]:
        """Min and median on-demand per-GPU-hour price per (snapshot, provider) over time (see
        :func:`gpuscout.catalog.status.price_history`)."""
        with self._read_engine.connect() as conn:
            return price_history(conn, accelerator, provider, days)


_observed_at = attrgetter("observed_at")


def _insert_columns() -> list[str]:
    return [c.name for c in t.offers.columns if c.name != "id"]


def _rebuild_indexes_for(conn: sa.Connection, new_rows: int) -> dict[str, str]:
    """The SQLite indexes of ``offers`` (name -> its ``CREATE INDEX``) to drop before inserting
    ``new_rows`` rows and build again after: all of them when the table holds no more rows than
    that, none otherwise.

    Building an index from the finished table (one sort) costs less than updating it row by row
    (at 101,000 offers into an empty store: the insert with its 9 indexes takes 2.9 s CPU, the
    insert without them and the 9 builds 1.7 s), but a build reads every stored row, the kept
    history too: past the rows being added it would cost more than it saves. DDL is part of
    SQLite's transaction, so a failed write leaves the indexes as they were, and readers (WAL)
    keep reading the previous snapshot through them until the commit. PostgreSQL is never asked:
    dropping an index there locks the table against readers until the commit.
    """
    stored = int(conn.exec_driver_sql("SELECT count(*) FROM offers").scalar_one())
    if stored > new_rows:
        return {}
    rows = conn.exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'offers' AND sql IS NOT NULL"
    )
    return {str(name): str(ddl) for name, ddl in rows}


def _current_id(conn: sa.Connection, source: str) -> int | None:
    value = conn.execute(
        sa.select(t.current_snapshot.c.snapshot_id).where(t.current_snapshot.c.source == source)
    ).scalar()
    return None if value is None else int(value)


def _fingerprint(conn: sa.Connection, snapshot_id: int) -> str | None:
    value = conn.execute(sa.select(t.snapshots.c.fingerprint).where(t.snapshots.c.id == snapshot_id)).scalar()
    return None if value is None else str(value)


def set_current(conn: sa.Connection, source: str, snapshot_id: int) -> None:
    """Point ``source`` at ``snapshot_id`` with one upsert (two first writers of a source cannot
    both insert the pointer: the second updates it)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        pg = postgresql.insert(t.current_snapshot).values(source=source, snapshot_id=snapshot_id)
        conn.execute(pg.on_conflict_do_update(index_elements=["source"], set_={"snapshot_id": snapshot_id}))
        return
    from sqlalchemy.dialects import sqlite

    lite = sqlite.insert(t.current_snapshot).values(source=source, snapshot_id=snapshot_id)
    conn.execute(lite.on_conflict_do_update(index_elements=["source"], set_={"snapshot_id": snapshot_id}))
