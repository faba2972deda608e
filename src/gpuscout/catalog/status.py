"""What the store reports about its sources and its past: freshness, last attempts, price history.

The read functions take an open connection (the store chooses the transaction); the value types
(:class:`SourceStatus`, :class:`HistoryPoint`) are plain frozen dataclasses the faces render.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

import sqlalchemy as sa

from gpuscout.catalog import schema as t
from gpuscout.catalog.clock import format_age, now, utc
from gpuscout.catalog.query import FIRM_ON_DEMAND_SQL, require_text
from gpuscout.catalog.reader import aged_rows_sql
from gpuscout.catalog.results import DropReasons as DropReasons  # their home since the sqlite3 writer
from gpuscout.catalog.results import drop_reasons_json as drop_reasons_json
from gpuscout.errors import InvalidInputError


class KnownSource(Protocol):
    """What the status needs of a registered source (``catalog.sources.base.Source`` has it)."""

    needs_credentials: tuple[str, ...]

    def credentials_present(self) -> bool: ...


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
    # rows of the last attempt not stored, counted per reason: invalid ones, and feed rows that are
    # not offers by design (CPU-only types, reservation terms...)
    last_drop_reasons: dict[str, int] = field(default_factory=dict)
    last_excluded_reasons: dict[str, int] = field(default_factory=dict)
    last_dropped_count: int = 0

    @property
    def age_text(self) -> str:
        return format_age(self.age_s)


#: Decimals a history's per-GPU-hour prices keep: a median of two prices is their mean, whose float
#: noise (4.140000000000001) is no price; a hundredth of a cent keeps every listed price per GPU.
HISTORY_PRICE_DECIMALS = 4


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """Per-GPU-hour prices of one accelerator at one provider in one stored snapshot.

    ``at`` is when the prices were observed; ``None`` when unknown (bundled snapshot rows). The prices
    are rounded to :data:`HISTORY_PRICE_DECIMALS`.
    """

    at: datetime | None
    recorded_at: datetime
    provider: str
    accelerator: str
    source: str
    offers: int
    min_usd_per_gpu_hour: float
    median_usd_per_gpu_hour: float


def current_snapshots(conn: sa.Connection) -> list[sa.Row[Any]]:
    """The current snapshot row of every source."""
    s = t.snapshots
    return list(
        conn.execute(sa.select(s).join(t.current_snapshot, t.current_snapshot.c.snapshot_id == s.c.id))
    )


def sources_status(
    conn: sa.Connection, sources: Mapping[str, KnownSource] | None = None
) -> list[SourceStatus]:
    """Freshness and last attempt of every source the store has seen, plus every source in
    ``sources`` (name -> source, for its credential state) even if never refreshed. A source's
    ``stale_rows`` are counted by the catalog's rule (:data:`~gpuscout.catalog.query.STALE_AFTER`):
    the rows its feed flagged, and its live rows fetched too long before the store's newest."""
    s = t.snapshots
    stamp = now()
    current = {r.source: r for r in current_snapshots(conn)}
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
    # and the live rows the catalog's rule holds stale by age (query.STALE_AFTER), not flagged
    aged_sql = aged_rows_sql(list(current.values()), conn.dialect.name)
    if aged_sql is not None:
        source_of = {int(r.id): name for name, r in current.items()}
        for snapshot_id, aged in conn.execute(sa.text(aged_sql[0]), aged_sql[1]):
            name = source_of[int(snapshot_id)]
            stale_counts[name] = stale_counts.get(name, 0) + int(aged)
    known = sources or {}
    out: list[SourceStatus] = []
    for name in dict.fromkeys([*current, *last, *known]):
        cur, lst, src = current.get(name), last.get(name), known.get(name)
        observed = utc(cur.observed_at) if cur is not None else None
        out.append(
            SourceStatus(
                source=name,
                current_snapshot_id=cur.id if cur is not None else None,
                current_loaded_at=utc(cur.finished_at) if cur is not None else None,
                data_observed_at=observed,
                age_s=(stamp - observed).total_seconds() if observed is not None else None,
                row_count=int(cur.row_count) if cur is not None else 0,
                stale_rows=int(stale_counts.get(name, 0)),
                last_attempt_at=utc(lst.finished_at or lst.started_at) if lst is not None else None,
                last_status=lst.status if lst is not None else None,
                last_error=lst.error if lst is not None else None,
                last_reason=lst.reason if lst is not None else None,
                credentials_present=src.credentials_present() if src is not None else None,
                needs_credentials=tuple(src.needs_credentials or ()) if src is not None else (),
                fallback=bool(cur.fallback) if cur is not None else False,
                last_drop_reasons=_reason_counts(lst, "invalid"),
                last_excluded_reasons=_reason_counts(lst, "excluded"),
                last_dropped_count=int(lst.dropped_count or 0) if lst is not None else 0,
            )
        )
    return out


def _reason_counts(row: Any, kind: str) -> dict[str, int]:
    """One kind of drop reasons of a snapshot row (``{}`` when none were recorded)."""
    data = getattr(row, "drop_reasons", None) if row is not None else None
    counts = data.get(kind) if isinstance(data, dict) else None
    return {str(r): int(n) for r, n in counts.items()} if isinstance(counts, dict) else {}


def snapshot_rows(conn: sa.Connection, source: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """The most recent snapshot rows (all statuses), newest first."""
    s = t.snapshots
    stmt = sa.select(s).order_by(s.c.id.desc()).limit(limit)
    if source is not None:
        stmt = stmt.where(s.c.source == source)
    return [dict(r._mapping) for r in conn.execute(stmt)]


#: How far back a price history may be asked for: a century, past any stored snapshot. The one rule
#: of ``gpuscout history --days`` and ``/api/v1/history?days=`` (:func:`check_history_days`).
MAX_HISTORY_DAYS = 36_500.0
HISTORY_DAYS_ACCEPTED = f"a number of days above 0, up to {MAX_HISTORY_DAYS:,.0f}"


def check_history_days(days: float) -> float:
    """``days`` of a price history (the last N days; 0.5 is 12 hours) by the one rule: a number above
    0 and at most :data:`MAX_HISTORY_DAYS`; else an :class:`InvalidInputError` naming ``days``."""
    if not (math.isfinite(days) and 0 < days <= MAX_HISTORY_DAYS):
        raise InvalidInputError("days", f"{days:g} is out of range", HISTORY_DAYS_ACCEPTED)
    return days


#: How many providers an unknown history ``provider`` is answered with.
HISTORY_SUGGESTIONS = 4


def history_provider(name: str, providers: Iterable[str], *, field: str) -> str | None:
    """The provider id a price history's ``provider`` ``name`` means ("Vast.ai" -> ``vastai``), read
    against ``providers``, those with stored prices of the GPU: ``None`` for a known provider without
    any; a name that is neither is an :class:`~gpuscout.errors.UnknownNameError` naming ``field`` (the
    CLI's ``--provider``, the API's ``provider``) and the closest providers, those with prices first."""
    from gpuscout.errors import UnknownNameError, closest, fold_name
    from gpuscout.knowledge.providers import all_provider_terms, canonical_provider

    have = set(providers)
    known = canonical_provider(name)
    pid = known or fold_name(name).strip().lower()
    if pid in have:
        return pid
    if known is not None:
        return None
    near = closest(name, have, n=HISTORY_SUGGESTIONS)
    others = closest(name, {t.name for t in all_provider_terms()} - have, n=HISTORY_SUGGESTIONS)
    raise UnknownNameError(field, name, [*near, *others][:HISTORY_SUGGESTIONS])


def price_history(
    conn: sa.Connection,
    accelerator: str | Iterable[str],
    provider: str | None = None,
    days: float | None = None,
) -> list[HistoryPoint]:
    """Min and median on-demand per-GPU-hour price per (snapshot, provider, accelerator) over time.

    On-demand prices one can rent at only (:data:`~gpuscout.catalog.query.FIRM_ON_DEMAND_SQL`: an
    auction's interruptible price is left out), and only those not flagged stale (from an old feed:
    not a price observed then). ``accelerator`` is a canonical name or several (a family): each point is
    of one accelerator and names it (a family's SXM and PCIe prices are two points, never one min and
    median over both). Points whose observation time is unknown (``at`` None) come first; the rest are
    in time order. ``days`` keeps the points observed in the last ``days`` days (an undated point has
    no age: it is left out).

    The catalog's staleness rule (:data:`~gpuscout.catalog.query.STALE_AFTER`) is applied as follows,
    decided from how the history is read (``gpuscout history``, ``/api/v1/history``, a GPU page's
    chart): its age part is not a filter here. A live row fetched more than ``STALE_AFTER`` before the
    store's newest live fetch is stale as a price of *now* (its feed has not been read since), but it
    is a true price at its own fetch time, which is its point's ``at``: a history keeps it there, as it
    keeps every earlier snapshot. So no point is "current": each one, the latest of a provider too, is
    the price at its ``at``, and a face that shows a point without its date as today's price must check
    that date against the rule (the current offers, with their ``stale``, are the reads for "now").
    The feed's flag is applied: a flagged row's fetch time is not when its price was observed.
    """
    names = [accelerator] if isinstance(accelerator, str) else list(accelerator)
    for name in names:
        require_text("gpu", name)
    require_text("provider", provider)
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
        .where(
            s.c.status == "ok",
            o.c.accelerator.in_(names),
            sa.text(FIRM_ON_DEMAND_SQL),
            o.c.stale.is_(False),
        )
    )
    if provider:
        stmt = stmt.where(sa.func.lower(o.c.provider) == provider.lower())
    if days is not None:
        # by when the prices were observed, never by when a snapshot was stored: a snapshot loaded again
        # (the bundled one, whose observation time is unknown) is no newer price, so undated points are
        # left out of a window of days
        stmt = stmt.where(s.c.observed_at >= now() - timedelta(days=check_history_days(days)))
    groups: dict[tuple[int, str, str], list[float]] = {}
    meta: dict[int, tuple[str, datetime, datetime | None]] = {}
    for r in conn.execute(stmt):
        groups.setdefault((r.id, r.provider, r.accelerator), []).append(float(r.price_usd_per_gpu_hour))
        meta[r.id] = (r.source, utc(r.finished_at) or now(), utc(r.observed_at))
    order = {name: i for i, name in enumerate(names)}
    points = [
        HistoryPoint(
            at=meta[sid][2],
            recorded_at=meta[sid][1],
            provider=prov,
            accelerator=acc,
            source=meta[sid][0],
            offers=len(prices),
            min_usd_per_gpu_hour=round(min(prices), HISTORY_PRICE_DECIMALS),
            median_usd_per_gpu_hour=round(statistics.median(prices), HISTORY_PRICE_DECIMALS),
        )
        for (sid, prov, acc), prices in groups.items()
    ]
    points.sort(
        key=lambda p: (p.at is not None, p.at or p.recorded_at, p.provider, order.get(p.accelerator, 0))
    )
    return points


__all__: Sequence[str] = (
    "HistoryPoint",
    "KnownSource",
    "SourceStatus",
    "current_snapshots",
    "format_age",
    "price_history",
    "snapshot_rows",
    "sources_status",
)
