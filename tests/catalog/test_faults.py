"""Fault isolation: one source's failure never affects another source, the stored data or a read.

Every direct adapter runs against respx-mocked endpoints serving its recorded payload from
tests/fixtures/reference/provider_samples. Each fault is injected into one source (with two
other adapters as controls) in a second refresh; the controls must still refresh, the faulty
one's last good data must stay current, and its error must be recorded and shown by
``sources_status``. ``benchmarks/robustness.py`` replays the audit's longer fault matrix through
a real local server.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.query import OfferQuery
from gpuscout.catalog.refresh import refresh
from gpuscout.catalog.sources import (
    akash,
    jarvislabs,
    lambda_cloud,
    lium,
    primeintellect,
    runpod,
    scaleway,
    tensordock,
    vastai,
    verda,
)
from gpuscout.catalog.sources.base import Source
from gpuscout.catalog.sources.http import HttpSource, RetryPolicy
from gpuscout.catalog.store import Store
from tests.catalog.helpers import STORE_KINDS, many_offers, temp_store
from tests.catalog.sources.samples import SleepRecorder, sample
from tests.catalog.sources.test_akash import A100_LIVE, H100_OCP

FAST_RETRY = RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.02)
Route = tuple[str, str]  # (method, url)


def _runpod() -> dict[str, Any]:
    rtx = sample("runpod_rest_v2")["gpus"][0]
    h100 = {**rtx, "id": "NVIDIA H100 80GB HBM3", "name": "H100 SXM", "memory": 80}
    h100["price"] = {"secure": 2.69, "community": 2.39, "serverless": None}
    return {"gpus": [rtx, h100]}


def _scaleway() -> scaleway.ScalewaySource:
    source = scaleway.ScalewaySource()
    source.zones = ("fr-par-2",)
    return source


@dataclass(frozen=True)
class Adapter:
    """How to run one adapter against its recorded payload, and where a fault goes."""

    make: Callable[[], HttpSource]
    main: Route  # the endpoint faults are injected on
    good: Callable[[], Any]  # its good answer
    renamed: str  # a field a "schema change" renames in every row
    empty: Any  # an empty answer of the right shape
    others: dict[Route, Callable[[], Any]] = field(default_factory=dict)  # other endpoints (good)
    env: dict[str, str] = field(default_factory=dict)


ADAPTERS: dict[str, Adapter] = {
    "vastai": Adapter(
        vastai.VastAISource,
        ("POST", vastai.BUNDLES_URL),
        lambda: sample("vastai")["response"],
        "gpu_name",
        {"offers": []},
    ),
    "lambda": Adapter(
        lambda_cloud.LambdaSource,
        ("GET", lambda_cloud.INSTANCE_TYPES_URL),
        lambda: sample("lambda")["response"],
        "price_cents_per_hour",
        {"data": {}},
        env={"LAMBDA_API_KEY": "k"},
    ),
    "runpod": Adapter(
        runpod.RunPodSource,
        ("GET", runpod.GPUS_URL),
        _runpod,
        "memory",
        {"gpus": []},
        env={"RUNPOD_API_KEY": "k"},
    ),
    "tensordock": Adapter(
        tensordock.TensorDockSource,
        ("GET", tensordock.LOCATIONS_URL),
        lambda: sample("tensordock_v2"),
        "price_per_hr",
        {"data": {"locations": []}},
        env={"TENSORDOCK_API_KEY": "k"},
    ),
    "verda": Adapter(
        verda.VerdaSource,
        ("GET", verda.INSTANCE_TYPES_URL),
        lambda: sample("verda_v1"),
        "price_per_hour",
        [],
        others={
            ("POST", verda.TOKEN_URL): lambda: {"access_token": "tok"},
            ("GET", verda.AVAILABILITY_URL): lambda: sample("verda_datacrunch")["availability_items"],
        },
        env={"VERDA_CLIENT_ID": "id", "VERDA_CLIENT_SECRET": "secret"},
    ),
    "scaleway": Adapter(
        _scaleway,
        ("GET", scaleway.servers_url("fr-par-2")),
        lambda: sample("scaleway_instance"),
        "hourly_price",
        {"servers": {}},
        others={
            ("GET", scaleway.availability_url("fr-par-2")): lambda: sample("scaleway_instance.availability")
        },
    ),
    "akash": Adapter(
        akash.AkashSource,
        ("GET", akash.GPU_PRICES_URL),
        lambda: {"models": [A100_LIVE, H100_OCP]},
        "model",
        {"models": []},
    ),
    "lium": Adapter(
        lium.LiumSource, ("GET", lium.NODES_URL), lambda: sample("lium"), "gpu_model", {"nodes": []}
    ),
    "primeintellect": Adapter(
        primeintellect.PrimeIntellectSource,
        ("GET", primeintellect.AVAILABILITY_URL),
        lambda: {"items": [sample("primeintellect")], "totalCount": 1},
        "gpuType",
        {"items": [], "totalCount": 0},
        env={"PRIME_INTELLECT_API_KEY": "k"},
    ),
    "jarvislabs": Adapter(
        jarvislabs.JarvislabsSource,
        ("GET", jarvislabs.SERVER_META_URL),
        lambda: sample("jarvislabs"),
        "gpu_type",
        {"server_meta": []},
        env={"JL_API_KEY": "k"},
    ),
}
NAMES = list(ADAPTERS)


def controls_of(name: str) -> list[str]:
    """Two other adapters that must keep refreshing while ``name`` is faulty."""
    i = NAMES.index(name)
    return [NAMES[(i + 1) % len(NAMES)], NAMES[(i + 2) % len(NAMES)]]


def _rename(obj: Any, old: str, new: str) -> Any:
    if isinstance(obj, dict):
        return {(new if k == old else k): _rename(v, old, new) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rename(v, old, new) for v in obj]
    return obj


def _inflate_prices(obj: Any, pricey: bool = False) -> Any:
    """Every price-like number x10,000 (a unit slip: cents or per-month read as dollars/hour): numbers
    (or numeric strings) under a key naming a price, at any depth below it."""
    if isinstance(obj, dict):
        return {k: _inflate_prices(v, pricey or any(w in k.lower() for w in ("price", "dph", "bid")))
                for k, v in obj.items()}  # fmt: skip
    if isinstance(obj, list):
        return [_inflate_prices(v, pricey) for v in obj]
    if pricey and isinstance(obj, int | float) and not isinstance(obj, bool):
        return obj * 10_000
    if pricey and isinstance(obj, str):
        try:
            return str(float(obj) * 10_000)
        except ValueError:
            return obj
    return obj


def _fault(kind: str, name: str) -> dict[str, Any]:
    """respx ``mock`` kwargs for one fault on source ``name``."""
    spec = ADAPTERS[name]
    good, renamed_field, empty = spec.good, spec.renamed, spec.empty
    if kind == "connect_timeout":
        return {"side_effect": httpx.ConnectTimeout("connect timed out")}
    if kind == "read_timeout":
        return {"side_effect": httpx.ReadTimeout("read timed out")}
    if kind == "http_500":
        return {"return_value": httpx.Response(500, text="internal error")}
    if kind == "http_429":
        return {"return_value": httpx.Response(429, headers={"Retry-After": "7"}, text="slow down")}
    if kind == "malformed_json":
        return {
            "return_value": httpx.Response(
                200, content=b'{"offers": [ {"id": 1,', headers={"content-type": "application/json"}
            )
        }
    if kind == "schema_change":
        return {
            "return_value": httpx.Response(200, json=_rename(good(), renamed_field, renamed_field + "_v2"))
        }
    if kind == "empty":
        return {"return_value": httpx.Response(200, json=empty)}
    if kind == "absurd_prices":
        return {"return_value": httpx.Response(200, json=_inflate_prices(good()))}
    raise AssertionError(kind)


FAULTS = [
    "connect_timeout",
    "read_timeout",
    "http_500",
    "http_429",
    "malformed_json",
    "schema_change",
    "empty",
    "absurd_prices",
]


def _sources(names: list[str], sleep: SleepRecorder) -> list[Source]:
    made = [ADAPTERS[n].make() for n in names]
    for s in made:
        s.sleep, s.retry = sleep, FAST_RETRY
    return list(made)


def _mock_all(router: respx.MockRouter, names: list[str], faulty: dict[str, dict[str, Any]]) -> None:
    for name in names:
        spec = ADAPTERS[name]
        for (method, url), good in spec.others.items():
            router.route(method=method, url=url).mock(return_value=httpx.Response(200, json=good()))
        method, url = spec.main
        route = router.route(method=method, url=url)
        if name in faulty:
            route.mock(**faulty[name])
        else:
            route.mock(return_value=httpx.Response(200, json=spec.good()))


@pytest.fixture(params=STORE_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with temp_store(request.param, tmp_path) as s:
        yield s


@pytest.mark.parametrize("faulty", NAMES)
@pytest.mark.parametrize("kind", FAULTS)
def test_fault_in_one_source_is_isolated(
    store: Store, faulty: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [faulty, *controls_of(faulty)]
    for name in names:
        for var, value in ADAPTERS[name].env.items():
            monkeypatch.setenv(var, value)
    sleep = SleepRecorder()
    with respx.mock(assert_all_called=False) as router:
        _mock_all(router, names, {})
        first = refresh(store, _sources(names, sleep), timeout_s=30)
    assert [r.status for r in first] == ["ok", "ok", "ok"], first
    before = {s.source: s for s in store.sources_status()}
    faulty_offers = store.current_offers(OfferQuery(providers=(faulty,)))
    assert faulty_offers

    with respx.mock(assert_all_called=False) as router:
        _mock_all(router, names, {faulty: _fault(kind, faulty)})
        second = {r.source: r for r in refresh(store, _sources(names, sleep), timeout_s=30)}

    # the faulty source failed or was rejected, with a reason
    bad = second[faulty]
    assert bad.status in ("failed", "rejected"), bad
    assert bad.error
    # every other source refreshed normally: a new current snapshot
    after = {s.source: s for s in store.sources_status()}
    for name in names[1:]:
        assert second[name].status == "ok", second[name]
        assert after[name].current_snapshot_id == second[name].snapshot_id != before[name].current_snapshot_id
    # the faulty source's last good data is still current, and still what a read returns
    assert after[faulty].current_snapshot_id == before[faulty].current_snapshot_id
    assert store.current_offers(OfferQuery(providers=(faulty,))) == faulty_offers
    # the error is recorded and shown
    assert after[faulty].last_status == bad.status
    assert after[faulty].last_error == bad.error
    if kind == "http_429":
        assert 7.0 in sleep.delays  # Retry-After honoured before giving up
    if kind == "absurd_prices":
        assert bad.status == "rejected" and "plausible band" in bad.error
    if kind == "empty":
        assert bad.status == "rejected" and "empty" in bad.error
    if kind == "schema_change":
        assert "schema change" in bad.error


def test_error_is_shown_by_the_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    names = ["vastai", "lambda", "runpod"]
    monkeypatch.setenv("LAMBDA_API_KEY", "k")
    monkeypatch.setenv("RUNPOD_API_KEY", "k")
    db = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    with Store(db) as store:
        sleep = SleepRecorder()
        with respx.mock(assert_all_called=False) as router:
            _mock_all(router, names, {"vastai": _fault("http_500", "vastai")})
            refresh(store, _sources(names, sleep), timeout_s=30)
    out = CliRunner().invoke(app, ["sources", "--db", db]).output
    row = next(line for line in out.splitlines() if "vastai" in line)
    assert "failed" in row and "gave up" in row
    assert "500" in out  # the long error wraps onto the next lines of the cell


# ---- readers never see half a refresh ------------------------------------------------------


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_concurrent_reader_never_sees_a_partial_snapshot(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader thread reads in a loop while big snapshots are written (in many INSERT batches on
    SQLite, its indexes dropped and built again; in one COPY stream on PostgreSQL); and once per write
    it is made to read *in the middle* of the writing transaction, 300 rows in. Every read must see
    exactly one whole generation."""
    import gpuscout.catalog.store as store_module

    monkeypatch.setattr(store_module, "_INSERT_CHUNK", 150)
    sizes = [600, 1200, 900]
    with temp_store(kind, tmp_path) as store:
        store.write_snapshot("big", many_offers(500, instance_prefix="g0"))
        valid = {"g0": 500}
        mid_write, mid_read_done, stop = threading.Event(), threading.Event(), threading.Event()
        problems: list[str] = []
        reads = {"loop": 0, "mid": 0}

        def check() -> None:
            offers = store.current_offers(OfferQuery(limit=None))
            gens = {o.instance_type.split("-")[0] for o in offers}
            if len(gens) != 1:
                problems.append(f"mixed generations {sorted(gens)}")
                return
            [gen] = gens
            if valid.get(gen) != len(offers):
                problems.append(f"generation {gen}: {len(offers)} rows, expected {valid.get(gen)}")

        def reader() -> None:
            while not stop.is_set():
                if mid_write.is_set():
                    check()
                    reads["mid"] += 1
                    mid_write.clear()
                    mid_read_done.set()
                check()
                reads["loop"] += 1

        built = {"n": 0}
        sql, values = store._insert_plan or ("", None)
        assert values is not None

        def tick() -> None:
            built["n"] += 1
            if built["n"] == 301:  # 300 rows of the new snapshot are built (batches written, or streamed)
                mid_read_done.clear()
                mid_write.set()
                assert mid_read_done.wait(30), "reader did not read during the write"

        def counted(*args: Any) -> Any:
            tick()
            return values(*args)

        store._insert_plan = (sql, counted)  # PostgreSQL's COPY rows
        rows_for = store._rows_for  # SQLite's rows (a sample's, then each batch's)

        def counted_rows_for(columns: Any) -> Any:
            build = rows_for(columns)

            def row(*args: Any) -> Any:
                tick()
                return build(*args)

            return row

        monkeypatch.setattr(store, "_rows_for", counted_rows_for)
        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        try:
            for i, n in enumerate(sizes, start=1):
                built["n"] = 0
                valid[f"g{i}"] = n
                store.write_snapshot("big", many_offers(n, instance_prefix=f"g{i}"))
        finally:
            stop.set()
            thread.join(60)
        assert problems == []
        assert reads["mid"] == len(sizes) and reads["loop"] > 0
        assert store.count_offers() == sizes[-1]
