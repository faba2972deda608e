"""The thin service layer between the web routes and the rest of gpuscout.

Routes never touch the store, the knowledge tables or the estimator directly: they call a
``WebServices`` method, which calls the public functions of the catalog, knowledge, estimate and
advise packages. Results are cached per view and per *data version* (the newest snapshot id, re-read
at most once a second), so a refresh written by another process shows at once (see ``cache.py``).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.reader import SqliteReader
from gpuscout.errors import UnknownNameError
from gpuscout.settings import Settings
from gpuscout.web.cache import TtlCache
from gpuscout.web.filters import MAX_EXPORT_ROWS, SORT_COLUMNS, OfferFilters
from gpuscout.web.offer_view import STALE_AFTER, OfferRow, to_row

if TYPE_CHECKING:
    from gpuscout.advise.assumptions import Assumptions
    from gpuscout.advise.faq import Faq
    from gpuscout.advise.types import Advice, Recommendation
    from gpuscout.advise.workload import AnyWorkload
    from gpuscout.catalog.reader import OfferReader
    from gpuscout.catalog.store import Store
    from gpuscout.knowledge.accelerator_types import Accelerator
    from gpuscout.knowledge.model_types import ModelSpec

# How often the store's data version (newest snapshot id) is re-read; a refresh by another process
# is seen by the web workers within this time, whatever the cache lifetime.
VERSION_CHECK_SECONDS = 1.0
# How long a read on the event loop waits for a lock before the request goes to the thread pool, whose
# reads wait as long as the store's busy timeout (``web/lean_offers.py``).
LOOP_BUSY_TIMEOUT_S = 0.05
# The loop reader's page cache, KiB: its one connection reads on every API request, and SQLite's
# default 2 MiB holds a third of a 10,000-offer store (about 12% of the reads' CPU goes to pages read
# again from the file).
LOOP_CACHE_KIB = 32 * 1024


@dataclass(frozen=True, slots=True)
class OfferPage:
    """One page of the filtered, sorted offers, and how many match in all."""

    rows: list[OfferRow]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return self.page_count(self.total, self.per_page)

    @staticmethod
    def page_count(total: int, per_page: int) -> int:
        """Pages of ``per_page`` rows that ``total`` rows fill (at least one, empty or not)."""
        return max(1, -(-total // per_page))


@dataclass(frozen=True, slots=True)
class AdvisorOptions:
    """The advisor's options beside the workload (``gpuscout recommend --include-stale
    --spot-reclaims-per-hour X --min-headroom Y --checkpoint-write-gbps Z``), as the API body and the
    advisor form give them. Hashable: part of the advice cache's key."""

    include_stale: bool = False
    spot_reclaims_per_hour: float | None = None
    min_headroom: float | None = None
    checkpoint_write_gbps: float | None = None
    unlisted_host_ram: float | None = None
    max_deadline_miss: float | None = None

    @classmethod
    def of(cls, given: Any) -> AdvisorOptions:
        """The options of anything that has them as attributes (``RecommendIn``)."""
        return cls(
            include_stale=bool(given.include_stale),
            spot_reclaims_per_hour=given.spot_reclaims_per_hour,
            min_headroom=given.min_headroom,
            checkpoint_write_gbps=given.checkpoint_write_gbps,
            unlisted_host_ram=given.unlisted_host_ram,
            max_deadline_miss=given.max_deadline_miss,
        )

    def assumptions(self) -> Assumptions | None:
        """The advisor's assumptions with the overrides (``None``: the defaults)."""
        from gpuscout.advise.assumption_overrides import assumption_overrides

        return assumption_overrides(
            spot_reclaims_per_hour=self.spot_reclaims_per_hour,
            min_headroom=self.min_headroom,
            checkpoint_write_gbps=self.checkpoint_write_gbps,
            unlisted_host_ram=self.unlisted_host_ram,
            max_deadline_miss=self.max_deadline_miss,
        )


class WebServices:
    """Everything the pages and the API need, for one store (``db`` URL, or the default store).

    ``settings`` (default: read from the environment now) gives the default store, the cache lifetime
    and the admin token."""

    def __init__(
        self, db: str | None = None, cache_seconds: float | None = None, *, settings: Settings | None = None
    ) -> None:
        self.settings = settings or Settings.from_env()
        self.db = db or self.settings.db_url
        if cache_seconds is None:
            cache_seconds = self.settings.web_cache_seconds
        self._all: TtlCache[list[Offer]] = TtlCache(cache_seconds, max_entries=4)
        self._totals: TtlCache[tuple[int, int]] = TtlCache(cache_seconds, max_entries=4)
        self._pages: TtlCache[tuple[list[Offer], int]] = TtlCache(cache_seconds, max_entries=512)
        self._firsts: TtlCache[list[Offer]] = TtlCache(cache_seconds, max_entries=64)
        self._bodies: TtlCache[bytes] = TtlCache(cache_seconds, max_entries=512)
        self._advice: TtlCache[Advice] = TtlCache(cache_seconds, max_entries=64)
        # FAQ answers rank the whole catalog several times (~1-2 s).
        self._faq: TtlCache[Faq] = TtlCache(cache_seconds, 16)
        self._store: Store | None = None
        self._reader: OfferReader | None = None
        self._loop_reader: SqliteReader | None = None
        self._store_lock = threading.Lock()
        self._version = 0
        self._version_checked = -VERSION_CHECK_SECONDS
        self.refresh_lock = threading.Lock()

    # ---- store ---------------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        """The store, opened on first use (an empty store gets the bundled snapshot)."""
        with self._store_lock:
            if self._store is None:
                from gpuscout.catalog.api import open_store
                from gpuscout.catalog.paths import default_db_url

                self._store = open_store(self.db or default_db_url(self.settings))
            return self._store

    @property
    def reader(self) -> OfferReader:
        """What offers are read from: ``sqlite3`` on a SQLite store (opened, so ready), else the store
        (:func:`gpuscout.catalog.reader.open_reader`)."""
        store = self.store
        with self._store_lock:
            if self._reader is None:
                from gpuscout.catalog.reader import open_ready

                self._reader = open_ready(store.url) or store
            return self._reader

    def loop_reader(self) -> SqliteReader | None:
        """The reader for the event loop: ``sqlite3`` on the SQLite store, its own connection waiting
        at most ``LOOP_BUSY_TIMEOUT_S`` for a lock, with a page cache of ``LOOP_CACHE_KIB``. ``None``
        until :attr:`reader` has been opened (by a request in the thread pool: opening may migrate or
        load the store) and on PostgreSQL."""
        reader = self._reader
        if not isinstance(reader, SqliteReader):
            return None
        with self._store_lock:
            if self._loop_reader is None:
                self._loop_reader = reader.sibling(
                    busy_timeout_s=LOOP_BUSY_TIMEOUT_S, cache_kib=LOOP_CACHE_KIB
                )
            return self._loop_reader

    def data_version(self) -> int:
        """Id of the newest snapshot in the store (re-read at most every ``VERSION_CHECK_SECONDS``).

        Every cache key includes it, so cached rows never outlive the data they came from.
        """
        now = time.monotonic()
        if now - self._version_checked >= VERSION_CHECK_SECONDS:
            newest = self.store.snapshots(limit=1)
            self._version = int(newest[0]["id"]) if newest else 0
            self._version_checked = now
        return self._version

    def cached(self, key: tuple[Any, ...], compute: Callable[[], bytes]) -> bytes:
        """A rendered response body for ``key`` at the current data version (computed once); with the
        cache off, ``compute()`` (no data version is read)."""
        if self._bodies.ttl <= 0:
            return compute()
        return self._bodies.get_or_compute((self.data_version(), *key), compute)

    def clear_cache(self) -> None:
        self._all.clear()
        self._totals.clear()
        self._pages.clear()
        self._firsts.clear()
        self._bodies.clear()
        self._advice.clear()
        self._faq.clear()

    # ---- offers --------------------------------------------------------------------------------
    def offer_query(self, filters: OfferFilters) -> OfferQuery:
        """The catalog query for the filters (user GPU names resolved to canonical names)."""
        gpus: list[str] = []
        for name in filters.gpu_names():
            gpus.extend(resolve_gpu_names(name))
        return OfferQuery(
            gpus=tuple(dict.fromkeys(gpus)),
            min_vram_gb=filters.min_vram,
            gpu_count=filters.gpus,
            providers=tuple(p.lower() for p in filters.provider_names()),
            regions=tuple(filters.region_names()),
            spot={"any": None, "spot": True, "on-demand": False}[filters.pricing],
            available_only=filters.available,
            interconnect=None if filters.interconnect == "any" else filters.interconnect,
            max_price_usd_per_hour=filters.max_price,
            exclude_stale=not filters.include_stale,
        )

    def gpu_notes(self, filters: OfferFilters) -> list[str]:
        """What the GPU filter covers ("'H100' covers H100-SXM, H100-PCIe, H100-NVL"), for the page."""
        notes: list[str] = []
        for name in filters.gpu_names():
            notes.extend(n for _, n in resolve_gpu_filter(name) if n)
        return list(dict.fromkeys(notes))

    def _sorted_query(self, filters: OfferFilters) -> OfferQuery:
        """The catalog query for the view, sorted on its column (every column is sorted in SQL)."""
        key, flipped = STORE_SORTS[filters.sort]
        if filters.pricing == "spot" and filters.sort == "price_per_gpu":
            key = "price_per_gpu"  # the store's per-GPU sort follows the spot price of a spot query
        return replace(self.offer_query(filters), sort=key, descending=(filters.order == "desc") != flipped)

    def offer_page(self, filters: OfferFilters) -> OfferPage:
        """One page of the view: sorted, limited and counted in SQL (only the page's rows are read)."""
        now = datetime.now(UTC)
        offers_on_page, total = self.page_offers(filters)
        return OfferPage(
            rows=[to_row(o, now) for o in offers_on_page],
            total=total,
            page=filters.page,
            per_page=filters.per_page,
        )

    def page_offers(self, filters: OfferFilters) -> tuple[list[Offer], int]:
        """The offers on the view's page and how many match in all (what :meth:`offer_page` shows,
        without the table's row values: the JSON API derives its own)."""
        start = (filters.page - 1) * filters.per_page
        query = self._sorted_query(filters)
        key = (self.data_version(), _query_key(query), query.sort, query.descending, start, filters.per_page)

        def fetch() -> tuple[list[Offer], int]:
            # rows and total in one read transaction: a refresh cannot land between them
            return self.reader.offer_page(replace(query, limit=filters.per_page, offset=start))

        return self._pages.get_or_compute(key, fetch)

    def page_rows(
        self, filters: OfferFilters, reader: SqliteReader | None = None
    ) -> tuple[list[Any], int] | None:
        """:meth:`page_offers` as the rows ``sqlite3`` reads (not decoded), for the JSON API to encode
        itself, read by ``reader`` (default: :attr:`reader`); ``None`` when the store is not read with
        ``sqlite3`` (PostgreSQL). Never cached."""
        if reader is None:
            default = self.reader
            if not isinstance(default, SqliteReader):
                return None
            reader = default
        start = (filters.page - 1) * filters.per_page
        return reader.offer_page_rows(
            replace(self._sorted_query(filters), limit=filters.per_page, offset=start)
        )

    def first_row(self, filters: OfferFilters) -> OfferRow | None:
        """The first row of the view (its page 1 without the count), ``None`` when nothing matches."""
        query = replace(self._sorted_query(filters), limit=1)
        key = ("first", self.data_version(), _query_key(query), query.sort, query.descending)
        offers = self._firsts.get_or_compute(key, lambda: self.reader.current_offers(query))
        return to_row(offers[0], datetime.now(UTC)) if offers else None

    def first_whole_gpu_row(self, filters: OfferFilters) -> OfferRow | None:
        """The view's first row that is whole GPUs: a vGPU slice (``Offer.fractional``) is a share of one
        card, not the "1x <GPU>" a cheapest-price card or a family page names, so read past any that sort
        first (rare: a few providers sell them), a page of ``_SCAN_ROWS`` at a time."""
        first = self.first_row(filters)
        if first is None or not first.offer.fractional:
            return first
        from gpuscout.web.filters import MAX_PAGE

        scan = filters.model_copy(update={"per_page": _SCAN_ROWS})
        for page in range(1, MAX_PAGE + 1):
            rows = self.offer_page(scan.model_copy(update={"page": page})).rows
            whole = next((row for row in rows if not row.offer.fractional), None)
            if whole is not None or len(rows) < _SCAN_ROWS:
                return whole
        return None

    def export_rows(self, filters: OfferFilters, scope: str) -> list[OfferRow]:
        """The rows of an export: the visible page (``scope="page"``) or all pages (bounded)."""
        if scope == "page":
            return self.offer_page(filters).rows
        now = datetime.now(UTC)
        query = replace(self._sorted_query(filters), limit=MAX_EXPORT_ROWS)
        return [to_row(o, now) for o in self.reader.current_offers(query)]

    def all_offers(self) -> list[Offer]:
        """Every current offer, unsorted (what the advisor, the FAQ and the charts work on)."""
        key = ("all", self.data_version())
        return self._all.get_or_compute(key, lambda: list(self.reader.current_offers(OfferQuery())))

    def offer_totals(self) -> tuple[int, int]:
        """How many current offers there are and from how many providers (counted in SQL: the
        same offers as :meth:`all_offers`, none of them read)."""
        key = ("totals", self.data_version())
        return self._totals.get_or_compute(key, self.reader.offer_totals)

    def has_offers_from(self, provider: str) -> bool:
        """True when some current offer is from ``provider`` (a provider id, as offers carry it)."""
        return self.reader.count_offers(OfferQuery(providers=(provider,))) > 0

    def offers_for_gpu(self, accelerator: str, limit: int = 100) -> tuple[list[OfferRow], int]:
        filters = OfferFilters(gpu=accelerator, sort="price_per_gpu", per_page=limit)
        page = self.offer_page(filters)
        return page.rows, page.total

    def all_current_offers(self) -> list[Offer]:
        return self.all_offers()

    # ---- knowledge -----------------------------------------------------------------------------
    def gpu(self, name: str) -> Accelerator:
        from gpuscout.knowledge.accelerators import resolve_gpu

        return resolve_gpu(name)

    def gpus(self) -> tuple[Accelerator, ...]:
        from gpuscout.knowledge.accelerators import all_accelerators

        return all_accelerators()

    def model(self, name: str) -> ModelSpec:
        """A curated or imported model (``gpuscout models import``)."""
        from gpuscout.user_models import registry

        return registry().resolve(name)

    def models(self) -> Sequence[ModelSpec]:
        from gpuscout.user_models import registry

        return registry().all()

    # ---- advisor -------------------------------------------------------------------------------
    def advice(
        self,
        workload: AnyWorkload,
        *,
        objective: str = "cost",
        top: int | None = None,
        include_rejected: bool = False,
        options: AdvisorOptions = AdvisorOptions(),
    ) -> Advice:
        """The advisor's whole answer over the current offers (``gpuscout.advice``): the Pareto front,
        picks, targets and what binds when nothing passes; ``options`` as ``gpuscout recommend``'s
        ``--include-stale``, ``--spot-reclaims-per-hour``, ``--min-headroom`` and
        ``--checkpoint-write-gbps``."""
        from gpuscout.advise.api import advise
        from gpuscout.advise.backends import default_backends
        from gpuscout.user_models import registry

        assumptions = options.assumptions()  # a value out of range: InvalidInputError, before the cache
        minute = int(time.time() // 60)  # reasons quote price ages
        key = (
            "advice",
            workload.model_dump_json(),
            objective,
            top,
            include_rejected,
            options,
            self.data_version(),
            minute,
        )
        return self._advice.get_or_compute(
            key,
            lambda: advise(
                workload,
                self.all_current_offers(),
                objective=objective,
                top=top,
                include_rejected=include_rejected,
                include_stale=options.include_stale,
                backends=default_backends(registry()),
                assumptions=assumptions,
            ),
        )

    def recommend(
        self,
        workload: AnyWorkload,
        *,
        objective: str = "cost",
        top: int | None = None,
        options: AdvisorOptions = AdvisorOptions(),
    ) -> list[Recommendation]:
        """Ranked recommendations over the current offers (``gpuscout.recommend``): the answer's rows."""
        return list(self.advice(workload, objective=objective, top=top, options=options).rows)

    def faq(self, model: str) -> Faq:
        """The FAQ answers for ``model`` over the current offers (cached like the offers)."""
        from gpuscout.advise.backends import default_backends
        from gpuscout.advise.faq import faq
        from gpuscout.user_models import registry

        spec = self.model(model)
        key = (spec.name, self.data_version())
        return self._faq.get_or_compute(
            key, lambda: faq(spec.name, self.all_current_offers(), backends=default_backends(registry()))
        )

    # ---- catalog status ------------------------------------------------------------------------
    def stored_sources(self) -> list[Any]:
        """``SourceStatus`` of every source the store has seen (no adapter registry: what the
        freshness banner counts; a source never loaded has no rows there)."""
        return list(self.store.sources_status())

    def current_sources(self) -> list[Any]:
        """What the freshness banner counts of each source with a current snapshot: read with
        ``sqlite3`` in one query on a SQLite store (:meth:`SqliteReader.current_sources`), else the
        stored ``SourceStatus`` rows (a source never loaded has no rows there either). Never cached."""
        reader = self.reader
        if isinstance(reader, SqliteReader):
            return list(reader.current_sources())
        return self.stored_sources()

    def sources(self) -> list[Any]:
        """``SourceStatus`` of every source (stored or registered), with credential presence."""
        from gpuscout.catalog.sources.registry import all_sources

        try:
            registered: dict[str, Any] = dict(all_sources())
        except Exception:  # a broken adapter must not take the status page down
            registered = {}
        return list(self.store.sources_status(registered))

    def health(self) -> dict[str, Any]:
        """Store reachability and data freshness for ``/healthz``."""
        now = datetime.now(UTC)
        try:
            statuses = list(self.store.sources_status())
            offers = self.reader.count_offers(OfferQuery())
        except Exception as exc:  # reported, not raised: this is the health check
            return {
                "status": "error",
                "store": f"unreachable: {type(exc).__name__}: {exc}",
                "offers": 0,
                "newest_data_age_hours": None,
                "sources": 0,
                "failing_sources": [],
                "checked_at": now,
            }
        ages = [s.age_s for s in statuses if s.age_s is not None and s.row_count > 0]
        newest = min(ages) / 3600 if ages else None
        failing = sorted(s.source for s in statuses if s.last_status in ("failed", "rejected"))
        fresh = newest is not None and newest <= STALE_AFTER.total_seconds() / 3600
        return {
            "status": "ok" if fresh and offers else "stale",
            "store": "reachable",
            "offers": offers,
            "newest_data_age_hours": None if newest is None else round(newest, 2),
            "sources": len(statuses),
            "failing_sources": failing,
            "checked_at": now,
        }

    def history_points(
        self, accelerators: Sequence[str], provider: str | None, days: float | None
    ) -> list[Any]:
        """``HistoryPoint``s of the accelerator names read together (a family filter gives several),
        as ``gpuscout history`` reads them: one point per (snapshot, provider) over the family, in
        time order (points of an unknown time first), so the last N points are the N most recent."""
        if not accelerators:
            return []
        return list(self.store.price_history(list(accelerators), provider=provider, days=days))

    def refresh(self, sources: Sequence[str] | None) -> list[Any]:
        """Refresh the catalog (all sources, or the named ones); one refresh at a time per process
        (a second one while the first runs is refused, never queued)."""
        import asyncio

        from gpuscout.catalog.refresh import refresh
        from gpuscout.errors import GpuscoutError

        if not self.refresh_lock.acquire(blocking=False):
            raise GpuscoutError("a refresh is already running")
        try:
            result: Any = refresh(self.store, list(sources) if sources else None)
            if asyncio.iscoroutine(result):
                result = asyncio.run(result)
            self.clear_cache()
            return list(result)
        finally:
            self.refresh_lock.release()


def resolve_gpu_names(name: str) -> list[str]:
    """Canonical accelerator names for a user's GPU filter (the catalog's family rules:
    "H100" covers H100-SXM, H100-PCIe and H100-NVL; an ambiguous name covers every part it may mean)."""
    return [a for a, _ in resolve_gpu_filter(name)]


def resolve_gpu_filter(name: str) -> list[tuple[str, str]]:
    """Like ``resolve_gpu_names`` with, for each name, a note on what the filter covers."""
    from gpuscout.knowledge.accelerators import gpu_family

    try:
        names = list(gpu_family(name))
    except UnknownNameError as exc:
        if exc.ambiguous and exc.suggestions:
            note = f"{name!r} is ambiguous; showing {', '.join(exc.suggestions)}"
            return [(s, note) for s in exc.suggestions]
        raise
    note = f"{name!r} covers {', '.join(names)}" if len(names) > 1 else ""
    return [(n, note) for n in names]


# The store's sort key for each column of the view, and whether the view's "asc" is the store's
# descending order (the store sorts memory most-first; the table's "asc" is smallest first). The $/h
# column is on-demand whatever the view; $/GPU-h is the spot price per GPU in spot mode (see
# ``_sorted_query``) and the on-demand one otherwise. Unknown values sort last.
STORE_SORTS: dict[str, tuple[str, bool]] = {
    "provider": ("provider", False),
    "instance": ("instance_type", False),
    "gpu": ("accelerator", False),
    "gpu_count": ("gpu_count", False),
    "vram": ("gpu_memory", True),  # memory per GPU (the filter is per GPU too)
    "interconnect": ("interconnect", False),
    "region": ("region", False),
    "price": ("on_demand_price", False),
    "spot_price": ("spot_price", False),
    "price_per_gpu": ("on_demand_price_per_gpu", False),
    "availability": ("availability", False),
    "age": ("age", False),
    "source": ("source", False),
}
assert set(STORE_SORTS) == set(SORT_COLUMNS), "every sortable column has a store sort"


def _query_key(query: OfferQuery) -> tuple[Any, ...]:
    return (
        query.gpus,
        query.min_vram_gb,
        query.min_total_vram_gb,
        query.gpu_count,
        query.providers,
        query.regions,
        query.spot,
        query.available_only,
        query.interconnect,
        query.max_price_usd_per_hour,
        query.exclude_stale,
    )


def source_out(status: Any) -> dict[str, Any]:
    """A ``SourceStatus`` of the store as plain values for ``SourceOut`` and the sources page (its
    fields, the age as text, and when the current data was stored as ``loaded_at``)."""
    values = {f.name: getattr(status, f.name) for f in dataclasses.fields(status)}
    values.update(age=status.age_text, loaded_at=status.current_loaded_at)
    values["needs_credentials"] = list(status.needs_credentials)
    return values


#: Rows read per page when vGPU slices sort first in a view (:meth:`WebServices.first_whole_gpu_row`).
_SCAN_ROWS = 50
