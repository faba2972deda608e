"""PostgreSQL specifics (and the same guarantees on SQLite where they apply): URL forms,
concurrent first opens, the bundled snapshot and the CLI on a PostgreSQL store."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from gpuscout.catalog import api
from gpuscout.catalog.db import make_engine as _make_engine
from gpuscout.catalog.migrations import LATEST_VERSION
from gpuscout.catalog.store import Store
from gpuscout.cli import app
from tests.catalog.helpers import STORE_KINDS, pg_schema_url


@pytest.mark.parametrize(
    "url",
    ["postgresql://u:p@db.example/x", "postgres://u:p@db.example/x", "postgresql+psycopg://u:p@db.example/x"],
)
def test_postgres_urls_use_psycopg(url: str) -> None:
    engine = _make_engine(url)  # lazy: nothing connects
    assert engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg"


@pytest.fixture(params=STORE_KINDS)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    else:
        with pg_schema_url() as url:
            yield url


def test_concurrent_first_opens_migrate_once(fresh_url: str) -> None:
    errors: list[BaseException] = []
    stores: list[Store] = []
    lock = threading.Lock()

    def open_one() -> None:
        try:
            store = Store(fresh_url)
            with lock:
                stores.append(store)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    try:
        assert errors == []
        with stores[0].engine.connect() as conn:
            versions = (
                conn.execute(sa.text("SELECT version FROM schema_version ORDER BY version")).scalars().all()
            )
        assert versions == list(range(1, LATEST_VERSION + 1))
    finally:
        for s in stores:
            s.close()


@pytest.mark.postgres
def test_bundled_snapshot_and_cli_on_postgres() -> None:
    with pg_schema_url() as url:
        with api.open_store(url) as store:
            assert store.dialect == "postgresql"
            assert store.count_offers() > 700  # the bundled snapshot: 736 offers (data/snapshot/)
            [status] = store.sources_status()
            assert status.source == "snapshot" and status.age_s is None
        result = CliRunner().invoke(app, ["offers", "--gpu", "H100", "--sort", "price_per_gpu", "--db", url])
        assert result.exit_code == 0, result.output
        rows = [line for line in result.output.splitlines() if line.startswith("│")]
        assert rows and all("unknown" in r and "snapshot" in r for r in rows)


def test_opening_and_reading_never_wait_for_a_writer(fresh_url: str) -> None:
    """A refresh holding the write lock (SQLite) / an open write transaction (PostgreSQL) must not
    block another process from opening the store and reading the current offers."""
    from tests.catalog.helpers import many_offers

    with Store(fresh_url) as first:
        first.write_snapshot("s", many_offers(3))
        results: list[int] = []
        with first._write_engine.begin() as conn:  # a writer mid-transaction
            conn.execute(sa.text("UPDATE snapshots SET reason = 'writing' WHERE id = 1"))

            def read() -> None:
                with Store(fresh_url) as other:
                    results.append(other.count_offers())

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            reader.join(15)
            finished = not reader.is_alive()
        assert finished and results == [3]


def test_the_freshness_banner_reads_the_same_figures_on_both_stores(fresh_url: str) -> None:
    """The web's banner counts each current snapshot's rows and stale rows: through sqlite3 on SQLite,
    through the Store's status on PostgreSQL; the same figures either way, and ``/`` shows them."""
    from fastapi.testclient import TestClient

    from gpuscout.catalog.reader import SqliteReader
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices
    from tests.catalog.helpers import make_offer

    with api.open_store(fresh_url) as store:
        store.write_snapshot("feed", [make_offer(instance_type=f"i{k}", stale=k < 2) for k in range(5)])
    services = WebServices(fresh_url, cache_seconds=0)
    assert isinstance(services.reader, SqliteReader) == fresh_url.startswith("sqlite")
    banner = {s.source: (s.row_count, s.stale_rows, s.fallback) for s in services.current_sources()}
    stored = {s.source: (s.row_count, s.stale_rows, s.fallback) for s in services.stored_sources()}
    assert banner == {k: v for k, v in stored.items() if k in banner} and banner["feed"] == (5, 2, False)
    assert TestClient(create_app(fresh_url, services=services)).get("/").status_code == 200
