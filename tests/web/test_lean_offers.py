"""Plain ``/api/v1/offers`` requests are answered before FastAPI's routing (``web/lean_offers.py``) with
the status, headers and bytes the route gives; every other request is left to the route, which answers
as it always did (its 422 bodies included)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuscout.catalog.reader import SqliteReader
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import api, create_app, lean_offers, offer_json
from gpuscout.web.filters import SORT_COLUMNS, OfferFilters
from gpuscout.web.services import LOOP_CACHE_KIB, WebServices
from tests.catalog.helpers import pg_schema_url
from tests.web.conftest import sample_offers

PATH = "/api/v1/offers"


class Paths:
    """A client of the app that asks each query string both ways: answered by the lean path when it
    takes the request, and by the route with the lean path switched off."""

    def __init__(self, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
        self.client = client
        self.monkeypatch = monkeypatch
        self.lean_answered: list[bool] = []
        real = lean_offers.lean_body

        def recorded(services: WebServices, query_string: bytes) -> bytes | None:
            body = real(services, query_string)
            self.lean_answered.append(body is not None)
            return body

        self.recorded = recorded
        self.off = lambda services, query_string: None
        monkeypatch.setattr(lean_offers, "lean_body", recorded)
        client.get(PATH)  # the store is opened in the thread pool by a first request
        self.lean_answered.clear()

    def ask(self, query: str, method: str = "GET") -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        r = self.client.request(method, f"{PATH}?{query}" if query else PATH)
        return r.status_code, list(r.headers.raw), r.content

    def both(self, query: str, method: str = "GET") -> tuple[bool, tuple[int, list[Any], bytes]]:
        """(whether the lean path answered, its answer), after checking the route gives the same."""
        self.lean_answered.clear()
        lean = self.ask(query, method)
        answered = self.lean_answered == [True]
        self.monkeypatch.setattr(lean_offers, "lean_body", self.off)
        try:
            route = self.ask(query, method)
        finally:
            self.monkeypatch.setattr(lean_offers, "lean_body", self.recorded)
        assert lean == route, query
        return answered, lean


@pytest.fixture()
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both paths see the same present (the offers' ages)."""
    now = datetime.now(UTC)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Frozen:  # type: ignore[override]
            return now  # type: ignore[return-value]

    monkeypatch.setattr(api, "datetime", Frozen)
    monkeypatch.setattr(offer_json, "datetime", Frozen)


@pytest.fixture()
def paths(app: FastAPI, monkeypatch: pytest.MonkeyPatch, frozen: None) -> Iterator[Paths]:
    with TestClient(app) as client:
        yield Paths(client, monkeypatch)


PLAIN = [
    "",
    "gpu=H100",
    "gpu=h100-sxm,A100",
    "gpu=H100&pricing=spot&available=true&interconnect=nvlink",
    "min_vram=48&gpus=1",
    "min_vram=24.5&max_price=3.25&sort=price&order=desc",
    "provider=alphacloud,betagpu&region=us-",
    "region=EU-&include_stale=true",
    "pricing=on-demand&per_page=3&page=2",
    "per_page=200&include_stale=true",
    "per_page=2&page=40",  # past the last page
    "gpu=MI300X",  # no offer
    "gpu=%20H100%20",  # spaces around a value are stripped
    "available=false&include_stale=false",
    "min_vram=0&max_price=1000000&page=10000",
    *(
        f"sort={column}&order={order}&include_stale=true"
        for column in SORT_COLUMNS
        for order in ("asc", "desc")
    ),
]
# Each of these is left to the route: its errors, and what the lean path does not read itself.
ROUTE = [
    "gpu=nonsense",  # an unknown GPU: 422 with the closest names
    "gpu=H10O",
    "min_vram=-1",
    "min_vram=abc",
    "gpus=0",
    "gpus=10001",  # past catalog.filter_bounds.MAX_GPUS_PER_OFFER
    "pricing=cheap",
    "interconnect=infiniband",
    "max_price=0",
    "max_price=1e400",
    "sort=cheap",
    "order=up",
    "page=0",
    "page=10001",
    "per_page=201",
    "available=maybe",
    "region=" + "x" * 101,
    "region=%3Cscript%3E",  # a region no offer is in: 422 with the closest regions with offers
    "gpu=%00",
    "provider=a%00b",
    "gpu=H100&gpu=A100",  # a repeated parameter
    "unknown=1",  # a parameter the route does not know
    "gpu=H100&utm_source=x",
    "GPU=H100",
    "=x",
    "gpu=%ff%fe",
    "gpu=&min_vram=&sort=",  # a blank is the API's 422 naming it (the page's form reads it as "any")
    "gpu&available",  # no "=": blank too
]


@pytest.mark.parametrize("query", PLAIN)
def test_a_plain_query_is_answered_by_the_lean_path_as_the_route_answers_it(paths: Paths, query: str) -> None:
    answered, (status, _, _) = paths.both(query)
    assert answered and status == 200


@pytest.mark.parametrize("query", ROUTE)
def test_anything_else_is_left_to_the_route(paths: Paths, query: str) -> None:
    answered, _ = paths.both(query)
    assert not answered


def test_head_gets_the_headers_of_get(paths: Paths) -> None:
    answered, (status, headers, body) = paths.both("gpu=H100", method="HEAD")
    assert answered and status == 200 and body == b""
    assert headers == paths.ask("gpu=H100")[1]  # with GET's content-length


def test_the_lean_path_reads_the_query_parameters_as_the_route_does() -> None:
    assert lean_offers.plain_filters(b"") == OfferFilters()
    assert lean_offers.plain_filters(b"gpu=%20H100+&page=2") == OfferFilters(gpu="H100", page=2)
    for unread in (b"gpu=A&gpu=B", b"x=1", b"page=0", b"gpus=1.5", b"=1", b"min_vram=", b"gpu=%20,"):
        assert lean_offers.plain_filters(unread) is None


_KEYS = st.sampled_from([*OfferFilters.model_fields, "gpu", "sort", "x", "", "GPU", "per-page"])
_VALUES = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "H100",
            "a100,l4",
            "h100-sxm",
            "alphacloud",
            "us",
            "eu-",
            "spot",
            "on-demand",
            "any",
            "true",
            "false",
            "TRUE",
            "1",
            "0",
            "yes",
            "nvlink",
            "pcie",
            "asc",
            "desc",
            "2",
            "8",
            "48",
            "1e2",
            "0.5",
            "-1",
            "nan",
            "inf",
            "200",
            "201",
            "10000",
            "%00",
            "%ff",
            *SORT_COLUMNS,
        ]
    ),
    st.text(max_size=12).map(lambda text: quote(text, safe="")),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(_KEYS, _VALUES), max_size=5))
def test_any_query_string_gets_the_routes_answer(paths: Paths, pairs: list[tuple[str, str]]) -> None:
    paths.both("&".join(f"{key}={value}" for key, value in pairs))


def test_a_store_not_opened_yet_is_opened_by_the_route(db_url: str) -> None:
    """The first request opens the store (which may migrate or load it) in the thread pool; the event
    loop reads only a store already opened, through its own reader."""
    services = WebServices(db_url, cache_seconds=0)
    assert services.loop_reader() is None
    with TestClient(create_app(db_url, services=services)) as client:
        assert client.get(PATH).status_code == 200
        reader = services.loop_reader()
        assert isinstance(reader, SqliteReader) and reader is not services.reader
        assert reader.busy_timeout_s < 1 and reader is services.loop_reader()
        cache = reader._connection().execute("PRAGMA cache_size").fetchone()[0]
        assert cache == -LOOP_CACHE_KIB  # KiB (SQLite's default is 2 MiB)


def test_a_read_that_fails_on_the_loop_is_answered_by_the_route(
    paths: Paths, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = paths.both("gpu=H100")[1]
    services: WebServices = paths.client.app.state.services  # type: ignore[attr-defined]
    reader = services.loop_reader()
    assert reader is not None

    def locked(*_args: object) -> object:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(reader, "offer_page_rows", locked)
    answered, answer = paths.both("gpu=H100")
    assert not answered and answer == expected


def test_with_the_cache_on_both_paths_give_the_cached_body(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(db_url, services=WebServices(db_url, cache_seconds=60))
    with TestClient(app) as client:
        lean = Paths(client, monkeypatch)
        for query in ("", "gpu=H100", "sort=vram&order=desc", "per_page=200"):
            answered, _ = lean.both(query)
            assert answered


@pytest.mark.postgres
def test_on_postgresql_the_route_answers_what_sqlite_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, frozen: None
) -> None:
    """PostgreSQL is read by the Store in the thread pool (the lean path leaves it to the route); the
    answers are those of a SQLite store holding the same offers."""
    queries = ["", "gpu=H100", "pricing=spot&sort=spot_price", "min_vram=48&gpus=1", "per_page=3&page=2"]
    answers: dict[str, list[tuple[int, list[Any], bytes]]] = {}
    with pg_schema_url() as pg:
        for url in (pg, f"sqlite:///{tmp_path / 'same.db'}"):
            store = Store(url)
            store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
            store.write_snapshot("test", sample_offers())
            store.close()
            services = WebServices(url, cache_seconds=0)
            with TestClient(create_app(url, services=services)) as client:
                paths = Paths(client, monkeypatch)
                answers[url] = [paths.ask(query) for query in queries]
                if url == pg:
                    assert services.loop_reader() is None and not any(paths.lean_answered)
                else:
                    assert all(paths.lean_answered)
        assert answers[pg] == answers[f"sqlite:///{tmp_path / 'same.db'}"]
