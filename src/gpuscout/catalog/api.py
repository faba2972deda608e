"""The catalog's Python API: open the store (loading the bundled snapshot on a fresh install or
when the package ships a new one), read current offers, source status and price history, and expand
GPU family names.

``db`` arguments accept a URL, an open :class:`Store`, or ``None`` (``$GPUSCOUT_DB`` or the SQLite
file in the user data dir). Offers are read through :func:`gpuscout.catalog.reader.open_reader`
(``sqlite3`` on a ready SQLite store), so that reading them does not import SQLAlchemy.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.paths import default_db_url
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.reader import OfferReader, open_reader
from gpuscout.knowledge.accelerators import gpu_family as gpu_family  # its home; re-exported here
from gpuscout.wording import plural

if TYPE_CHECKING:
    from gpuscout.catalog.refresh import RefreshStore
    from gpuscout.catalog.results import RefreshResult
    from gpuscout.catalog.store import HistoryPoint, SourceStatus, Store


def load_bundled_snapshot(store: Store, *, first: bool = False) -> RefreshResult | None:
    """Store the bundled snapshot as the source ``"snapshot"`` (through the validation gate).

    ``first``: only if the store's current bundled snapshot is not this package's file (none yet, or
    an older package's), decided inside the write transaction (several processes opening the store
    at once load it exactly once); ``None`` when another one already had.
    """
    from gpuscout.catalog.results import RefreshResult
    from gpuscout.catalog.sources.snapshot import SnapshotSource
    from gpuscout.catalog.validate import validate_offers

    started = datetime.now(UTC)
    t0 = time.perf_counter()
    source = SnapshotSource()
    offers = source.offers()
    report = validate_offers(source.name, offers)
    dropped = report.invalid + len(source.dropped)
    if not report.ok:  # cannot happen with the shipped file; recorded rather than raised
        sid = store.record_attempt(
            source.name,
            "rejected",
            started_at=started,
            error=report.reason,
            reason=report.reason,
            row_count=report.received,
            dropped_count=dropped,
        )
        return RefreshResult(
            source.name, "rejected", report.received, time.perf_counter() - t0, report.reason, dropped, sid
        )
    reason = (
        "; ".join(
            x
            for x in (
                report.reason,
                f"{len(source.dropped)} {plural(len(source.dropped), 'row')} with GPUs not in "
                "the accelerator table"
                if source.dropped
                else None,
            )
            if x
        )
        or None
    )
    # why rows were dropped, per reason, as a refresh records them (``gpuscout sources``): the
    # validator's and the GPUs the knowledge table does not know
    invalid = Counter(d.key for d in source.dropped if d.invalid) + Counter(report.drop_reasons)
    written = store.write_snapshot(
        source.name,
        report.offers,
        started_at=started,
        reason=reason,
        dropped_count=dropped,
        drop_reasons={"invalid": dict(invalid)},
        fallback=True,
        fingerprint=source.fingerprint,
        unless_fingerprint=first,
    )
    if not written.written:
        return None
    return RefreshResult(
        source.name, "ok", written.rows, time.perf_counter() - t0, None, dropped, written.snapshot_id
    )


def ensure_snapshot(store: Store) -> RefreshResult | None:
    """Load the bundled snapshot when the store's current one is not this package's file: a fresh
    install, or an upgrade that ships another snapshot (loaded as a new snapshot of the source, the
    old one kept as history). ``None`` when it already is (a precomputed fingerprint is compared:
    the file is not read)."""
    from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
    from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME

    present, fingerprint = store.current_fingerprint(SNAPSHOT_NAME)
    if present and fingerprint == SNAPSHOT_SHA256:
        return None
    return load_bundled_snapshot(store, first=True)


def open_store(db: str | Store | None = None) -> Store:
    """An open store with the package's bundled snapshot loaded (see :func:`ensure_snapshot`)."""
    from gpuscout.catalog.store import Store

    store = db if isinstance(db, Store) else Store(db)
    ensure_snapshot(store)
    return store


def open_refresh_store(db: str | None = None) -> RefreshStore:
    """What a refresh writes through: on a ready SQLite file (see :mod:`gpuscout.catalog.reader`) a
    :class:`~gpuscout.catalog.sqlite_writer.SqliteWriter`, which does not import SQLAlchemy; else the
    opened Store (:func:`open_store`: migrated, synced, bundled snapshot loaded)."""
    from gpuscout.catalog.sqlite_writer import open_writer

    writer = open_writer(db or default_db_url())
    return writer if writer is not None else open_store(db)


def expand_gpus(names: Iterable[str]) -> tuple[str, ...]:
    """:func:`gpu_family` over several names, without repeats, in order."""
    out: dict[str, None] = {}
    for name in names:
        for acc in gpu_family(name):
            out[acc] = None
    return tuple(out)


_shared: dict[str, Store] = {}
_readers: dict[str, OfferReader] = {}
_shared_lock = threading.Lock()


def _store(db: str | Store | None) -> Store:
    """The store to read: the given one, or a process-wide one per URL (opened, migrated and
    snapshot-loaded once, so the web service and repeated API calls do not pay that each time)."""
    from gpuscout.catalog.store import Store

    if isinstance(db, Store):
        ensure_snapshot(db)
        return db
    url = db or default_db_url()
    with _shared_lock:
        store = _shared.get(url)
        if store is None:
            store = _shared[url] = open_store(url)
    return store


def _reader(db: str | Store | None) -> OfferReader:
    """What to read current offers from: the given store, or a process-wide reader per URL
    (:func:`~gpuscout.catalog.reader.open_reader`: ``sqlite3`` on a ready SQLite store)."""
    if db is not None and not isinstance(db, str):
        return _store(db)
    url = db or default_db_url()
    with _shared_lock:
        found: OfferReader | None = _shared.get(url) or _readers.get(url)
        if found is None:
            found = _readers[url] = open_reader(url)
    return found


def current_offers(query: OfferQuery | None = None, db: str | Store | None = None) -> list[Offer]:
    """Current offers (the package's bundled snapshot loaded first when the store lacks it)."""
    return _reader(db).current_offers(query)


def count_offers(query: OfferQuery | None = None, db: str | Store | None = None) -> int:
    """How many current offers match ``query`` (ignoring its limit)."""
    return _reader(db).count_offers(query)


def sources_status(db: str | Store | None = None) -> list[SourceStatus]:
    """Status of every source the store knows plus every registered source (credentials shown)."""
    from gpuscout.catalog.refresh import offer_file_sources
    from gpuscout.catalog.sources.registry import all_sources

    try:
        registered = all_sources()
    except Exception:  # a broken adapter import must not hide the store's own status
        registered = {}
    known = {**registered, **{s.name: s for s in offer_file_sources()}}
    return _store(db).sources_status(known)


def price_history(
    gpu: str, provider: str | None = None, days: float | None = None, db: str | Store | None = None
) -> list[HistoryPoint]:
    """Min/median per-GPU-hour price over stored snapshots for a GPU name (family names expand)."""
    return _store(db).price_history(gpu_family(gpu), provider=provider, days=days)
