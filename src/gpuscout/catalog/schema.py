"""The store's tables (SQLAlchemy Core), as they are after the last migration.

The tables are *created* by the numbered steps in :mod:`gpuscout.catalog.migrations`; this module
only describes the final shape for queries. A test checks the two agree, and that ``offers`` has a
column for every :class:`~gpuscout.catalog.offer.Offer` field (the row mapping in
:mod:`gpuscout.catalog.rows` is derived from the fields).

* ``snapshots``: one row per refresh attempt of one source (ok, rejected or failed).
* ``offers``: the rows of every good snapshot, kept for history.
* ``current_snapshot``: per source, the id of its latest good snapshot. Flipping this pointer in
  the same transaction that wrote the snapshot is what keeps readers from ever seeing half a
  refresh.
* ``accelerators``: the few specs the spec-based sorts need (bandwidth, TFLOPS), copied from the
  knowledge table when the store is opened; each offer carries its spec-per-dollar values
  (``*_per_usd``, indexed), recomputed from this table when the specs change. The other sort
  columns the views offer are indexed too (migrations 1, 3, 4, 8 and 10); on SQLite a covering
  index of the filtered columns, led by the snapshot id, serves counts and the freshness banner's
  stale rows, and the default sort's index holds the filtered columns too (migrations 9 and 10).
"""

from __future__ import annotations

import sqlalchemy as sa

from gpuscout.catalog.migrations import COUNT_INDEX_COLUMNS

metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("description", sa.String(200), nullable=False),
)

snapshots = sa.Table(
    "snapshots",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("source", sa.String(300), nullable=False, index=True),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),  # ok | rejected | failed
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("row_count", sa.Integer, nullable=False),  # rows stored (ok) or received (rejected)
    sa.Column("reason", sa.Text, nullable=True),  # why rejected / what was dropped
    sa.Column("dropped_count", sa.Integer, nullable=False),
    sa.Column("observed_at", sa.DateTime(timezone=True), nullable=True),  # oldest row; NULL = unknown
    sa.Column("providers", sa.Text, nullable=False),  # comma-separated Offer.provider values
    sa.Column("fallback", sa.Boolean, nullable=False),  # bundled snapshot: hidden where live data exists
    sa.Column("drop_reasons", sa.JSON, nullable=True),  # {"invalid": {reason: n}, "excluded": {reason: n}}
    sa.Column("fingerprint", sa.String(64), nullable=True),  # migration 7: SHA-256 of the bundled file
)

offers = sa.Table(
    "offers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("snapshot_id", sa.Integer, sa.ForeignKey("snapshots.id"), nullable=False, index=True),
    sa.Column("provider", sa.String(100), nullable=False, index=True),
    sa.Column("instance_type", sa.String(300), nullable=False),
    sa.Column("region", sa.String(200), nullable=False),
    sa.Column("zone", sa.String(200), nullable=True),
    sa.Column("accelerator", sa.String(100), nullable=False, index=True),
    sa.Column("gpu_count", sa.Integer, nullable=False),
    sa.Column("gpu_memory_gb", sa.Float, nullable=False, index=True),  # migration 10
    sa.Column("price_usd_per_hour", sa.Float, nullable=True, index=True),
    sa.Column("spot_price_usd_per_hour", sa.Float, nullable=True, index=True),  # migration 10
    # on SQLite its index holds the filtered columns too (migration 10: PRICE_PER_GPU_INDEX_COLUMNS)
    sa.Column("price_usd_per_gpu_hour", sa.Float, nullable=True, index=True),
    sa.Column("spot_price_usd_per_gpu_hour", sa.Float, nullable=True, index=True),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("observed_at", sa.DateTime(timezone=True), nullable=True, index=True),
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
    # spec-per-dollar sort keys (GB/s or BF16 TFLOPS per USD/GPU-hour), NULL when unknown
    sa.Column("bandwidth_per_usd", sa.Float, nullable=True, index=True),
    sa.Column("tflops_per_usd", sa.Float, nullable=True, index=True),
    sa.Column("spot_bandwidth_per_usd", sa.Float, nullable=True, index=True),
    sa.Column("spot_tflops_per_usd", sa.Float, nullable=True, index=True),
    # migration 5
    sa.Column("regions", sa.JSON, nullable=False),  # JSON list of region names
    sa.Column("also_listed_by", sa.JSON, nullable=False),  # JSON list of aggregator names
    sa.Column("original_currency", sa.String(16), nullable=True),
    sa.Column("original_price_per_hour", sa.Float, nullable=True),
    sa.Column("original_spot_price_per_hour", sa.Float, nullable=True),
    sa.Column("price_is_interruptible", sa.Boolean, nullable=False),
)
# SQLite only (see migrations 9 and 10)
sa.Index("ix_offers_count", *(offers.c[name] for name in COUNT_INDEX_COLUMNS)).ddl_if(dialect="sqlite")

current_snapshot = sa.Table(
    "current_snapshot",
    metadata,
    sa.Column("source", sa.String(300), primary_key=True),
    sa.Column("snapshot_id", sa.Integer, sa.ForeignKey("snapshots.id"), nullable=False),
)

accelerators = sa.Table(
    "accelerators",
    metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("memory_gb", sa.Float, nullable=False),
    sa.Column("bandwidth_gbps", sa.Float, nullable=True),
    sa.Column("bf16_tflops", sa.Float, nullable=True),
)
