"""The web cache cannot grow without bound: failures leave nothing behind, entries expire by TTL.

Regression for the audit's defect 2: every request whose cached computation raised (an unknown GPU
name, say) left a per-key lock in ``TtlCache._inflight`` for ever (+20 MiB per 30,000 requests).
"""

from __future__ import annotations

import random
import string
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.web import create_app
from gpuscout.web.cache import TtlCache
from gpuscout.web.services import WebServices


class Boom(Exception):
    pass


def _fail() -> int:
    raise Boom("computation failed")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


keys = st.one_of(st.text(max_size=40), st.integers(), st.tuples(st.text(max_size=10), st.integers()))


@settings(max_examples=60, deadline=None)
@given(st.lists(keys, min_size=1, max_size=300, unique=True))
def test_failing_computations_leave_nothing_behind(failing_keys: list[object]) -> None:
    cache: TtlCache[int] = TtlCache(ttl=60, max_entries=16)
    for key in failing_keys:
        with pytest.raises(Boom):
            cache.get_or_compute(key, _fail)
    assert cache.inflight == 0 and len(cache) == 0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(keys, st.booleans()), min_size=1, max_size=300), st.integers(min_value=1, max_value=32)
)
def test_size_stays_bounded_over_any_mix_of_hits_misses_and_failures(
    calls: list[tuple[object, bool]], max_entries: int
) -> None:
    cache: TtlCache[int] = TtlCache(ttl=60, max_entries=max_entries)
    for key, fails in calls:
        if fails:
            with pytest.raises(Boom):
                cache.get_or_compute(("fail", key), _fail)
        else:
            assert cache.get_or_compute(key, lambda: 7) == 7
        assert len(cache) <= max_entries and cache.inflight == 0


def test_a_failure_is_not_cached_and_concurrent_waiters_compute_for_themselves() -> None:
    cache: TtlCache[int] = TtlCache(ttl=60)
    started, release = threading.Event(), threading.Event()
    outcomes: list[object] = []

    def first() -> int:
        started.set()
        release.wait(5)
        raise Boom("first caller fails")

    def run(compute: object) -> None:
        try:
            outcomes.append(cache.get_or_compute("k", compute))  # type: ignore[arg-type]
        except Boom as exc:
            outcomes.append(exc)

    t1 = threading.Thread(target=run, args=(first,))
    t1.start()
    started.wait(5)
    waiters = [threading.Thread(target=run, args=(lambda: 5,)) for _ in range(4)]
    for t in waiters:
        t.start()
    release.set()
    for t in (t1, *waiters):
        t.join(10)
    assert sum(isinstance(o, Boom) for o in outcomes) == 1
    assert outcomes.count(5) == 4  # the waiters did not inherit the failure
    assert cache.inflight == 0 and cache.get_or_compute("k", _fail) == 5


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=200), st.floats(min_value=0.5, max_value=600))
def test_entries_expire_by_ttl_not_only_by_lru(count: int, ttl: float) -> None:
    clock = FakeClock()
    cache: TtlCache[int] = TtlCache(ttl=ttl, max_entries=1000, clock=clock)
    for i in range(count):
        cache.get_or_compute(i, lambda i=i: i)  # type: ignore[misc]
    assert len(cache) == count
    clock.now += ttl + 1e-3
    cache.get_or_compute("later", lambda: -1)
    assert len(cache) == 1  # the expired entries were swept, not kept until evicted
    computed: list[int] = []
    assert cache.get_or_compute(0, lambda: computed.append(1) or 99) == 99 and computed == [1]


def test_a_fresh_entry_is_served_and_an_expired_one_recomputed() -> None:
    clock = FakeClock()
    cache: TtlCache[str] = TtlCache(ttl=10, clock=clock)
    assert cache.get_or_compute("k", lambda: "old") == "old"
    clock.now += 9.9
    assert cache.get_or_compute("k", lambda: "new") == "old"
    clock.now += 0.1
    assert cache.get_or_compute("k", lambda: "new") == "new"


@pytest.fixture()
def cached_client(db_url: str) -> Iterator[tuple[TestClient, WebServices]]:
    services = WebServices(db_url, cache_seconds=300)
    with TestClient(create_app(db_url, services=services)) as client:
        yield client, services


def test_requests_with_distinct_unknown_names_do_not_grow_the_caches(
    cached_client: tuple[TestClient, WebServices],
) -> None:
    client, services = cached_client
    rnd = random.Random(14)
    for _ in range(150):
        name = "".join(rnd.choices(string.ascii_letters, k=40))
        assert client.get("/api/v1/offers", params={"gpu": name}).status_code in (404, 422)
        assert client.get("/", params={"gpu": name}).status_code in (404, 422)
    for cache in (services._bodies, services._pages, services._all, services._advice, services._faq):
        assert cache.inflight == 0
        assert len(cache) <= cache.max_entries
