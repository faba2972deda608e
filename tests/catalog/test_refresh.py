"""Refresh: concurrent sources, each validated and stored on its own, results per source."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import respx

from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.refresh import (
    configured_source_names,
    default_timeout_s,
    offer_file_sources,
    refresh,
    resolve_sources,
)
from gpuscout.catalog.sources import lambda_cloud, vastai
from gpuscout.catalog.sources.file_source import FileSource
from gpuscout.catalog.sources.http import RetryPolicy
from gpuscout.catalog.sources.lambda_cloud import LambdaSource
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.catalog.sources.vastai import VastAISource
from gpuscout.catalog.store import Store
from gpuscout.errors import InvalidInputError, UnknownNameError
from tests.catalog.helpers import FakeSource, fake_failure, make_offer, many_offers, temp_store
from tests.catalog.sources.loopback import closed_port, loopback
from tests.catalog.sources.samples import sample
from tests.conftest import REPO

T = TypeVar("T")


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
    assert "dropped 1 invalid row: 1x GPU 'RTX4090' (48 GB)" in (status.last_reason or "")


# ---- a refresh always ends ----------------------------------------------------------------------


def _within(fn: Callable[[], T], seconds: float = 120.0) -> T:
    """Run ``fn`` in a thread: the test fails (instead of hanging) if it does not return in time."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(("ok", fn()))
        except BaseException as exc:
            box.append(("error", exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, f"did not end within {seconds}s"
    kind, value = box[0]
    if kind == "error":
        raise value
    return value  # type: ignore[no-any-return]


def _vast_answer() -> dict[str, Any]:
    return sample("vastai")["response"]


def _seed_vast(store: Store) -> int:
    with respx.mock:
        respx.post(vastai.BUNDLES_URL).mock(return_value=httpx.Response(200, json=_vast_answer()))
        [first] = refresh(store, [VastAISource()], timeout_s=30)
    assert first.ok
    return store.count_offers(OfferQuery(providers=("vastai",)))


@pytest.mark.parametrize("mode", ["hang", "trickle"])
def test_a_server_that_never_answers_ends_at_the_deadline_and_keeps_the_last_good_data(
    mode: str, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _seed_vast(store)
    with loopback(mode) as server:
        monkeypatch.setattr(vastai, "BUNDLES_URL", f"{server.url}/api/v0/bundles/")
        [result] = _within(lambda: refresh(store, [VastAISource()], timeout_s=3))
        assert server.connections >= 1
    assert result.status == "failed"
    assert "timed out after 3s" in (result.error or "") or "no complete answer within" in (result.error or "")
    assert store.count_offers(OfferQuery(providers=("vastai",))) == good  # last good data kept
    [status] = [s for s in store.sources_status() if s.source == "vastai"]
    assert status.last_status == "failed" and status.last_error == result.error
    monkeypatch.undo()
    assert _seed_vast(store) == good  # and a later refresh starts and ends normally


def test_dns_failure_and_refused_connections_end_with_a_reason(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vastai, "BUNDLES_URL", "http://gpuscout-test-no-such-host.invalid/api/v0/bundles/")
    monkeypatch.setattr(
        lambda_cloud, "INSTANCE_TYPES_URL", f"http://127.0.0.1:{closed_port()}/instance-types"
    )
    monkeypatch.setenv("LAMBDA_API_KEY", "k")
    fast = RetryPolicy(attempts=2, base_delay_s=0.01)
    results = _within(
        lambda: refresh(store, [VastAISource(retry=fast), LambdaSource(retry=fast)], timeout_s=10)
    )
    assert [r.status for r in results] == ["failed", "failed"]
    assert all("gave up after" in (r.error or "") or "timed out" in (r.error or "") for r in results)


class _Busy(FakeSource):
    """Parses for ever (CPU-bound, never awaits): the per-source deadline must still hold, and the
    other sources must not be failed with it."""

    def __init__(self, stop: threading.Event) -> None:
        super().__init__("busy", many_offers(2))
        self.stop = stop

    async def fetch(self, client):  # type: ignore[no-untyped-def]
        x = 0
        while not self.stop.is_set():
            x += 1  # no await: a coroutine like this would block a shared event loop
        return await super().fetch(client)


def test_cpu_bound_parsing_does_not_starve_the_other_sources(store: Store) -> None:
    stop = threading.Event()
    try:
        others = [FakeSource(f"o{i}", many_offers(2, provider=f"o{i}"), delay_s=0.2) for i in range(3)]
        results = _within(lambda: refresh(store, [_Busy(stop), *others], timeout_s=3))
    finally:
        stop.set()
    assert results[0].status == "failed" and "timed out after 3s" in (results[0].error or "")
    assert [r.status for r in results[1:]] == ["ok", "ok", "ok"]


def test_the_overall_deadline_bounds_the_refresh(store: Store) -> None:
    hung = FakeSource("hung", many_offers(2), delay_s=3600)
    [result] = _within(lambda: refresh(store, [hung], timeout_s=600, deadline_s=4))
    assert result.status == "failed" and "cut to the refresh's overall deadline" in (result.error or "")


def test_bad_timeouts_are_refused(store: Store) -> None:
    for bad in (0, -1, math.nan, math.inf):
        with pytest.raises(InvalidInputError, match="timeout"):
            refresh(store, [FakeSource("s", many_offers(1))], timeout_s=bad)


def test_the_timeout_default_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_timeout_s() == 120
    monkeypatch.setenv("GPUSCOUT_REFRESH_TIMEOUT", "7.5")
    assert default_timeout_s() == 7.5
    monkeypatch.setenv("GPUSCOUT_REFRESH_TIMEOUT", "-3")
    with pytest.raises(InvalidInputError, match="GPUSCOUT_REFRESH_TIMEOUT"):
        default_timeout_s()


def test_the_cli_refresh_ends_and_sources_shows_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    with Store(db) as s:
        good = _seed_vast(s)
    runner = CliRunner()
    with loopback("hang") as server:
        monkeypatch.setattr(vastai, "BUNDLES_URL", f"{server.url}/api/v0/bundles/")
        res = _within(lambda: runner.invoke(app, ["refresh", "-s", "vastai", "--timeout", "3", "--db", db]))
    assert res.exit_code == 1, res.output  # every requested source failed
    assert "vastai: failed" in res.output
    assert "0 refreshed, 1 failed" in res.output and "bundled snapshot" in res.output
    out = runner.invoke(app, ["sources", "--db", db, "--json"]).output
    [vast] = [s for s in json.loads(out) if s["source"] == "vastai"]
    assert vast["last_status"] == "failed" and vast["row_count"] == good and vast["state"] == "active"
    assert "timed out" in vast["last_error"] or "no complete answer" in vast["last_error"]
    table = runner.invoke(app, ["sources", "--db", db]).output
    assert "failed" in next(line for line in table.splitlines() if "vastai" in line)


def test_a_hanging_gpuhunt_download_ends_in_a_real_cli_process(tmp_path: Path) -> None:
    """The audit's R1: gpuhunt's urllib has no timeout; the CLI process must end by the deadline."""
    env = {**os.environ, "GPUSCOUT_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(REPO / "src")}
    env.pop("GPUHUNT_CATALOG_DIR", None)
    with loopback("hang") as server:
        env["GPUHUNT_CATALOG_URL"] = server.url
        cli = [sys.executable, "-c", "from gpuscout.cli import main; main()"]
        done = subprocess.run(
            [*cli, "refresh", "-s", "gpuhunt:aws", "--timeout", "4"],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert server.connections >= 1
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gpuhunt:aws: failed" in done.stdout
    assert "did not finish within" in done.stdout or "timed out after 4s" in done.stdout


def test_the_web_refresh_lock_is_released_after_a_hanging_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from gpuscout.web.app import create_app

    monkeypatch.setenv("GPUSCOUT_ADMIN_TOKEN", "t0ken")
    monkeypatch.setenv("GPUSCOUT_REFRESH_TIMEOUT", "3")
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}")
    auth = {"Authorization": "Bearer t0ken"}
    with loopback("trickle") as server, TestClient(app) as client:
        monkeypatch.setattr(vastai, "BUNDLES_URL", f"{server.url}/api/v0/bundles/")
        # TestClient runs the background refresh before returning: it must end by the deadline
        first = _within(lambda: client.post("/api/v1/refresh?source=vastai", headers=auth))
        assert first.status_code == 202
        assert not app.state.services.refresh_lock.locked()
        again = _within(lambda: client.post("/api/v1/refresh?source=vastai", headers=auth))
        assert again.status_code == 202  # not 409: the lock was released
        [vast] = [s for s in client.get("/api/v1/sources").json() if s["source"] == "vastai"]
        assert vast["last_status"] == "failed"


# ---- the validation gate sees what the adapter dropped ------------------------------------------


def _vast_rows(n: int, bad: int) -> dict[str, Any]:
    base = _vast_answer()["offers"]
    rows = []
    for k in range(n):
        row = dict(base[k % len(base)], id=7_000_000 + k, machine_id=10_000 + k)
        if k < bad:
            row["dph_total"] = row["min_bid"] = "abc"
        rows.append(row)
    return {"offers": rows}


@pytest.mark.parametrize(("bad", "status"), [(4, "rejected"), (1, "ok")])
def test_adapter_drops_count_at_the_gate(bad: int, status: str, store: Store) -> None:
    with respx.mock:
        respx.post(vastai.BUNDLES_URL).mock(return_value=httpx.Response(200, json=_vast_rows(10, bad)))
        [result] = refresh(store, [VastAISource()], timeout_s=30)
    assert result.status == status and result.dropped == bad
    assert result.drop_reasons == {"no positive price": bad}
    [s] = [s for s in store.sources_status() if s.source == "vastai"]
    assert s.last_drop_reasons == {"no positive price": bad} and s.last_dropped_count == bad
    if status == "rejected":
        assert "4 invalid (40% of 10 feed rows, more than 20%)" in (result.error or "")
        assert s.current_snapshot_id is None
    else:
        assert "dropped 1 invalid row: 1x no positive price" in (s.last_reason or "")


# ---- which sources a refresh may run ------------------------------------------------------------


def test_a_retired_source_is_refused_with_the_reason() -> None:
    with pytest.raises(
        InvalidInputError, match="'cudo' is retired: Cudo Compute's public platform shut down"
    ):
        resolve_sources(["cudo"])


def test_only_configured_offer_files_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine, other = tmp_path / "mine.csv", tmp_path / "other.csv"
    for f in (mine, other):
        f.write_text("provider,gpu,price_usd_per_hour\nonprem,H100 SXM,1.5\n")
    monkeypatch.setenv("GPUSCOUT_OFFER_FILES", str(mine))
    assert [s.name for s in resolve_sources([f"file:{mine}"], configured_only=True)] == [f"file:{mine}"]
    for name in (f"file:{other}", "file:/etc/passwd", f"file:{tmp_path}/../{tmp_path.name}/other.csv"):
        with pytest.raises(InvalidInputError, match="only the offer files configured on this server"):
            resolve_sources([name], configured_only=True)
    names = configured_source_names()
    assert f"file:{mine.resolve()}" in names and "snapshot" in names and "vastai" in names
    assert "cudo" not in names and f"file:{other.resolve()}" not in names


def test_the_history_of_a_retired_source_stays_readable(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    db = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    with Store(db) as s:  # a store from before Cudo shut down
        s.write_snapshot("cudo", many_offers(3, provider="cudo"))
        s.record_attempt("cudo", "failed", error="cudo: gave up after 4 attempts: ConnectError")
    runner = CliRunner()
    out = runner.invoke(app, ["sources", "--db", db, "--json"])
    assert out.exit_code == 0, out.output
    [cudo] = [r for r in json.loads(out.output) if r["source"] == "cudo"]
    assert cudo["state"] == "retired" and "2026-03-31" in cudo["retired"] and cudo["row_count"] == 3
    table = runner.invoke(app, ["sources", "--db", db]).output
    assert "retired" in next(line for line in table.splitlines() if line.startswith("│ cudo"))
    assert "cudo: retired - Cudo Compute's public platform shut down on 2026-03-31" in table
    with Store(db) as s:
        assert [r["source"] for r in s.snapshots("cudo")] == ["cudo", "cudo"]


def test_drop_reasons_are_shown_by_sources(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    db = f"sqlite:///{tmp_path / 'd.sqlite3'}"
    with Store(db) as s, respx.mock:
        respx.post(vastai.BUNDLES_URL).mock(return_value=httpx.Response(200, json=_vast_rows(10, 1)))
        [result] = refresh(s, [VastAISource()], timeout_s=30)
    assert result.ok
    runner = CliRunner()
    [vast] = [r for r in json.loads(runner.invoke(app, ["sources", "--db", db, "--json"]).output)
              if r["source"] == "vastai"]  # fmt: skip
    assert vast["last_drop_reasons"] == {"no positive price": 1} and vast["last_dropped_count"] == 1
    table = runner.invoke(app, ["sources", "--db", db]).output
    assert "1: 1x no positive price" in next(line for line in table.splitlines() if "vastai" in line)


def test_a_terminal_gets_one_progress_line_per_source(store: Store) -> None:
    import io

    from rich.console import Console

    from gpuscout.cli.catalog_cmds import _refresh_with_progress

    buffer = io.StringIO()
    terminal = Console(file=buffer, force_terminal=True, width=160, color_system=None)
    sources = [FakeSource("alpha", many_offers(2, provider="alpha")), fake_failure("beta", "HTTP 503")]
    results = _refresh_with_progress(terminal, store, sources, 30, None)
    assert [r.status for r in results] == ["ok", "failed"]
    shown = buffer.getvalue()
    assert "alpha: ok 2 rows" in shown and "beta: failed 0 rows" in shown and "HTTP 503" in shown
