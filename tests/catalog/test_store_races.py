"""Races between processes sharing one store: first writers of a source, first opens of a fresh store,
and a page read while a refresh lands (issue 14, defects 9 and 16)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from gpuscout.catalog import api
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.store import Store
from tests.catalog.helpers import STORE_KINDS, many_offers, pg_schema_url

DEADLINE_S = 60.0


def _waiting_on_the_pointer(conn: sa.Connection) -> int:
    """Backends of this database waiting for a lock while writing the current-snapshot pointer."""
    return int(
        conn.execute(
            sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND query ILIKE '%current_snapshot%'"
            )
        ).scalar_one()
    )


@pytest.mark.postgres
def test_two_first_refreshes_of_a_new_source_both_succeed() -> None:
    """A second writer of a source's *first* pointer waits for the first and then moves the pointer
    (an upsert), instead of failing on the primary key (audit: 1 of 20 first refreshes failed)."""
    with pg_schema_url() as url, Store(url) as first, Store(url) as second, Store(url) as watcher:
        errors: list[BaseException] = []
        saw_wait: list[bool] = []
        held = False

        def second_writer() -> None:
            try:
                second.write_snapshot("newcloud", many_offers(2, provider="newcloud", instance_prefix="b"))
            except BaseException as exc:  # reported below
                errors.append(exc)

        other = threading.Thread(target=second_writer, daemon=True)

        def hold_the_pointer(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            # After the first writer wrote its (uncommitted) pointer row: start the second writer and
            # let the first commit only once the second is blocked on that row.
            nonlocal held
            if held or not statement.lstrip().upper().startswith("INSERT INTO CURRENT_SNAPSHOT"):
                return
            held = True
            other.start()
            end = time.monotonic() + DEADLINE_S
            while time.monotonic() < end:
                with watcher.engine.connect() as conn:  # a new transaction: fresh activity statistics
                    if _waiting_on_the_pointer(conn):
                        saw_wait.append(True)
                        return
                time.sleep(0.02)

        sa.event.listen(first.engine, "after_cursor_execute", hold_the_pointer)
        written = first.write_snapshot("newcloud", many_offers(3, provider="newcloud", instance_prefix="a"))
        other.join(DEADLINE_S)
        assert saw_wait, "the second writer never waited for the first one's pointer row"
        assert errors == []
        [status] = [s for s in watcher.sources_status() if s.source == "newcloud"]
        assert status.current_snapshot_id is not None and status.current_snapshot_id > written.snapshot_id
        assert watcher.count_offers(OfferQuery(providers=("newcloud",))) == 2  # the later snapshot is current


@contextmanager
def _fresh_url(kind: str, tmp_path: Path, n: int) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / f'fresh-{n}.sqlite3'}"
    else:
        with pg_schema_url() as url:
            yield url


def _open_at_once(url: str, workers: int) -> tuple[list[Store], list[BaseException]]:
    start = threading.Barrier(workers)
    errors: list[BaseException] = []
    stores: list[Store] = []
    lock = threading.Lock()

    def open_one() -> None:
        try:
            start.wait(DEADLINE_S)
            store = api.open_store(url)
            with lock:
                stores.append(store)
        except BaseException as exc:  # reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=open_one, daemon=True) for _ in range(workers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(DEADLINE_S)
    return stores, errors


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_concurrent_first_opens_load_the_bundled_snapshot_once(kind: str, tmp_path: Path) -> None:
    """Several workers opening a fresh store at once: no error, and one bundled snapshot, not one each
    (audit: 5 of 30 concurrent first opens on PostgreSQL raised IntegrityError)."""
    for n in range(3):
        with _fresh_url(kind, tmp_path, n) as url:
            stores, errors = _open_at_once(url, workers=4)
            try:
                assert errors == []
                snapshots = stores[0].snapshots("snapshot")
                assert len(snapshots) == 1 and snapshots[0]["status"] == "ok"
                assert stores[0].count_offers() > 700  # the bundled snapshot (736 offers)
            finally:
                for s in stores:
                    s.close()


def test_a_page_and_its_total_come_from_the_same_snapshot(tmp_path: Path) -> None:
    """A refresh landing between the page's rows and its total must not pair old rows with the new
    total (audit: 1 of 25 page reads during refreshes did)."""
    from gpuscout.catalog.reader import SqliteReader
    from gpuscout.web.filters import OfferFilters
    from gpuscout.web.services import WebServices

    url = f"sqlite:///{tmp_path / 'pages.sqlite3'}"
    with Store(url) as writer:
        writer.write_snapshot("bigcloud", many_offers(3, provider="bigcloud", instance_prefix="A"))
    services = WebServices(url, cache_seconds=0)
    landed = False

    def refresh_lands(statement: str) -> None:
        # as the page's rows are read, another process stores a bigger snapshot
        nonlocal landed
        if landed or "LIMIT" not in statement.upper() or "FROM offers" not in statement:
            return
        landed = True
        with Store(url) as other:
            other.write_snapshot("bigcloud", many_offers(5, provider="bigcloud", instance_prefix="B"))

    reader = services.reader
    if isinstance(reader, SqliteReader):  # the web reads a SQLite store with sqlite3
        conn = reader._connection()
        conn.set_trace_callback(refresh_lands)
        page = services.offer_page(OfferFilters(provider="bigcloud", per_page=2))
        conn.set_trace_callback(None)
    else:
        listener = lambda _c, _cur, statement, *_a: refresh_lands(statement)  # noqa: E731
        sa.event.listen(services.store.engine, "after_cursor_execute", listener)
        page = services.offer_page(OfferFilters(provider="bigcloud", per_page=2))
        sa.event.remove(services.store.engine, "after_cursor_execute", listener)
    assert landed
    assert {r.offer.instance_type[0] for r in page.rows} == {"A"}
    assert page.total == 3  # the total of the snapshot the rows came from
    after = services.offer_page(OfferFilters(provider="bigcloud", per_page=2))
    assert after.total == 5 and {r.offer.instance_type[0] for r in after.rows} == {"B"}
