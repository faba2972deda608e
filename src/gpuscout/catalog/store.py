"""The offer store: SQLite (default, WAL) or PostgreSQL, with snapshot history.

Every refresh of a source is one row in ``snapshots``. A good snapshot's offers are written and
the source's ``current_snapshot`` pointer is flipped *in the same transaction*, so a reader sees
either the previous snapshot or the new one, never a mix. Rejected and failed refreshes are
recorded (status, error, reason) without touching the current data. Old snapshots are kept for
:meth:`Store.price_history` until :meth:`Store.prune` removes them.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

from gpuscout.catalog import schema as t
from gpuscout.catalog.migrations import fill_value_columns, migrate
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.paths import default_db_url
from gpuscout.catalog.query import SORT_KEYS, OfferQuery
from gpuscout.errors import InvalidInputError

SNAPSHOT_SOURCE = "snapshot"
_INSERT_CHUNK = 2000
# Sort ranks of the enum columns (best first); an unknown interconnect has none, so it sorts last.
_INTERCONNECT_RANK = {Interconnect.NVLINK.value: 0, Interconnect.PCIE.value: 1}
_AVAILABILITY_RANK = {
    Availability.AVAILABLE.value: 0,
    Availability.LIMITED.value: 1,
    Availability.UNKNOWN.value: 2,
    Availability.UNAVAILABLE.value: 3,
}


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """What the store knows about one source (``gpuscout sources``).

    ``data_observed_at`` is when the current data was observed at the provider (the oldest row);
    ``None`` means unknown (the bundled snapshot), so ``age_s`` is ``None`` too: never "today".
    """

    source: str
    current_snapshot_id: int | None
    current_loaded_at: datetime | None  # when the current snapshot was stored
    data_observed_at: datetime | None
    age_s: float | None
    row_count: int  # rows in the current snapshot
    stale_rows: int
    last_attempt_at: datetime | None
    last_status: str | None  # ok | rejected | failed | None (never attempted)
    last_error: str | None
    last_reason: str | None
    credentials_present: bool | None = None  # None: not a registered source / not known
    needs_credentials: tuple[str, ...] = ()
    fallback: bool = False

    @property
    def age_text(self) -> str:
        return format_age(self.age_s)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """Per-GPU-hour prices of one accelerator at one provider in one stored snapshot.

    ``at`` is when the prices were observed; ``None`` when unknown (bundled snapshot rows).
    """

    at: datetime | None
    recorded_at: datetime
    provider: str
    accelerator: str
    source: str
    offers: int
    min_usd_per_gpu_hour: float
    median_usd_per_gpu_hour: float


@dataclass(slots=True)
class WriteReport:
    """What :meth:`Store.write_snapshot` stored."""

    snapshot_id: int
    rows: int
    providers: list[str] = field(default_factory=list)


def format_age(age_s: float | None) -> str:
    """Human age: ``"unknown"`` for ``None``, else ``"45s"``, ``"12m"``, ``"5h"``, ``"3d"``."""
    if age_s is None:
        return "unknown"
    age_s = max(age_s, 0.0)
    if age_s < 120:
        return f"{age_s:.0f}s"
    if age_s < 7200:
        return f"{age_s / 60:.0f}m"
    if age_s < 172800:
        return f"{age_s / 3600:.0f}h"
    return f"{age_s / 86400:.0f}d"


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _now() -> datetime:
    return datetime.now(UTC)


def _make_engine(url: str) -> sa.Engine:
    if url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgres://")
    elif url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        memory = parsed.database in (None, "", ":memory:")
        if not memory and parsed.database:
            os.makedirs(os.path.dirname(os.path.abspath(parsed.database)), exist_ok=True)
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
        if memory:
            kwargs["poolclass"] = StaticPool
        engine = sa.create_engine(parsed, **kwargs)

        @sa.event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's implicit transactions
            # skip DDL and cannot take the write lock up front).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            if not memory:
                cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        @sa.event.listens_for(engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            write = conn.get_execution_options().get("write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine
    if parsed.get_backend_name() == "postgresql":
        return sa.create_engine(parsed, pool_pre_ping=True)
    raise InvalidInputError(
        "db",
        f"unsupported database URL {parsed.render_as_string()!r}",
        "sqlite:///PATH or postgresql+psycopg://USER:PASS@HOST/DB",
    )


Specs = Mapping[str, tuple[float | None, float | None]]  # name -> (bandwidth GB/s, BF16 TFLOPS)


def _per(value: float | None, price: float | None) -> float | None:
    return value / price if value is not None and price else None


def _offer_row(offer: Offer, snapshot_id: int, specs: Specs) -> dict[str, Any]:
    bw, tf = specs.get(offer.accelerator, (None, None))
    per_gpu, spot_per_gpu = offer.price_usd_per_gpu_hour, offer.spot_price_usd_per_gpu_hour
    return {
        "bandwidth_per_usd": _per(bw, per_gpu),
        "tflops_per_usd": _per(tf, per_gpu),
        "spot_bandwidth_per_usd": _per(bw, spot_per_gpu),
        "spot_tflops_per_usd": _per(tf, spot_per_gpu),
        "snapshot_id": snapshot_id,
        "provider": offer.provider,
        "instance_type": offer.instance_type,
        "region": offer.region,
        "zone": offer.zone,
        "accelerator": offer.accelerator,
        "gpu_count": offer.gpu_count,
        "gpu_memory_gb": offer.gpu_memory_gb,
        "price_usd_per_hour": offer.price_usd_per_hour,
        "spot_price_usd_per_hour": offer.spot_price_usd_per_hour,
        "price_usd_per_gpu_hour": offer.price_usd_per_gpu_hour,
        "spot_price_usd_per_gpu_hour": offer.spot_price_usd_per_gpu_hour,
        "source": offer.source,
        "observed_at": _utc(offer.observed_at),
        "vcpus": offer.vcpus,
        "ram_gb": offer.ram_gb,
        "disk_gb": offer.disk_gb,
        "interconnect": Interconnect(offer.interconnect).value,
        "internode": offer.internode,
        "availability": Availability(offer.availability).value,
        "available_count": offer.available_count,
        "billing_terms": offer.billing_terms,
        "stale": offer.stale,
        "fractional": offer.fractional,
        "storage_usd_per_gb_month": offer.storage_usd_per_gb_month,
        "egress_usd_per_gb": offer.egress_usd_per_gb,
        "secure": offer.secure,
        "notes": offer.notes,
        "extra": dict(offer.extra),
    }


_OFFER_COLUMNS = (
    "provider",
    "instance_type",
    "region",
    "zone",
    "accelerator",
    "gpu_count",
    "gpu_memory_gb",
    "price_usd_per_hour",
    "spot_price_usd_per_hour",
    "source",
    "observed_at",
    "vcpus",
    "ram_gb",
    "disk_gb",
    "interconnect",
    "internode",
    "availability",
    "available_count",
    "billing_terms",
    "stale",
    "fractional",
    "storage_usd_per_gb_month",
    "egress_usd_per_gb",
    "secure",
    "notes",
    "extra",
)


def _row_offer(row: sa.Row[Any]) -> Offer:
    m = row._mapping
    return Offer(
        provider=m["provider"],
        instance_type=m["instance_type"],
        region=m["region"],
        zone=m["zone"],
        accelerator=m["accelerator"],
        gpu_count=int(m["gpu_count"]),
        gpu_memory_gb=float(m["gpu_memory_gb"]),
        price_usd_per_hour=m["price_usd_per_hour"],
        spot_price_usd_per_hour=m["spot_price_usd_per_hour"],
        source=m["source"],
        observed_at=_utc(m["observed_at"]),
        vcpus=m["vcpus"],
        ram_gb=m["ram_gb"],
        disk_gb=m["disk_gb"],
        interconnect=Interconnect(m["interconnect"]),
        internode=m["internode"],
        availability=Availability(m["availability"]),
        available_count=m["available_count"],
        billing_terms=m["billing_terms"],
        stale=bool(m["stale"]),
        fractional=bool(m["fractional"]),
        storage_usd_per_gb_month=m["storage_usd_per_gb_month"],
        egress_usd_per_gb=m["egress_usd_per_gb"],
        secure=None if m["secure"] is None else bool(m["secure"]),
        notes=m["notes"] or "",
        extra=dict(m["extra"] or {}),
    )


class Store:
    """The offer store. ``url`` None -> ``$GPUSCOUT_DB`` or a SQLite file in the user data dir.

    Opening applies pending migrations and refreshes the accelerator spec table.
    """

    def __init__(self, url: str | None = None, *, sync_accelerators: bool = True) -> None:
        self.url = url or default_db_url()
        self.engine = _make_engine(self.url)
        self._write_engine = self.engine.execution_options(write=True)
        # Reads run their statements in one transaction: on SQLite (WAL) that is one consistent
        # view; on PostgreSQL REPEATABLE READ gives the same.
        self._read_engine = (
            self.engine.execution_options(isolation_level="REPEATABLE READ")
            if self.engine.dialect.name == "postgresql"
            else self.engine
        )
        migrate(self.engine)
        self._spec_cache: Specs | None = None
        self._insert_plan: tuple[str, list[str], list[Any]] | None = None
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
            if conn.dialect.name == "postgresql":  # two processes opening at once: one rewrites
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(727002)"))
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
    ) -> WriteReport:
        """Store a good snapshot of ``source`` and make it current, in one transaction."""
        started = _utc(started_at) or _now()
        observed = [x for o in offers if (x := _utc(o.observed_at)) is not None]
        # The snapshot's data age is its oldest row; unknown as soon as one row's time is unknown.
        observed_at = min(observed) if observed and len(observed) == len(offers) else None
        providers = sorted({o.provider for o in offers})
        specs = self._specs()
        with self._write_engine.begin() as conn:
            snapshot_id = conn.execute(
                t.snapshots.insert()
                .values(
                    source=source,
                    started_at=started,
                    finished_at=_now(),
                    status="ok",
                    error=None,
                    row_count=len(offers),
                    reason=reason,
                    dropped_count=dropped_count,
                    observed_at=observed_at,
                    providers=",".join(providers),
                    fallback=fallback,
                )
                .returning(t.snapshots.c.id)
            ).scalar_one()
            for i in range(0, len(offers), _INSERT_CHUNK):
                chunk = offers[i : i + _INSERT_CHUNK]
                self._insert_offers(conn, [_offer_row(o, snapshot_id, specs) for o in chunk])
            self._set_current(conn, source, snapshot_id)
            if conn.dialect.name == "sqlite":
                # Keep the planner's statistics current (sampled: bounded cost, ~40 ms). Without
                # them SQLite drives queries from the unselective snapshot_id index.
                conn.exec_driver_sql("PRAGMA analysis_limit=20000")
                conn.exec_driver_sql("ANALYZE offers")
        return WriteReport(snapshot_id=snapshot_id, rows=len(offers), providers=providers)

    def _insert_offers(self, conn: sa.Connection, rows: list[dict[str, Any]]) -> None:
        """Bulk insert straight through the driver's executemany.

        Values go through each column type's own bind processor for this dialect (datetimes,
        JSON...), exactly as SQLAlchemy would convert them; skipping its per-row statement
        machinery makes ingest several times faster.
        """
        if self._insert_plan is None:
            dialect = self.engine.dialect
            cols = [c for c in t.offers.columns if c.name != "id"]
            mark = "?" if dialect.paramstyle == "qmark" else "%s"
            sql = (
                f"INSERT INTO offers ({', '.join(c.name for c in cols)}) "
                f"VALUES ({', '.join([mark] * len(cols))})"
            )
            procs = [c.type.dialect_impl(dialect).bind_processor(dialect) for c in cols]
            self._insert_plan = (sql, [c.name for c in cols], procs)
        sql, names, procs = self._insert_plan
        params = [
            tuple(p(row[n]) if p is not None else row[n] for n, p in zip(names, procs, strict=True))
            for row in rows
        ]
        conn.exec_driver_sql(sql, params)

    def _set_current(self, conn: sa.Connection, source: str, snapshot_id: int) -> None:
        updated = conn.execute(
            t.current_snapshot.update()
            .where(t.current_snapshot.c.source == source)
            .values(snapshot_id=snapshot_id)
        ).rowcount
        if not updated:
            conn.execute(t.current_snapshot.insert().values(source=source, snapshot_id=snapshot_id))

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
    ) -> int:
        """Record a rejected or failed refresh; the current data of ``source`` is left as it is."""
        if status not in ("rejected", "failed"):
            raise InvalidInputError("status", f"{status!r} is not a failed attempt", "rejected, failed")
        with self._write_engine.begin() as conn:
            snapshot_id: int = conn.execute(
                t.snapshots.insert()
                .values(
                    source=source,
                    started_at=_utc(started_at) or _now(),
                    finished_at=_now(),
                    status=status,
                    error=error,
                    row_count=row_count,
                    reason=reason,
                    dropped_count=dropped_count,
                    observed_at=None,
                    providers="",
                    fallback=False,
                )
                .returning(t.snapshots.c.id)
            ).scalar_one()
        return snapshot_id

    def prune(self, older_than_days: float) -> int:
        """Delete snapshots (and their offers) older than N days, except each source's current
        one. Returns the number of snapshots removed."""
        if older_than_days < 0:
            raise InvalidInputError("days", "must be >= 0", "a number of days >= 0")
        cutoff = _now() - timedelta(days=older_than_days)
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
            return (
                conn.execute(
                    sa.select(t.current_snapshot.c.snapshot_id).where(t.current_snapshot.c.source == source)
                ).first()
                is not None
            )

    def last_good_row_count(self, source: str) -> int | None:
        """Row count of the current snapshot of ``source`` (None when it has none)."""
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(t.snapshots.c.row_count)
                .join(t.current_snapshot, t.current_snapshot.c.snapshot_id == t.snapshots.c.id)
                .where(t.current_snapshot.c.source == source)
            ).scalar()
        return None if value is None else int(value)

    def _current_scope(self, conn: sa.Connection, include_superseded: bool) -> sa.ColumnElement[bool]:
        """The condition selecting current offers, as plain ``snapshot_id IN (...)`` terms (no join,
        so the planner can drive the query from the price/accelerator indexes). Bundled-snapshot
        rows of providers that a live current snapshot covers are left out."""
        s = t.snapshots
        snaps = conn.execute(
            sa.select(s.c.id, s.c.source, s.c.fallback, s.c.providers).join(
                t.current_snapshot, t.current_snapshot.c.snapshot_id == s.c.id
            )
        ).all()
        live_rows = [r for r in snaps if not r.fallback]
        fallback = sorted(int(r.id) for r in snaps if r.fallback)
        hidden = sorted({p for r in live_rows for p in r.providers.split(",") if p})
        superseded = {} if include_superseded else _superseded_providers(live_rows)
        o = t.offers
        scope: list[sa.ColumnElement[bool]] = []
        whole = sorted(int(r.id) for r in live_rows if int(r.id) not in superseded)
        if whole:
            scope.append(o.c.snapshot_id.in_(whole))
        for snap_id, providers in sorted(superseded.items()):
            scope.append(sa.and_(o.c.snapshot_id == snap_id, o.c.provider.not_in(providers)))
        if fallback:
            term: sa.ColumnElement[bool] = o.c.snapshot_id.in_(fallback)
            if hidden and not include_superseded:
                term = sa.and_(term, o.c.provider.not_in(hidden))
            scope.append(term)
        return sa.or_(*scope) if scope else sa.false()

    def _current_select(
        self, conn: sa.Connection, query: OfferQuery, include_superseded: bool, columns: Sequence[Any]
    ) -> sa.Select[Any]:
        o = t.offers
        stmt = sa.select(*columns).select_from(o)
        conds: list[sa.ColumnElement[bool]] = [self._current_scope(conn, include_superseded)]
        if query.gpus:
            conds.append(o.c.accelerator.in_(list(query.gpus)))
        if query.min_vram_gb is not None:
            conds.append(o.c.gpu_memory_gb >= query.min_vram_gb)
        if query.min_total_vram_gb is not None:
            conds.append(o.c.gpu_memory_gb * o.c.gpu_count >= query.min_total_vram_gb)
        if query.gpu_count is not None:
            conds.append(o.c.gpu_count == query.gpu_count)
        if query.providers:
            # provider ids are canonical lower-case names; match the given spelling too
            conds.append(o.c.provider.in_(sorted({*query.providers, *(p.lower() for p in query.providers)})))
        if query.regions:
            conds.append(
                sa.or_(
                    *(sa.func.lower(o.c.region).contains(r.lower(), autoescape=True) for r in query.regions)
                )
            )
        if query.spot is True:
            conds.append(o.c.spot_price_usd_per_hour.is_not(None))
        elif query.spot is False:
            conds.append(o.c.price_usd_per_hour.is_not(None))
        if query.available_only:
            conds.append(o.c.availability != Availability.UNAVAILABLE.value)
        if query.interconnect:
            ic = query.interconnect.lower()
            if ic not in ("nvlink", "pcie"):
                raise InvalidInputError(
                    "interconnect", f"unknown value {query.interconnect!r}", "nvlink, pcie"
                )
            conds.append(o.c.interconnect == ic)
        if query.max_price_usd_per_hour is not None:
            price = o.c.spot_price_usd_per_hour if query.spot else o.c.price_usd_per_hour
            conds.append(price <= query.max_price_usd_per_hour)
        if query.exclude_stale:
            conds.append(o.c.stale.is_(False))
        if conds:
            stmt = stmt.where(*conds)
        return stmt

    def _order(self, query: OfferQuery) -> list[Any]:
        """ORDER BY terms for ``query.sort``: best first, ``descending`` flips it; unknown values
        (NULL) last either way; ties by per-GPU price, then row id (a stable order for paging).

        The spec sorts read each offer's precomputed, indexed ``*_per_usd`` column. ``price`` and
        ``price_per_gpu`` follow ``query.spot``; ``on_demand_price*`` always sort on the on-demand
        price. ``total_vram`` is most memory first; ``interconnect`` is NVLink, then PCIe (unknown
        last); ``availability`` is available, limited, unknown, unavailable; ``instance_type`` and
        ``source`` ignore case."""
        o = t.offers
        sort = query.sort
        if sort not in SORT_KEYS:
            raise InvalidInputError("sort", f"unknown sort {sort!r}", ", ".join(SORT_KEYS))
        price = o.c.spot_price_usd_per_hour if query.spot else o.c.price_usd_per_hour
        per_gpu = o.c.spot_price_usd_per_gpu_hour if query.spot else o.c.price_usd_per_gpu_hour
        expr: Any
        best_high = False
        if sort == "price":
            expr = price
        elif sort == "price_per_gpu":
            expr = per_gpu
        elif sort == "on_demand_price":
            expr = o.c.price_usd_per_hour
        elif sort == "on_demand_price_per_gpu":
            expr = o.c.price_usd_per_gpu_hour
        elif sort == "price_per_gb_vram":
            expr = price / (o.c.gpu_memory_gb * o.c.gpu_count)
        elif sort == "bandwidth_per_dollar":
            expr = o.c.spot_bandwidth_per_usd if query.spot else o.c.bandwidth_per_usd
            best_high = True
        elif sort == "tflops_per_dollar":
            expr = o.c.spot_tflops_per_usd if query.spot else o.c.tflops_per_usd
            best_high = True
        elif sort == "spot_price":
            expr = o.c.spot_price_usd_per_hour
        elif sort == "gpu_memory":
            expr, best_high = o.c.gpu_memory_gb, True
        elif sort == "total_vram":
            expr, best_high = o.c.gpu_memory_gb * o.c.gpu_count, True
        elif sort == "gpu_count":
            expr = o.c.gpu_count
        elif sort == "age":
            expr, best_high = o.c.observed_at, True
        elif sort == "interconnect":
            expr = sa.case(_INTERCONNECT_RANK, value=o.c.interconnect, else_=None)
        elif sort == "availability":
            expr = sa.case(_AVAILABILITY_RANK, value=o.c.availability, else_=None)
        elif sort in ("instance_type", "source"):
            expr = sa.func.lower(o.c[sort])
        else:  # provider, accelerator, region
            expr = o.c[sort]
        high_first = best_high != query.descending
        primary = expr.desc().nulls_last() if high_first else expr.asc().nulls_last()
        return [primary, o.c.price_usd_per_gpu_hour.asc().nulls_last(), o.c.id.asc()]

    def current_offers(
        self, query: OfferQuery | None = None, *, include_superseded: bool = False
    ) -> list[Offer]:
        """Current offers matching ``query``, filtered, sorted and limited in SQL.

        Sorts are best-first (cheapest for prices, highest for ``*_per_dollar``, most memory for
        ``gpu_memory``, freshest for ``age``); ``query.descending`` reverses that. Rows of the
        bundled snapshot are hidden for providers that a live source covers, unless
        ``include_superseded``.
        """
        query = query or OfferQuery()
        order = self._order(query)
        columns = [t.offers.c[name] for name in _OFFER_COLUMNS]
        with self._read_engine.connect() as conn:
            stmt = self._current_select(conn, query, include_superseded, columns)
            stmt = stmt.order_by(*order)
            if query.limit is not None:
                stmt = stmt.limit(query.limit)
            if query.offset:
                stmt = stmt.offset(query.offset)
            rows = conn.execute(stmt).all()
        return [_row_offer(r) for r in rows]

    def count_offers(self, query: OfferQuery | None = None, *, include_superseded: bool = False) -> int:
        """How many current offers match ``query`` (ignoring its limit/offset)."""
        query = query or OfferQuery()
        with self._read_engine.connect() as conn:
            stmt = self._current_select(conn, query, include_superseded, [sa.func.count()])
            return int(conn.execute(stmt).scalar_one())

    def sources_status(self, sources: Mapping[str, Any] | None = None) -> list[SourceStatus]:
        """Freshness and last attempt of every source the store has seen, plus every source in
        ``sources`` (name -> Source, for credential info) even if never refreshed."""
        s = t.snapshots
        now = _now()
        with self.engine.connect() as conn:
            current = {
                r.source: r
                for r in conn.execute(
                    sa.select(s).join(t.current_snapshot, t.current_snapshot.c.snapshot_id == s.c.id)
                )
            }
            last_ids = sa.select(sa.func.max(s.c.id)).group_by(s.c.source).scalar_subquery()
            last = {r.source: r for r in conn.execute(sa.select(s).where(s.c.id.in_(last_ids)))}
            stale_counts: dict[str, int] = dict(
                conn.execute(
                    sa.select(t.current_snapshot.c.source, sa.func.count())
                    .select_from(t.offers)
                    .join(t.current_snapshot, t.current_snapshot.c.snapshot_id == t.offers.c.snapshot_id)
                    .where(t.offers.c.stale.is_(True))
                    .group_by(t.current_snapshot.c.source)
                ).all()
            )
        names = list(dict.fromkeys([*current, *last, *(sources or {})]))
        out: list[SourceStatus] = []
        for name in names:
            cur, lst = current.get(name), last.get(name)
            observed = _utc(cur.observed_at) if cur is not None else None
            src = (sources or {}).get(name)
            needs = tuple(getattr(src, "needs_credentials", ()) or ())
            creds: bool | None = None
            if src is not None:
                creds = all(os.environ.get(v) for v in needs)
            out.append(
                SourceStatus(
                    source=name,
                    current_snapshot_id=cur.id if cur is not None else None,
                    current_loaded_at=_utc(cur.finished_at) if cur is not None else None,
                    data_observed_at=observed,
                    age_s=(now - observed).total_seconds() if observed is not None else None,
                    row_count=int(cur.row_count) if cur is not None else 0,
                    stale_rows=int(stale_counts.get(name, 0)),
                    last_attempt_at=_utc(lst.finished_at or lst.started_at) if lst is not None else None,
                    last_status=lst.status if lst is not None else None,
                    last_error=lst.error if lst is not None else None,
                    last_reason=lst.reason if lst is not None else None,
                    credentials_present=creds,
                    needs_credentials=needs,
                    fallback=bool(cur.fallback) if cur is not None else False,
                )
            )
        return out

    def snapshots(self, source: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The most recent snapshot rows (all statuses), newest first."""
        s = t.snapshots
        stmt = sa.select(s).order_by(s.c.id.desc()).limit(limit)
        if source is not None:
            stmt = stmt.where(s.c.source == source)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(stmt)]

    def price_history(
        self, accelerator: str | Iterable[str], provider: str | None = None, days: float | None = None
    ) -> list[HistoryPoint]:
        """Min and median on-demand per-GPU-hour price per (snapshot, provider) over time.

        ``accelerator`` is a canonical name or several (a family). Points whose observation time
        is unknown (``at`` None) come first; the rest are in time order.
        """
        names = [accelerator] if isinstance(accelerator, str) else list(accelerator)
        o, s = t.offers, t.snapshots
        stmt = (
            sa.select(
                s.c.id,
                s.c.source,
                s.c.finished_at,
                s.c.observed_at,
                o.c.provider,
                o.c.accelerator,
                o.c.price_usd_per_gpu_hour,
            )
            .join(s, s.c.id == o.c.snapshot_id)
            .where(s.c.status == "ok", o.c.accelerator.in_(names), o.c.price_usd_per_gpu_hour.is_not(None))
        )
        if provider:
            stmt = stmt.where(sa.func.lower(o.c.provider) == provider.lower())
        if days is not None:
            if days <= 0 or not math.isfinite(days):
                raise InvalidInputError("days", f"must be > 0, got {days}", "a positive number of days")
            stmt = stmt.where(s.c.finished_at >= _now() - timedelta(days=days))
        groups: dict[tuple[int, str], list[float]] = {}
        meta: dict[int, tuple[str, datetime, datetime | None]] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(stmt):
                groups.setdefault((r.id, r.provider), []).append(float(r.price_usd_per_gpu_hour))
                meta[r.id] = (r.source, _utc(r.finished_at) or _now(), _utc(r.observed_at))
        label = names[0] if len(names) == 1 else "|".join(names)
        points = [
            HistoryPoint(
                at=meta[sid][2],
                recorded_at=meta[sid][1],
                provider=prov,
                accelerator=label,
                source=meta[sid][0],
                offers=len(prices),
                min_usd_per_gpu_hour=min(prices),
                median_usd_per_gpu_hour=statistics.median(prices),
            )
            for (sid, prov), prices in groups.items()
        ]
        points.sort(key=lambda p: (p.at is not None, p.at or p.recorded_at, p.provider))
        return points


def source_preference(source: str) -> int | None:
    """Which live feed wins when two cover the same provider: a direct API (10) over a gpuhunt
    catalog (5). A user's own offer file (``None``) neither hides nor is hidden: its offers are
    private terms next to the public ones. Sources are named by kind (``gpuhunt:aws``, ``file:PATH``)."""
    if source.startswith("file:"):
        return None
    if source.startswith("gpuhunt:"):
        return 5
    return 10


def _superseded_providers(live_rows: Sequence[Any]) -> dict[int, list[str]]:
    """For each live snapshot, the providers another live snapshot of a preferred feed also covers
    (so the same Azure VM is not listed once from Azure's API and again from gpuhunt's catalog)."""
    ranked = [(r, pref) for r in live_rows if (pref := source_preference(r.source)) is not None]
    best: dict[str, int] = {}
    for r, pref in ranked:
        for p in filter(None, r.providers.split(",")):
            best[p] = max(best.get(p, -1), pref)
    out: dict[int, list[str]] = {}
    for r, pref in ranked:
        lost = sorted(p for p in filter(None, r.providers.split(",")) if best[p] > pref)
        if lost:
            out[int(r.id)] = lost
    return out
