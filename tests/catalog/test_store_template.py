"""The packaged template of a fresh store: the same store a first open builds, written at once."""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gpuscout.catalog import store_template
from gpuscout.catalog.api import open_store
from gpuscout.catalog.migrations import LATEST_VERSION
from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.reader import SqliteReader, open_reader
from gpuscout.catalog.store import Store

QUERIES = (
    OfferQuery(limit=None),
    OfferQuery(gpus=("H100-SXM", "H100-PCIe"), sort="tflops_per_dollar"),
    OfferQuery(spot=True, sort="spot_price", limit=20),
    OfferQuery(regions=("us",), sort="age"),
)


def test_the_shipped_template_is_the_store_a_first_open_builds_today() -> None:
    """Regenerate with `python -m gpuscout.catalog.store_template` when this fails (the schema, the
    accelerator specs, the bundled snapshot or how its rows are stored changed)."""
    shipped = store_template.template_text()
    assert shipped is not None
    assert json.loads(shipped) == store_template.build()
    assert shipped == store_template.render(json.loads(shipped))


def test_a_fresh_store_from_the_template_answers_as_a_built_one(tmp_path: Path) -> None:
    built = open_store(f"sqlite:///{tmp_path / 'built.sqlite3'}")
    url = f"sqlite:///{tmp_path / 'new' / 'catalog.sqlite3'}"
    reader = open_reader(url)
    assert isinstance(reader, SqliteReader)  # ready as written: nothing to migrate, sync or load
    for query in QUERIES:
        assert reader.current_offers(query) == built.current_offers(query)
        assert reader.offer_totals(query) == built.offer_totals(query)
    reader.close()
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["catalog.sqlite3"]  # no leftovers
    with Store(url) as store:  # and the Store finds nothing to do on it either
        assert store.snapshots()[0]["status"] == "ok" and len(store.snapshots()) == 1
        statuses = {s.source: s for s in store.sources_status()}
        before = {s.source: s for s in built.sources_status()}["snapshot"]
        assert (statuses["snapshot"].row_count, statuses["snapshot"].stale_rows) == (
            before.row_count,
            before.stale_rows,
        )
    built.close()
    mode = (tmp_path / "new" / "catalog.sqlite3").stat().st_mode & 0o777
    assert mode == (tmp_path / "built.sqlite3").stat().st_mode & 0o777


def test_the_template_stamps_the_first_open_with_its_time(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    before = datetime.now(UTC)
    assert store_template.install(path)
    with Store(f"sqlite:///{path}") as store:
        status = {s.source: s for s in store.sources_status()}["snapshot"]
    applied = sqlite3.connect(path).execute("SELECT applied_at FROM schema_version").fetchall()
    times = [status.current_loaded_at, status.last_attempt_at]
    times += [datetime.fromisoformat(a).replace(tzinfo=UTC) for (a,) in applied]
    assert len(times) == 2 + LATEST_VERSION  # the snapshot's two times and each migration's
    assert all(t is not None and before - timedelta(seconds=1) <= t for t in times)


def test_an_existing_store_is_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    path.write_bytes(b"")
    assert not store_template.install(path)
    assert path.read_bytes() == b""


def test_of_several_first_opens_at_once_exactly_one_writes_the_store(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    text = store_template.template_text()
    wrote: list[bool] = []
    threads = [
        threading.Thread(target=lambda: wrote.append(store_template.install(path, text))) for _ in range(6)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(wrote) == [False] * 5 + [True]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.sqlite3"]
    reader = open_reader(f"sqlite:///{path}")
    assert isinstance(reader, SqliteReader)
    reader.close()


def test_a_template_that_an_edit_left_behind_gives_a_store_that_is_then_synced(tmp_path: Path) -> None:
    """A stale template (here: other accelerator specs) fails the ready check; the Store then
    brings the store up to date, so the answers are those of a built store."""
    template = json.loads(store_template.template_text() or "{}")
    rows = template["tables"]["accelerators"]["rows"]
    rows[0][2] = (rows[0][2] or 1.0) * 2  # another bandwidth
    path = tmp_path / "catalog.sqlite3"
    assert store_template.install(path, json.dumps(template))
    reader = open_reader(f"sqlite:///{path}")
    assert isinstance(reader, Store)
    built = open_store(f"sqlite:///{tmp_path / 'built.sqlite3'}")
    query = OfferQuery(sort="bandwidth_per_dollar", limit=None)
    assert reader.current_offers(query) == built.current_offers(query)
    reader.close()
    built.close()


def test_a_broken_template_leaves_the_first_open_to_the_store(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    with pytest.raises(json.JSONDecodeError):
        store_template.install(path, "{not json")
    assert not path.exists()
    with pytest.raises(sqlite3.Error):
        store_template.install(path, json.dumps({"schema": ["CREATE TABLE"], "tables": {}}))
    assert sorted(p.name for p in tmp_path.iterdir()) == []
