"""Refresh: concurrent sources, each validated and stored on its own, results per source."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from gpuscout.catalog.refresh import offer_file_sources, refresh, resolve_sources
from gpuscout.catalog.sources.file_source import FileSource
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.catalog.store import Store
from gpuscout.errors import UnknownNameError
from tests.catalog.helpers import FakeSource, fake_failure, make_offer, many_offers, temp_store


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    with temp_store("sqlite", tmp_path) as s:
        yield s


def test_each_source_gets_its_own_result(store: Store) -> None:
    results = refresh(
        store,
        [
            FakeSource("good", many_offers(4, provider="g")),
            fake_failure("broken", "HTTP 500 from https://x.test"),
            FakeSource("garbage", [make_offer(provider="x", price_usd_per_hour=1e6)]),
            FakeSource("locked", many_offers(2), needs=("NOPE_KEY",)),
        ],
    )
    by = {r.source: r for r in results}
    assert [r.source for r in results] == ["good", "broken", "garbage", "locked"]
    assert by["good"].status == "ok" and by["good"].rows == 4 and by["good"].snapshot_id is not None
    assert by["broken"].status == "failed" and "HTTP 500" in (by["broken"].error or "")
    assert by["garbage"].status == "rejected" and "invalid" in (by["garbage"].error or "")
    assert by["locked"].status == "skipped" and "NOPE_KEY" in (by["locked"].error or "")
    assert all(r.elapsed_s >= 0 for r in results)
    assert store.count_offers() == 4
    status = {s.source: s for s in store.sources_status()}
    assert status["broken"].last_status == "failed" and status["broken"].current_snapshot_id is None
    assert status["garbage"].last_status == "rejected"
    assert "locked" not in status  # a skipped source leaves no trace in the history


class _BarrierSource(FakeSource):
    """Returns only once all ``n`` barrier sources have started: fails unless run concurrently."""

    def __init__(self, name: str, barrier: threading.Barrier) -> None:
        super().__init__(name, many_offers(2, provider=name))
        self.barrier = barrier

    async def fetch(self, client):  # type: ignore[no-untyped-def]
        self.barrier.wait()  # blocks this source's own worker, not the refresh (BrokenBarrierError if alone)
        return await super().fetch(client)


def test_sources_run_concurrently_and_timeouts_are_per_source(store: Store) -> None:
    barrier = threading.Barrier(5, timeout=60)
    sources = [_BarrierSource(f"q{i}", barrier) for i in range(5)]
    hung = FakeSource("hung", many_offers(2), delay_s=3600)
    results = refresh(store, [hung, *sources], timeout_s=2.0)
    assert results[0].status == "failed" and "timed out after 2s" in (results[0].error or "")
    assert [r.status for r in results[1:]] == ["ok"] * 5
    assert store.count_offers() == 10


def test_a_failure_keeps_the_last_good_data(store: Store) -> None:
    refresh(store, [FakeSource("s", many_offers(6))])
    refresh(store, [fake_failure("s")])
    refresh(store, [FakeSource("s", many_offers(2))])  # fewer than half: rejected
    assert store.count_offers() == 6
    [status] = store.sources_status()
    assert status.last_status == "rejected" and "dropped to 2 from 6" in (status.last_error or "")
    assert [r["status"] for r in store.snapshots("s")] == ["rejected", "failed", "ok"]


def test_an_unexpected_exception_is_contained(store: Store) -> None:
    results = refresh(store, [FakeSource("odd", error=KeyError("price")), FakeSource("ok", many_offers(1))])
    assert results[0].status == "failed" and "KeyError" in (results[0].error or "")
    assert results[1].ok


def test_resolve_sources_names(tmp_path: Path) -> None:
    f = tmp_path / "mine.csv"
    f.write_text("provider,gpu,price_usd_per_hour\nonprem,H100 SXM,1.5\n")
    made = resolve_sources(["snapshot", f"file:{f}"])
    assert isinstance(made[0], SnapshotSource) and isinstance(made[1], FileSource)
    with pytest.raises(UnknownNameError) as err:
        resolve_sources(["no-such-source"])
    assert "snapshot" in str(err.value) or err.value.suggestions


def test_offer_files_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, store: Store
) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.yaml"
    a.write_text("provider,gpu,price_usd_per_hour\nonprem,H100 SXM,1.5\n")
    b.write_text("- {provider: reserved, gpu: A100 PCIe 80GB, price_usd_per_gpu_hour: 0.9, gpu_count: 8}\n")
    monkeypatch.setenv("GPUSCOUT_OFFER_FILES", f"{a}{os.pathsep}{b}")
    sources = offer_file_sources()
    assert [s.name for s in sources] == [f"file:{a.resolve()}", f"file:{b.resolve()}"]
    results = refresh(store, sources)
    assert [r.status for r in results] == ["ok", "ok"]
    assert {o.provider for o in store.current_offers()} == {"onprem", "reserved"}


def test_snapshot_source_through_refresh(store: Store) -> None:
    [result] = refresh(store, ["snapshot"])
    assert result.ok and result.rows > 700 and result.dropped > 0  # 736 offers, 1 dropped
    [status] = store.sources_status()
    assert status.fallback and status.age_s is None
