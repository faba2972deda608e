"""Refresh: run sources concurrently, gate each through validation, store each on its own.

Every source runs in its own task with its own timeout and its own ``try``: a source that hangs,
raises, returns garbage or is rejected by the gate produces a :class:`RefreshResult` saying so and
a ``snapshots`` row recording it; the other sources and the current data are untouched. Writes
are serialized (one transaction per source snapshot) so SQLite never sees two writers at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from gpuscout.catalog.sources.base import CredentialsMissingError, Source
from gpuscout.catalog.store import Store
from gpuscout.catalog.validate import validate_offers
from gpuscout.errors import GpuscoutError, UnknownNameError, closest
from gpuscout.settings import Settings

DEFAULT_TIMEOUT_S = 120.0
OFFER_FILES_ENV = "GPUSCOUT_OFFER_FILES"
USER_AGENT = "gpuscout (+https://github.com/gpuscout)"


@dataclass(frozen=True, slots=True)
class RefreshResult:
    """Outcome of refreshing one source.

    ``status``: ``ok`` (stored and current), ``rejected`` (fetched but refused by the validation
    gate), ``failed`` (error or timeout) or ``skipped`` (credentials missing). ``rows`` is the
    number stored (ok) or received (otherwise).
    """

    source: str
    status: str
    rows: int
    elapsed_s: float
    error: str | None = None
    dropped: int = 0
    snapshot_id: int | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def offer_file_sources() -> list[Source]:
    """File sources named by ``$GPUSCOUT_OFFER_FILES`` (paths separated by ``os.pathsep``)."""
    from gpuscout.catalog.sources.file_source import FileSource

    return [FileSource(p) for p in Settings.from_env().offer_files]


def default_sources() -> list[Source]:
    """What a plain ``gpuscout refresh`` runs: every registered live source + the user's files."""
    from gpuscout.catalog.sources.registry import all_sources

    return [*all_sources().values(), *offer_file_sources()]


def resolve_sources(names: Iterable[str | Source]) -> list[Source]:
    """Turn names into sources: ``snapshot``, ``file:PATH``, or a registered source name."""
    from gpuscout.catalog.sources.file_source import FileSource
    from gpuscout.catalog.sources.registry import all_sources
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
            out.append(FileSource(Path(name[5:]).expanduser()))
        else:
            if registry is None:
                registry = all_sources()
            key = name.lower()
            if key not in registry:
                known = [*registry, SNAPSHOT_NAME, "file:PATH"]
                raise UnknownNameError("source", name, closest(name, known) or known[:6])
            out.append(registry[key])
    return out


def _describe(exc: BaseException) -> str:
    """Our own errors already name the source and the cause; others get their type name."""
    if isinstance(exc, GpuscoutError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


async def _run_one(
    store: Store,
    source: Source,
    client: httpx.AsyncClient,
    timeout_s: float,
    write_lock: asyncio.Lock,
) -> RefreshResult:
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    name = source.name

    def elapsed() -> float:
        return time.perf_counter() - t0

    async def record(status: str, error: str | None, rows: int = 0, dropped: int = 0) -> RefreshResult:
        async with write_lock:
            sid = await asyncio.to_thread(
                store.record_attempt,
                name,
                status,
                started_at=started,
                error=error,
                reason=error,
                row_count=rows,
                dropped_count=dropped,
            )
        return RefreshResult(name, status, rows, elapsed(), error, dropped, sid, tuple(source.warnings))

    try:
        missing = source.missing_credentials()
        if missing:
            raise CredentialsMissingError(name, missing)
        offers = await asyncio.wait_for(source.fetch(client), timeout=timeout_s)
    except CredentialsMissingError as exc:
        return RefreshResult(name, "skipped", 0, elapsed(), str(exc))
    except TimeoutError:
        return await record("failed", f"timed out after {timeout_s:g}s")
    except Exception as exc:  # one source's failure must never affect another
        return await record("failed", _describe(exc))
    try:
        last_good = await asyncio.to_thread(store.last_good_row_count, name)
        report = validate_offers(name, offers, last_good_count=last_good)
        dropped = report.invalid + len(source.dropped)
        if not report.ok:
            return await record("rejected", report.reason, rows=report.received, dropped=dropped)
        async with write_lock:
            written = await asyncio.to_thread(
                store.write_snapshot,
                name,
                report.offers,
                started_at=started,
                reason=report.reason,
                dropped_count=dropped,
                fallback=source.kind == "snapshot",
            )
        return RefreshResult(
            name, "ok", written.rows, elapsed(), None, dropped, written.snapshot_id, tuple(source.warnings)
        )
    except Exception as exc:  # e.g. the database refused the write
        try:
            return await record("failed", f"{type(exc).__name__}: {exc}")
        except Exception:
            return RefreshResult(name, "failed", 0, elapsed(), f"{type(exc).__name__}: {exc}")


async def refresh_async(
    store: Store,
    sources: Sequence[str | Source] | None = None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    client: httpx.AsyncClient | None = None,
    on_result: Callable[[RefreshResult], None] | None = None,
    on_start: Callable[[str], None] | None = None,
) -> list[RefreshResult]:
    """Refresh ``sources`` (names or :class:`Source` objects; None = :func:`default_sources`)
    concurrently. Returns one result per source, in the order given."""
    chosen = default_sources() if sources is None else resolve_sources(sources)
    lock = asyncio.Lock()
    own_client = client is None
    http = client or httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT}, follow_redirects=True, timeout=httpx.Timeout(30.0)
    )

    async def one(src: Source) -> RefreshResult:
        if on_start is not None:
            on_start(src.name)
        result = await _run_one(store, src, http, timeout_s, lock)
        if on_result is not None:
            on_result(result)
        return result

    try:
        return list(await asyncio.gather(*(one(s) for s in chosen)))
    finally:
        if own_client:
            await http.aclose()


def refresh(
    store: Store,
    sources: Sequence[str | Source] | None = None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    on_result: Callable[[RefreshResult], None] | None = None,
    on_start: Callable[[str], None] | None = None,
) -> list[RefreshResult]:
    """Synchronous :func:`refresh_async` (runs its own event loop)."""
    return asyncio.run(
        refresh_async(store, sources, timeout_s=timeout_s, on_result=on_result, on_start=on_start)
    )
