"""Versioned schema migrations: an explicit, numbered list applied in order when a store opens.

Each step is ``(version, description, apply)``; ``apply(conn)`` runs inside the transaction that
also records the version in ``schema_version``, so a step is applied completely or not at all.
Steps are frozen once released: a change to the schema is a *new* step at the end, never an edit
of an old one. Step 1 therefore spells its tables out instead of reusing :mod:`.schema`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import sqlalchemy as sa

from gpuscout.catalog.reader import STALE_ROWS

Step = tuple[int, str, Callable[[sa.Connection], None]]


def _v1_initial(conn: sa.Connection) -> None:
    md = sa.MetaData()
    sa.Table(
        "snapshots",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("source", sa.String(300), nullable=False, index=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("row_count", sa.Integer, nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("dropped_count", sa.Integer, nullable=False),
    )
    sa.Table(
        "offers",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("snapshot_id", sa.Integer, sa.ForeignKey("snapshots.id"), nullable=False, index=True),
        sa.Column("provider", sa.String(100), nullable=False, index=True),
        sa.Column("instance_type", sa.String(300), nullable=False),
        sa.Column("region", sa.String(200), nullable=False),
        sa.Column("zone", sa.String(200), nullable=True),
        sa.Column("accelerator", sa.String(100), nullable=False, index=True),
        sa.Column("gpu_count", sa.Integer, nullable=False),
        sa.Column("gpu_memory_gb", sa.Float, nullable=False),
        sa.Column("price_usd_per_hour", sa.Float, nullable=True, index=True),
        sa.Column("spot_price_usd_per_hour", sa.Float, nullable=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("observed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("vcpus", sa.Float, nullable=True),
        sa.Column("ram_gb", sa.Float, nullable=True),
        sa.Column("disk_gb", sa.Float, nullable=True),
        sa.Column("interconnect", sa.String(16), nullable=False),
        sa.Column("internode", sa.String(50), nullable=True),
        sa.Column("availability", sa.String(16), nullable=False),
        sa.Column("available_count", sa.Integer, nullable=True),
        sa.Column("billing_terms", sa.String(100), nullable=True),
        sa.Column("stale", sa.Boolean, nullable=False),
        sa.Column("fractional", sa.Boolean, nullable=False),
        sa.Column("storage_usd_per_gb_month", sa.Float, nullable=True),
        sa.Column("egress_usd_per_gb", sa.Float, nullable=True),
        sa.Column("secure", sa.Boolean, nullable=True),
        sa.Column("notes", sa.Text, nullable=False),
        sa.Column("extra", sa.JSON, nullable=False),
    )
    md.create_all(conn)


def _v2_current_pointer(conn: sa.Connection) -> None:
    """Add the per-source current pointer; point it at each source's latest good snapshot."""
    md = sa.MetaData()
    sa.Table("snapshots", md, sa.Column("id", sa.Integer, primary_key=True))
    current = sa.Table(
        "current_snapshot",
        md,
        sa.Column("source", sa.String(300), primary_key=True),
        sa.Column("snapshot_id", sa.Integer, sa.ForeignKey("snapshots.id"), nullable=False),
    )
    current.create(conn)
    conn.execute(
        sa.text(
            "INSERT INTO current_snapshot (source, snapshot_id) "
            "SELECT source, MAX(id) FROM snapshots WHERE status = 'ok' GROUP BY source"
        )
    )


def _v3_per_gpu_prices_and_specs(conn: sa.Connection) -> None:
    """Per-GPU price columns (indexed, for the default sort), snapshot provenance columns, and the
    accelerator spec table the bandwidth/TFLOPS-per-dollar sorts join against."""
    for ddl in (
        "ALTER TABLE offers ADD COLUMN price_usd_per_gpu_hour FLOAT",
        "ALTER TABLE offers ADD COLUMN spot_price_usd_per_gpu_hour FLOAT",
        "ALTER TABLE snapshots ADD COLUMN observed_at TIMESTAMP WITH TIME ZONE"
        if conn.dialect.name == "postgresql"
        else "ALTER TABLE snapshots ADD COLUMN observed_at DATETIME",
        "ALTER TABLE snapshots ADD COLUMN providers TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE snapshots ADD COLUMN fallback BOOLEAN NOT NULL DEFAULT FALSE",
        "UPDATE offers SET price_usd_per_gpu_hour = price_usd_per_hour / gpu_count, "
        "spot_price_usd_per_gpu_hour = spot_price_usd_per_hour / gpu_count",
        "CREATE INDEX ix_offers_price_usd_per_gpu_hour ON offers (price_usd_per_gpu_hour)",
    ):
        conn.execute(sa.text(ddl))
    # Backfill each snapshot's provider list from its rows.
    rows = conn.execute(sa.text("SELECT DISTINCT snapshot_id, provider FROM offers")).all()
    providers: dict[int, set[str]] = {}
    for snapshot_id, provider in rows:
        providers.setdefault(int(snapshot_id), set()).add(str(provider))
    for snapshot_id, names in providers.items():
        conn.execute(
            sa.text("UPDATE snapshots SET providers = :p WHERE id = :i"),
            {"p": ",".join(sorted(names)), "i": snapshot_id},
        )
    md = sa.MetaData()
    sa.Table(
        "accelerators",
        md,
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("memory_gb", sa.Float, nullable=False),
        sa.Column("bandwidth_gbps", sa.Float, nullable=True),
        sa.Column("bf16_tflops", sa.Float, nullable=True),
    ).create(conn)


VALUE_COLUMNS = ("bandwidth_per_usd", "tflops_per_usd", "spot_bandwidth_per_usd", "spot_tflops_per_usd")


def _v4_value_per_dollar(conn: sa.Connection) -> None:
    """Indexed spec-per-dollar sort keys on each offer (GB/s and BF16 TFLOPS per USD/hour, on-demand
    and spot), so the ``bandwidth_per_dollar`` / ``tflops_per_dollar`` sorts read an index instead
    of joining and sorting every row. Filled from ``accelerators`` (the store recomputes them
    whenever the knowledge table's specs change)."""
    # Read best-first (highest value first, unknown last): on PostgreSQL only an index built in that
    # order serves ORDER BY ... DESC NULLS LAST; SQLite's NULLs already sort lowest.
    order = "DESC NULLS LAST" if conn.dialect.name == "postgresql" else "DESC"
    for col in VALUE_COLUMNS:
        conn.execute(sa.text(f"ALTER TABLE offers ADD COLUMN {col} FLOAT"))
        conn.execute(sa.text(f"CREATE INDEX ix_offers_{col} ON offers ({col} {order})"))
    fill_value_columns(conn)


def fill_value_columns(conn: sa.Connection) -> None:
    """(Re)compute the spec-per-dollar columns of every offer from the ``accelerators`` table."""
    bw = "(SELECT bandwidth_gbps FROM accelerators WHERE accelerators.name = offers.accelerator)"
    tf = "(SELECT bf16_tflops FROM accelerators WHERE accelerators.name = offers.accelerator)"
    conn.execute(
        sa.text(
            f"UPDATE offers SET bandwidth_per_usd = {bw} / price_usd_per_gpu_hour, "
            f"tflops_per_usd = {tf} / price_usd_per_gpu_hour, "
            f"spot_bandwidth_per_usd = {bw} / spot_price_usd_per_gpu_hour, "
            f"spot_tflops_per_usd = {tf} / spot_price_usd_per_gpu_hour"
        )
    )


def _v5_listings_and_stated_prices(conn: sa.Connection) -> None:
    """Offer fields for one row standing for several regions (``regions``), the aggregators that
    also list it (``also_listed_by``), the price as the source stated it before conversion to USD
    (``original_*``), and auction-priced "on-demand" capacity (``price_is_interruptible``).
    Existing rows get the defaults: one region, no other listing, stated in USD, not auctioned."""
    for ddl in (
        "ALTER TABLE offers ADD COLUMN regions JSON NOT NULL DEFAULT '[]'",
        "ALTER TABLE offers ADD COLUMN also_listed_by JSON NOT NULL DEFAULT '[]'",
        "ALTER TABLE offers ADD COLUMN original_currency VARCHAR(16)",
        "ALTER TABLE offers ADD COLUMN original_price_per_hour FLOAT",
        "ALTER TABLE offers ADD COLUMN original_spot_price_per_hour FLOAT",
        "ALTER TABLE offers ADD COLUMN price_is_interruptible BOOLEAN NOT NULL DEFAULT FALSE",
    ):
        conn.execute(sa.text(ddl))


def _v6_drop_reasons(conn: sa.Connection) -> None:
    """Why rows were dropped, counted per reason, on each snapshot (``{"invalid": {reason: n},
    "excluded": {reason: n}}``; NULL on snapshots written before)."""
    conn.execute(sa.text("ALTER TABLE snapshots ADD COLUMN drop_reasons JSON"))


def _v7_snapshot_fingerprint(conn: sa.Connection) -> None:
    """The fingerprint (SHA-256) of the packaged file a bundled snapshot was loaded from, so a store
    notices when an upgrade ships another one (NULL for other sources and for bundled snapshots
    loaded before: those are reloaded once)."""
    conn.execute(sa.text("ALTER TABLE snapshots ADD COLUMN fingerprint VARCHAR(64)"))


#: Migration 8's sort indexes: (column, best-first order), the order the views read them in.
SORT_INDEXES = (
    ("observed_at", "DESC"),  # freshest first
    ("spot_price_usd_per_gpu_hour", "ASC"),
)


def _v8_sort_indexes(conn: sa.Connection) -> None:
    """Indexes for two sorts the views offer that read no index before: age (freshest first) and the
    spot price per GPU (the default sort of a spot view), so a page of a large catalog sorted on them
    reads its rows in order and stops instead of reading and sorting every current offer. Only
    columns no filter compares: an index on a filtered range (memory per GPU, a spot price under a
    maximum) would lead the planner, which has no statistics, to read most rows through it one by one.
    As in step 4, on PostgreSQL a descending sort is served only by an index built ``DESC NULLS
    LAST``; SQLite's NULLs sort lowest (last in a descending read)."""
    _create_sort_indexes(conn, SORT_INDEXES)


def _create_sort_indexes(conn: sa.Connection, indexes: tuple[tuple[str, str], ...]) -> None:
    """``ix_offers_<column>`` on each (column, best-first order), ``DESC NULLS LAST`` on PostgreSQL."""
    for col, order in indexes:
        if order == "DESC" and conn.dialect.name == "postgresql":
            order = "DESC NULLS LAST"
        conn.execute(sa.text(f"CREATE INDEX ix_offers_{col} ON offers ({col} {order})"))


#: Migration 9's covering index: every column a filter or the current-snapshot scope compares.
V9_COUNT_INDEX_COLUMNS = (
    "id",  # first: no filter or sort can search it, so only a count reads it (whole)
    "snapshot_id",
    "stale",
    "provider",
    "accelerator",
    "gpu_count",
    "gpu_memory_gb",
    "price_usd_per_hour",
    "spot_price_usd_per_hour",
    "availability",
    "interconnect",
    "region",
    "regions",
)


def _v9_count_indexes(conn: sa.Connection) -> None:
    """SQLite: two indexes for counting. ``ix_offers_count`` is a narrow copy of the filtered columns:
    a count with no selective filter read every current row of the wide ``offers`` table, it now reads
    this index (several times fewer pages); led by the row id, which no filter or sort compares, so the
    planner never searches it for a page (a page's plan stays as it was). ``ix_offers_stale`` holds only
    the stale rows, so the freshness banner counts them per snapshot without a scan. Not on PostgreSQL:
    its planner has statistics, its reader is the Store, and ``regions`` is ``json`` there, which a
    B-tree cannot hold."""
    if conn.dialect.name == "sqlite":
        conn.execute(sa.text(f"CREATE INDEX ix_offers_count ON offers ({', '.join(V9_COUNT_INDEX_COLUMNS)})"))
        conn.execute(sa.text(f"CREATE INDEX ix_offers_stale ON offers (snapshot_id) WHERE {STALE_ROWS}"))


#: The filtered columns migration 10's covering indexes hold after their leading ones.
_FILTERED = tuple(c for c in V9_COUNT_INDEX_COLUMNS if c not in ("id", "snapshot_id", "stale"))
#: Migration 10's covering index for counts (SQLite): the columns of migration 9's, led by the
#: snapshot id and the stale flag instead of the row id. The row id comes next: the entries of a
#: snapshot are then in the order its rows were written, so building the index after a bulk insert
#: sorts almost nothing (led by the filtered text columns instead, the build cost twice as much).
COUNT_INDEX_COLUMNS = ("snapshot_id", "stale", "id", *_FILTERED)
#: Migration 10's index of the default sort (SQLite): the per-GPU price, the row id (the sort's own
#: tie-break, so the index gives the whole order), then every filtered column.
PRICE_PER_GPU_INDEX_COLUMNS = ("price_usd_per_gpu_hour", "id", "snapshot_id", "stale", *_FILTERED)
#: Migration 10's sort indexes: (column, best-first order).
MEMORY_AND_SPOT_SORT_INDEXES = (
    ("gpu_memory_gb", "DESC"),  # most memory per GPU first
    ("spot_price_usd_per_hour", "ASC"),
)


def _v10_sorted_and_counted_pages(conn: sa.Connection) -> None:
    """Two more sorts read an index; on SQLite the default sort's index holds every filtered column
    and counts search the current snapshots.

    The memory sort (per GPU, most first) and the spot price sort (the price sort of a spot view) read
    and sorted every current offer; they now read an index in order and stop after their page. A range
    filter on these columns must not lead a plan to them: the minimum memory is written
    ``+gpu_memory_gb`` on SQLite, and a SQLite count writes the maximum price as ``+column`` (since step
    9; see :func:`~gpuscout.catalog.query.conditions`).

    SQLite only (PostgreSQL's planner has statistics, and its reader is the Store):

    * ``ix_offers_price_usd_per_gpu_hour``, the index of the default sort (the price per GPU), is built
      again with the row id and every filtered column after the price, so a filtered page of that
      sort checks each offer in the index and reads only its own rows from the table (before, every
      offer it passed over was read from the table to be checked).
    * ``ix_offers_count`` is built again led by ``snapshot_id, stale``, so a count searches the entries
      of the current snapshots (one search per snapshot) instead of checking the scope on every entry
      of every stored snapshot, the history included. A page never searches it: a page writes its
      scope as ``+snapshot_id`` (:func:`~gpuscout.catalog.query.offers_sql`). Its search for a
      snapshot's stale rows is the freshness banner's too, so step 9's ``ix_offers_stale`` is dropped.
    * The planner's statistics are gathered again for the new indexes (as a snapshot write does)."""
    _create_sort_indexes(conn, MEMORY_AND_SPOT_SORT_INDEXES)
    if conn.dialect.name == "sqlite":
        for name, columns in (
            ("ix_offers_price_usd_per_gpu_hour", PRICE_PER_GPU_INDEX_COLUMNS),
            ("ix_offers_count", COUNT_INDEX_COLUMNS),
        ):
            conn.execute(sa.text(f"DROP INDEX {name}"))
            conn.execute(sa.text(f"CREATE INDEX {name} ON offers ({', '.join(columns)})"))
        conn.execute(sa.text("DROP INDEX ix_offers_stale"))
        conn.execute(sa.text("PRAGMA analysis_limit=20000"))
        conn.execute(sa.text("ANALYZE offers"))


STEPS: tuple[Step, ...] = (
    (1, "snapshots and offers", _v1_initial),
    (2, "current_snapshot pointer per source", _v2_current_pointer),
    (3, "per-GPU prices, snapshot provenance, accelerator specs", _v3_per_gpu_prices_and_specs),
    (4, "indexed spec-per-dollar sort keys", _v4_value_per_dollar),
    (5, "multi-region rows, other listers, stated prices, auctions", _v5_listings_and_stated_prices),
    (6, "drop reasons per snapshot", _v6_drop_reasons),
    (7, "fingerprint of the bundled snapshot file", _v7_snapshot_fingerprint),
    (8, "sort indexes: age, spot price per GPU", _v8_sort_indexes),
    (9, "indexes for counts: filtered columns, stale rows (SQLite)", _v9_count_indexes),
    (
        10,
        "sort indexes: memory, spot price; covering price-per-GPU index, counts by snapshot (SQLite)",
        _v10_sorted_and_counted_pages,
    ),
)

LATEST_VERSION = STEPS[-1][0]


def _version_table() -> tuple[sa.MetaData, sa.Table]:
    md = sa.MetaData()
    table = sa.Table(
        "schema_version",
        md,
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("description", sa.String(200), nullable=False),
    )
    return md, table


def current_version(conn: sa.Connection) -> int:
    """The highest applied step (0 for an empty database)."""
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    value = conn.execute(sa.text("SELECT MAX(version) FROM schema_version")).scalar()
    return int(value or 0)


def migrate(engine: sa.Engine, *, target: int | None = None) -> list[int]:
    """Apply every step above the database's version (up to ``target``); return those applied.

    Each step runs in its own transaction together with its ``schema_version`` row. On
    PostgreSQL an advisory lock keeps two processes opening a fresh store from racing.
    """
    target = LATEST_VERSION if target is None else target
    applied: list[int] = []
    with engine.connect() as conn:  # the usual case: up to date, and no write lock is taken
        if current_version(conn) >= target:
            return applied
    # On SQLite the store's engine turns this option into BEGIN IMMEDIATE (take the write lock
    # up front so two openers cannot both apply a step).
    engine = engine.execution_options(write=True)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(727001)"))
        md, version_table = _version_table()
        md.create_all(conn, checkfirst=True)
    for version, description, apply in STEPS:
        if version > target:
            break
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(727001)"))
            if current_version(conn) >= version:
                continue
            apply(conn)
            conn.execute(
                version_table.insert().values(
                    version=version, applied_at=datetime.now(UTC), description=description
                )
            )
            applied.append(version)
    return applied
