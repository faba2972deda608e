"""Refresh: run sources concurrently, gate each through validation, store each on its own.

Every source runs with its own deadline and its own ``try``: a source that hangs, raises,
returns garbage or is rejected by the gate produces a :class:`RefreshResult` saying so and a
``snapshots`` row recording it; the other sources and the current data are untouched. Writes
are serialized (one transaction per source snapshot) so SQLite never sees two writers at once.

A refresh always ends, whatever the network or a parser does:

* **each source runs in a worker thread with its own event loop and HTTP client**, so a source
  busy parsing a large answer (CPU-bound Python) never stalls the loop the other sources' timers
  run on. At the source's deadline (``timeout_s``) the refresh stops waiting, cancels the
  worker's task and records "timed out"; a worker still busy is abandoned (daemon thread) and
  nothing it produces later is stored. Sources that run code which cannot be cancelled (gpuhunt's
  ``urllib`` downloads) run it in a worker *process*, killed at the deadline (see
  :mod:`gpuscout.catalog.sources.gpuhunt_source`);
* every HTTP request has a total deadline, body included (:mod:`gpuscout.catalog.sources.http`);
* validation and store calls run in daemon threads too, waited on up to the **overall deadline**
  (``deadline_s``, by default the per-source timeout plus :data:`WRITE_GRACE_S`); nothing is
  left for ``asyncio.run`` to join at shutdown, so the process (or the web service's refresh
  lock) is free when :func:`refresh` returns.

A refresh is never silent for long: ``on_progress(source, text)`` hears when each network source
starts ("fetching, gives up after 120s") and, for an HTTP source, each time a request failed and the
source waits to try again ("no good answer after 30s (try 1 of 4); retry 2 of 4 in 1.02s"). It is
called on the refresh's own thread, never after :func:`refresh` returned.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import math
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.results import DropReasons, WriteReport
from gpuscout.catalog.results import RefreshResult as RefreshResult  # its home before results.py
from gpuscout.catalog.sources.base import CredentialsMissingError, Source, format_seconds
from gpuscout.catalog.validate import ValidationReport, validate_offers
from gpuscout.errors import GpuscoutError, InvalidInputError, UnknownNameError, closest, quoted_value
from gpuscout.settings import Settings
from gpuscout.wording import plural

if TYPE_CHECKING:
    import ssl

    import httpx

    from gpuscout.catalog.sources.http import RetryPolicy, Sleep

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 120.0  # Settings.refresh_timeout_s's default (GPUSCOUT_REFRESH_TIMEOUT)
WRITE_GRACE_S = 30.0  # the overall deadline's room, beyond the per-source timeout, for storing
OFFER_FILES_ENV = "GPUSCOUT_OFFER_FILES"
USER_AGENT = "gpuscout (+https://github.com/gpuscout)"
MAX_ERROR_CHARS = 600

ClientFactory = Callable[[], "httpx.AsyncClient"]
Progress = Callable[[str, str], None]  # (source name, what it is doing)
#: sources that wait on a network, whose progress is reported (a file or the bundled snapshot is read at once)
NETWORK_KINDS = frozenset({"api", "gpuhunt"})


class RefreshStore(Protocol):
    """What a refresh asks of the store: the :class:`~gpuscout.catalog.store.Store`, or on a ready
    SQLite file the :class:`~gpuscout.catalog.sqlite_writer.SqliteWriter` (the same writes with
    ``sqlite3``)."""

    def last_good_row_count(self, source: str) -> int | None: ...

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
    ) -> WriteReport: ...

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
    ) -> int: ...

    def fallback_offer_count(self) -> int: ...

    def close(self) -> None: ...


# --- which sources ------------------------------------------------------------------------


def offer_file_sources() -> list[Source]:
    """File sources named by ``$GPUSCOUT_OFFER_FILES`` (paths separated by ``os.pathsep``)."""
    from gpuscout.catalog.sources.file_source import FileSource

    return [FileSource(p) for p in Settings.from_env().offer_files]


def default_sources() -> list[Source]:
    """What a plain ``gpuscout refresh`` runs: every registered live source + the user's files."""
    from gpuscout.catalog.sources.registry import all_sources

    return [*all_sources().values(), *offer_file_sources()]


def configured_source_names() -> list[str]:
    """Every source name a refresh may be asked for on this installation: the registered adapters,
    the bundled ``snapshot``, and ``file:<path>`` for each file in ``$GPUSCOUT_OFFER_FILES``
    (a server that refreshes on request should accept only these)."""
    from gpuscout.catalog.sources.registry import all_sources
    from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME

    return [*all_sources(), SNAPSHOT_NAME, *(s.name for s in offer_file_sources())]


def resolve_sources(names: Iterable[str | Source], *, configured_only: bool = False) -> list[Source]:
    """Turn names into sources: ``snapshot``, ``file:PATH``, or a registered source name.

    With ``configured_only`` a ``file:PATH`` must be one of the files in ``$GPUSCOUT_OFFER_FILES``
    (for a service refreshing on request: it never reads a path a caller names). A retired
    source (a provider that shut down) is refused with the reason.
    """
    from gpuscout.catalog.sources.file_source import FileSource
    from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME, SnapshotSource

    out: list[Source] = []
    registry: dict[str, Source] | None = None
    for item in names:
        if isinstance(item, Source):
            out.append(item)
            continue
        name = item.strip()
        if name.lower() == SNAPSHOT_NAME:
            out.append(SnapshotSource())
        elif name.lower().startswith("file:"):
            source = FileSource(Path(name[5:].strip()).expanduser())
            if configured_only and source.name not in {s.name for s in offer_file_sources()}:
                raise InvalidInputError(
                    "source",
                    "only the offer files configured on this server can be refreshed",
                    f"the files in ${OFFER_FILES_ENV}",
                )
            out.append(source)
        else:  # the adapters (and their HTTP client) are imported for a registered source only
            from gpuscout.catalog.sources.registry import RETIRED, all_sources

            if registry is None:
                registry = all_sources()
            key = name.lower()
            if key in RETIRED:
                raise InvalidInputError("source", f"{quoted_value(key)} is retired: {RETIRED[key]}")
            if key not in registry:
                known = [*registry, SNAPSHOT_NAME, "file:PATH"]
                raise UnknownNameError("source", name[:100], closest(name[:100], known) or known[:6])
            out.append(registry[key])
    return out


def _describe(exc: BaseException) -> str:
    """Our own errors already name the source and the cause; others get their type name."""
    text = str(exc) if isinstance(exc, GpuscoutError) else f"{type(exc).__name__}: {exc}"
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


# --- running code where it cannot block the refresh -----------------------------------------


class _DaemonThreadExecutor(concurrent.futures.ThreadPoolExecutor):
    """A worker loop's default executor (httpx resolves host names through it): one daemon thread
    per call, never joined, so a blocked ``getaddrinfo`` cannot hold the process at exit."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:
                future.set_exception(exc)

        threading.Thread(target=run, name="gpuscout-resolve", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


def _settle(loop: asyncio.AbstractEventLoop, future: asyncio.Future[T], ok: bool, value: Any) -> None:
    """Complete ``future`` (owned by ``loop``) from another thread, unless nobody waits any more."""

    def settle() -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    with contextlib.suppress(RuntimeError):  # that loop is closed: the refresh is over
        loop.call_soon_threadsafe(settle)


async def off_loop(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run ``fn(*args, **kwargs)`` in a daemon thread and await it. Cancelling the await (a
    deadline) abandons the thread instead of waiting for it (unlike ``asyncio.to_thread``, whose
    pool ``asyncio.run`` joins at shutdown)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def run() -> None:
        try:
            value = fn(*args, **kwargs)
        except BaseException as exc:
            _settle(loop, future, False, exc)
        else:
            _settle(loop, future, True, value)

    threading.Thread(target=run, name=f"gpuscout-{getattr(fn, '__name__', 'call')}", daemon=True).start()
    return await future


class _SourceWorker:
    """One source's ``fetch`` on its own event loop in a daemon thread, with its own HTTP client."""

    def __init__(self, source: Source, make_client: ClientFactory, loop: asyncio.AbstractEventLoop) -> None:
        self.source = source
        self.make_client = make_client
        self.result: asyncio.Future[list[Offer]] = loop.create_future()
        self._parent = loop
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[list[Offer]] | None = None
        self._cancelled = False

    def start(self) -> None:
        threading.Thread(target=self._run, name=f"gpuscout-source-{self.source.name}", daemon=True).start()

    def cancel(self) -> None:
        """Ask the worker's task to stop (it ends at its next ``await``); safe from any thread."""
        with self._lock:
            self._cancelled = True
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            with contextlib.suppress(RuntimeError):  # the worker's loop already finished
                loop.call_soon_threadsafe(task.cancel)

    async def _fetch(self) -> list[Offer]:
        offline = self.source.offline_offers()
        if offline is not None:
            return offline
        async with self.make_client() as client:
            return await self.source.fetch(client)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        loop.set_default_executor(_DaemonThreadExecutor(max_workers=1))
        try:
            task = loop.create_task(self._fetch())
            with self._lock:
                self._loop, self._task = loop, task
                if self._cancelled:
                    task.cancel()
            try:
                offers = loop.run_until_complete(task)
            except BaseException as exc:
                _settle(self._parent, self.result, False, exc)
            else:
                _settle(self._parent, self.result, True, offers)
        finally:
            try:
                for pending in asyncio.all_tasks(loop):
                    pending.cancel()
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()


async def _fetch_in_worker(source: Source, make_client: ClientFactory) -> list[Offer]:
    worker = _SourceWorker(source, make_client, asyncio.get_running_loop())
    worker.start()
    try:
        return await worker.result
    finally:
        worker.cancel()  # a no-op when it finished; at a deadline, stop it at its next await


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context (the CA bundle) for every worker's client: building one costs ~50 ms."""
    import httpx

    return httpx.create_ssl_context()


def default_client() -> httpx.AsyncClient:
    """The HTTP client a source's worker uses (per-request deadlines are the fetcher's own)."""
    import httpx

    return httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT}, follow_redirects=True, timeout=httpx.Timeout(30.0), verify=_tls()
    )


# --- one source --------------------------------------------------------------------------------


@dataclass
class _Run:
    store: RefreshStore
    timeout_s: float
    deadline_s: float
    deadline_at: float
    client_factory: ClientFactory
    write_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    on_progress: Progress | None = None

    def left(self) -> float:
        """Seconds until the overall deadline."""
        return max(0.0, self.deadline_at - time.monotonic())

    def fetch_budget(self) -> float:
        """A source's fetch time: its timeout, cut to leave the store room before the deadline."""
        margin = min(WRITE_GRACE_S, self.deadline_s / 4)
        return max(0.0, min(self.timeout_s, self.left() - margin))

    async def stored(self, call: Callable[[], Awaitable[T]]) -> T:
        """A store step, bounded by the overall deadline."""
        async with asyncio.timeout(self.left()):
            return await call()


def _retry_number(delay: float, policy: RetryPolicy) -> int | None:
    """The try a back-off ``delay`` comes before (2 for the first retry), read off the policy's own
    delays (each within its jitter; they do not overlap while the jitter is under a third); None
    where no single one matches (a server's ``Retry-After``, or a policy without back-off)."""
    from gpuscout.catalog.sources.http import backoff_delay

    hits = [
        k
        for k in range(1, policy.attempts)
        if abs(delay - (base := backoff_delay(k, policy, lambda: 0.5))) <= base * policy.jitter + 1e-9
    ]
    return hits[0] + 1 if len(hits) == 1 else None


def _report_retries(source: Source, say: Callable[[str], None]) -> Callable[[], None]:
    """Make an HTTP source's back-off waits heard: its ``sleep`` (the seam :class:`HttpSource`
    offers for its waits between tries, and only those) is wrapped to ``say`` what failed and what
    comes next before waiting. Returns the function that puts the source's own ``sleep`` back.

    A source that makes several requests at once counts their tries apart; the time given is since
    the source's last start or wait ended."""
    if not hasattr(source, "sleep") or not hasattr(source, "retry"):
        return lambda: None  # not an HTTP source: nothing retries through the fetcher
    from gpuscout.catalog.sources import http

    own: Sleep | None = getattr(source, "sleep", None)
    policy: RetryPolicy = getattr(source, "retry", None) or http.RetryPolicy()
    since = [time.monotonic()]

    async def sleep(delay: float) -> None:
        waited = time.monotonic() - since[0]
        retry = _retry_number(delay, policy)
        tried = f" (try {retry - 1} of {policy.attempts})" if retry is not None else ""
        then = f"retry {retry} of {policy.attempts}" if retry is not None else "trying again"
        say(f"no good answer after {format_seconds(waited)}{tried}; {then} in {format_seconds(delay)}")
        await (own or asyncio.sleep)(delay)
        since[0] = time.monotonic()

    setattr(source, "sleep", sleep)  # noqa: B010 - an HttpSource attribute, not on Source

    def restore() -> None:
        setattr(source, "sleep", own)  # noqa: B010

    return restore


def _exclusion_note(excluded: Counter[str]) -> str | None:
    if not excluded:
        return None
    top = "; ".join(f"{n}x {r}" for r, n in excluded.most_common(3))
    n = sum(excluded.values())
    return f"{n} {plural(n, 'row is not an offer', 'rows are not offers')} by design ({top})"


async def _run_one(run: _Run, source: Source) -> RefreshResult:
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    name = source.name
    store = run.store

    def elapsed() -> float:
        return time.perf_counter() - t0

    def result(status: str, rows: int, error: str | None, sid: int | None = None, **kw: Any) -> RefreshResult:
        return RefreshResult(
            name, status, rows, elapsed(), error, snapshot_id=sid, warnings=tuple(source.warnings), **kw
        )

    async def record(
        status: str,
        error: str,
        rows: int = 0,
        report: ValidationReport | None = None,
        reasons: Mapping[str, Mapping[str, int]] | None = None,
    ) -> RefreshResult:
        dropped = report.dropped if report is not None else 0
        sid: int | None = None
        try:

            async def write() -> int:
                async with run.write_lock:
                    return await off_loop(
                        store.record_attempt,
                        name,
                        status,
                        started_at=started,
                        error=error,
                        reason=error,
                        row_count=rows,
                        dropped_count=dropped,
                        drop_reasons=reasons,
                    )

            sid = await run.stored(write)
        except TimeoutError:
            error = f"{error} (not recorded: the store did not answer before the refresh deadline)"
        except Exception as exc:  # the store refused; the result still says what happened
            error = f"{error} (not recorded: {_describe(exc)})"
        drop = dict(report.drop_reasons) if report is not None else {}
        return result(status, rows, error, sid, dropped=dropped, drop_reasons=drop)

    budget = run.fetch_budget()
    restore: Callable[[], None] = lambda: None  # noqa: E731 - the source's own sleep, put back
    heard = [run.on_progress is not None]  # cleared when the fetch is over: nothing said after it
    try:
        missing = source.missing_credentials()
        if missing:
            raise CredentialsMissingError(name, missing)
        if budget <= 0:
            return await record("failed", "not started: no time left before the refresh deadline")
        source.deadline = time.monotonic() + budget
        if run.on_progress is not None and source.kind in NETWORK_KINDS:
            loop = asyncio.get_running_loop()
            progress = run.on_progress

            def say(text: str) -> None:  # from the source's worker thread: on the refresh's loop
                def tell() -> None:
                    if heard[0]:
                        progress(name, text)

                with contextlib.suppress(RuntimeError):  # that loop is closed: the refresh is over
                    loop.call_soon_threadsafe(tell)

            progress(name, f"fetching, gives up after {format_seconds(budget)}")
            restore = _report_retries(source, say)
        offers = await asyncio.wait_for(_fetch_in_worker(source, run.client_factory), timeout=budget)
    except CredentialsMissingError as exc:
        return result("skipped", 0, str(exc))
    except TimeoutError:
        cut = "" if budget >= run.timeout_s else " (cut to the refresh's overall deadline)"
        return await record("failed", f"timed out after {format_seconds(budget)}{cut}")
    except Exception as exc:  # one source's failure must never affect another
        return await record("failed", _describe(exc))
    finally:
        heard[0] = False
        restore()

    invalid = Counter(d.key for d in source.dropped if d.invalid)
    excluded = Counter(d.key for d in source.dropped if not d.invalid)
    rows_seen = source.rows_seen - sum(excluded.values()) if source.rows_seen else None
    reasons = {"invalid": dict(invalid), "excluded": dict(excluded)}
    try:
        last_good = await run.stored(lambda: off_loop(store.last_good_row_count, name))
        report = await run.stored(
            lambda: off_loop(
                validate_offers,
                name,
                offers,
                last_good_count=last_good,
                adapter_drops=invalid,
                rows_seen=rows_seen,
            )
        )
        reasons["invalid"] = dict(report.drop_reasons)
        if not report.ok:
            return await record("rejected", report.reason or "rejected", report.received, report, reasons)
        note = "; ".join(x for x in (report.reason, _exclusion_note(excluded)) if x) or None

        async def write() -> Any:
            async with run.write_lock:
                return await off_loop(
                    store.write_snapshot,
                    name,
                    report.offers,
                    started_at=started,
                    reason=note,
                    dropped_count=report.dropped,
                    fallback=source.kind == "snapshot",
                    drop_reasons=reasons,
                    fingerprint=getattr(source, "fingerprint", None) if source.kind == "snapshot" else None,
                )

        written = await run.stored(write)
        return result(
            "ok",
            written.rows,
            None,
            written.snapshot_id,
            dropped=report.dropped,
            drop_reasons=dict(report.drop_reasons),
            excluded=sum(excluded.values()),
        )
    except TimeoutError:
        return result(
            "failed",
            0,
            "not stored: validation or the store did not finish before the "
            f"refresh deadline ({format_seconds(run.deadline_s)})",
        )
    except Exception as exc:  # e.g. the database refused the write
        return await record("failed", _describe(exc))


# --- the whole refresh ---------------------------------------------------------------------


def default_timeout_s() -> float:
    """The per-source timeout when none is given: ``$GPUSCOUT_REFRESH_TIMEOUT`` (``Settings``), 120 s
    by default (the web service's refresh endpoint uses this)."""
    return Settings.from_env().refresh_timeout_s


def _seconds(value: float, option: str) -> float:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value <= 0:
        raise InvalidInputError(option, f"must be a positive number of seconds, got {quoted_value(value)}")
    return float(value)


async def refresh_async(
    store: RefreshStore,
    sources: Sequence[str | Source] | None = None,
    *,
    timeout_s: float | None = None,
    deadline_s: float | None = None,
    client_factory: ClientFactory | None = None,
    on_result: Callable[[RefreshResult], None] | None = None,
    on_start: Callable[[str], None] | None = None,
    on_progress: Progress | None = None,
) -> list[RefreshResult]:
    """Refresh ``sources`` (names or :class:`Source` objects; None = :func:`default_sources`)
    concurrently, each within ``timeout_s`` (None: :func:`default_timeout_s`). Returns one result
    per source, in the order given, by ``deadline_s`` (default ``timeout_s`` +
    :data:`WRITE_GRACE_S`) at the latest. ``on_progress(source, text)`` hears each source start
    fetching and wait to retry (see the module's docstring)."""
    timeout_s = default_timeout_s() if timeout_s is None else _seconds(timeout_s, "timeout")
    deadline_s = timeout_s + WRITE_GRACE_S if deadline_s is None else _seconds(deadline_s, "deadline")
    chosen = default_sources() if sources is None else resolve_sources(sources)
    chosen = list({s.name: s for s in chosen}.values())  # a source named twice runs once
    run = _Run(
        store,
        timeout_s,
        deadline_s,
        time.monotonic() + deadline_s,
        client_factory or default_client,
        on_progress=on_progress,
    )

    async def one(src: Source) -> RefreshResult:
        if on_start is not None:
            on_start(src.name)
        res = await _run_one(run, src)
        if on_result is not None:
            on_result(res)
        return res

    tasks = [asyncio.create_task(one(s)) for s in chosen]
    if not tasks:
        return []
    done, pending = await asyncio.wait(tasks, timeout=run.left())
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    results: list[RefreshResult] = []
    for src, task in zip(chosen, tasks, strict=True):
        if task in done and not task.cancelled() and task.exception() is None:
            results.append(task.result())
            continue
        problem = task.exception() if task in done and not task.cancelled() else None
        error = (
            f"refresh failed: {_describe(problem)}"
            if problem is not None
            else f"stopped at the refresh's overall deadline ({format_seconds(deadline_s)})"
        )
        res = RefreshResult(src.name, "failed", 0, deadline_s, error)
        if on_result is not None:
            on_result(res)
        results.append(res)
    return results


def refresh(
    store: RefreshStore,
    sources: Sequence[str | Source] | None = None,
    *,
    timeout_s: float | None = None,
    deadline_s: float | None = None,
    client_factory: ClientFactory | None = None,
    on_result: Callable[[RefreshResult], None] | None = None,
    on_start: Callable[[str], None] | None = None,
    on_progress: Progress | None = None,
) -> list[RefreshResult]:
    """Synchronous :func:`refresh_async` (runs its own event loop; returns by the deadline)."""
    return asyncio.run(
        refresh_async(
            store,
            sources,
            timeout_s=timeout_s,
            deadline_s=deadline_s,
            client_factory=client_factory,
            on_result=on_result,
            on_start=on_start,
            on_progress=on_progress,
        )
    )


# --- the one-line summary ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RefreshSummary:
    """Counts of one refresh, and whether the bundled snapshot still supplies offers."""

    refreshed: int
    failed: int
    rejected: int
    skipped: int
    bundled_offers: int  # current offers still coming from the bundled snapshot

    @property
    def line(self) -> str:
        parts = [f"{self.refreshed} refreshed", f"{self.failed} failed"]
        if self.rejected:
            parts.append(f"{self.rejected} rejected by validation")
        parts.append(f"{self.skipped} skipped (credentials missing)")
        if self.bundled_offers:
            bundled = (
                f"bundled snapshot still in use ({self.bundled_offers} "
                f"{plural(self.bundled_offers, 'offer')} of providers no live source covered)"
            )
        else:
            bundled = "bundled snapshot no longer in use"
        return f"{', '.join(parts)}; {bundled}"


def summarize(results: Sequence[RefreshResult], store: RefreshStore) -> RefreshSummary:
    """The summary of ``results``; asks ``store`` how many bundled offers are still shown."""
    by = Counter(r.status for r in results)
    try:
        bundled = store.fallback_offer_count()
    except Exception:  # a store problem must not hide the refresh's own outcome
        bundled = 0
    return RefreshSummary(by["ok"], by["failed"], by["rejected"], by["skipped"], bundled)
