"""The shared HTTP helper: retries, Retry-After, timeouts, concurrency bound, pagination."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.sources.base import SourceError
from gpuscout.catalog.sources.http import (
    HttpFetcher,
    RetryPolicy,
    azure_next_page,
    backoff_delay,
    cursor_next_page,
    links_next_page,
    paginate,
    parse_retry_after,
    token_next_page,
)
from tests.catalog.sources.loopback import loopback
from tests.catalog.sources.samples import SleepRecorder

URL = "https://api.example.test/items"


def run(body: Callable[[HttpFetcher], Awaitable[Any]], **kwargs: Any) -> Any:
    async def go() -> Any:
        async with httpx.AsyncClient() as client:
            return await body(HttpFetcher(client, "demo", **kwargs))

    return asyncio.run(go())


def test_parse_retry_after_seconds_and_http_date() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("120", now) == 120.0
    assert parse_retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now) == 30.0
    assert parse_retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now) == 0.0  # past: retry now
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None


def test_backoff_grows_exponentially_with_bounded_jitter() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0, jitter=0.25)
    assert [backoff_delay(n, policy, lambda: 0.5) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    assert backoff_delay(1, policy, lambda: 0.0) == 0.75
    assert backoff_delay(1, policy, lambda: 1.0) == 1.25


@respx.mock
def test_retries_transient_errors_then_succeeds() -> None:
    route = respx.get(URL).mock(
        side_effect=[
            httpx.ConnectTimeout("connect timeout"),
            httpx.ReadTimeout("read timeout"),
            httpx.Response(502),
            httpx.Response(200, json={"ok": True}),
        ]
    )
    sleep = SleepRecorder()
    assert run(lambda f: f.get_json(URL), sleep=sleep, rand=lambda: 0.5) == {"ok": True}
    assert route.call_count == 4
    assert sleep.delays == [1.0, 2.0, 4.0]  # exponential backoff, no jitter at rand 0.5


@respx.mock
def test_gives_up_after_n_attempts_with_a_clear_error() -> None:
    respx.get(URL).mock(side_effect=httpx.ConnectError("connection refused"))
    sleep = SleepRecorder()
    with pytest.raises(SourceError) as info:
        run(lambda f: f.get_json(URL), sleep=sleep, retry=RetryPolicy(attempts=3))
    assert info.value.source == "demo"
    assert "gave up after 3 attempts: ConnectError: connection refused" in str(info.value)
    assert len(sleep.delays) == 2


@respx.mock
def test_retry_after_too_long_gives_up_instead_of_waiting() -> None:
    respx.get(URL).mock(return_value=httpx.Response(429, headers={"Retry-After": "3600"}))
    sleep = SleepRecorder()
    with pytest.raises(SourceError, match="Retry-After 3600s exceeds the 120s"):
        run(lambda f: f.get_json(URL), sleep=sleep)
    assert sleep.delays == []


@respx.mock
def test_client_errors_are_not_retried() -> None:
    route = respx.get(URL).mock(return_value=httpx.Response(404, text="no such thing"))
    sleep = SleepRecorder()
    with pytest.raises(SourceError, match="HTTP 404: no such thing"):
        run(lambda f: f.get_json(URL), sleep=sleep)
    assert route.call_count == 1 and sleep.delays == []


@respx.mock
def test_malformed_json() -> None:
    respx.get(URL).mock(return_value=httpx.Response(200, text="{not json"))
    with pytest.raises(SourceError, match="malformed JSON"):
        run(lambda f: f.get_json(URL))


@respx.mock
def test_per_request_timeout_is_passed_to_httpx() -> None:
    route = respx.get(URL).mock(return_value=httpx.Response(200, json={}))
    run(lambda f: f.get_json(URL), timeout_s=7.5)
    assert route.calls[0].request.extensions["timeout"]["read"] == 7.5


def test_concurrency_is_bounded() -> None:
    active = 0
    peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01)
        active -= 1
        return httpx.Response(200, json={})

    async def go() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            fetcher = HttpFetcher(client, "demo", max_concurrency=2)
            await asyncio.gather(*(fetcher.get_json(f"{URL}/{i}") for i in range(8)))

    asyncio.run(go())
    assert peak == 2


def collect(url: str, next_page: Any, params: dict[str, Any] | None = None) -> list[Any]:
    async def body(f: HttpFetcher) -> list[Any]:
        return [page async for page in paginate(f, url, params=params, next_page=next_page)]

    return run(body)


@respx.mock
def test_azure_next_page_link() -> None:
    respx.get(URL, params={"$skip": "1000"}).mock(
        return_value=httpx.Response(200, json={"Items": [2], "NextPageLink": None})
    )
    respx.get(URL).mock(
        return_value=httpx.Response(200, json={"Items": [1], "NextPageLink": URL + "?$skip=1000"})
    )
    assert [p["Items"] for p in collect(URL, azure_next_page)] == [[1], [2]]


@respx.mock
def test_digitalocean_links_pages_next() -> None:
    respx.get(URL, params={"page": "2"}).mock(
        return_value=httpx.Response(200, json={"sizes": [2], "links": {}})
    )
    respx.get(URL).mock(
        return_value=httpx.Response(200, json={"sizes": [1], "links": {"pages": {"next": URL + "?page=2"}}})
    )
    assert [p["sizes"] for p in collect(URL, links_next_page)] == [[1], [2]]


@respx.mock
def test_vultr_cursor() -> None:
    respx.get(URL, params={"cursor": "abc"}).mock(
        return_value=httpx.Response(200, json={"plans": [2], "meta": {"links": {"next": ""}}})
    )
    respx.get(URL).mock(
        return_value=httpx.Response(200, json={"plans": [1], "meta": {"links": {"next": "abc"}}})
    )
    params = {"per_page": 500}
    assert [p["plans"] for p in collect(URL, cursor_next_page(URL, params), params)] == [[1], [2]]


@respx.mock
def test_gcp_page_token() -> None:
    respx.get(URL, params={"pageToken": "t2"}).mock(return_value=httpx.Response(200, json={"skus": [2]}))
    respx.get(URL).mock(return_value=httpx.Response(200, json={"skus": [1], "nextPageToken": "t2"}))
    assert [p["skus"] for p in collect(URL, token_next_page(URL, {}), {})] == [[1], [2]]


@respx.mock
def test_pagination_loop_is_detected() -> None:
    respx.get(URL).mock(return_value=httpx.Response(200, json={"Items": [], "NextPageLink": URL}))
    with pytest.raises(SourceError, match="pagination loop"):
        collect(URL, azure_next_page)


# ---- deadlines that hold whatever the server does ---------------------------------------------


def test_a_trickling_body_hits_the_total_request_deadline() -> None:
    """httpx's read timeout restarts with every byte; one byte every 0.3 s never trips a 2 s read
    timeout, but the request's total deadline ends it."""
    with loopback("trickle", interval_s=0.3) as server:
        started = time.monotonic()
        with pytest.raises(SourceError, match=r"no complete answer within 2s \(total deadline per request\)"):
            run(lambda h: h.get_json(server.url), timeout_s=2.0, retry=RetryPolicy(attempts=1))
        assert time.monotonic() - started < 60  # it ended (not a timing assertion on the figure)


def test_no_request_or_retry_runs_past_the_sources_deadline() -> None:
    with loopback("hang") as server:
        deadline = time.monotonic() + 2
        sleep = SleepRecorder()
        with pytest.raises(SourceError) as err:
            run(lambda h: h.get_json(server.url), timeout_s=30.0, deadline=deadline, sleep=sleep)
    assert "no complete answer within" in str(err.value)
    assert server.connections == 1  # no retry started after the deadline


@respx.mock
def test_a_retry_after_longer_than_the_time_left_fails_at_once() -> None:
    respx.get(URL).mock(return_value=httpx.Response(429, headers={"Retry-After": "60"}))
    sleep = SleepRecorder()
    with pytest.raises(
        SourceError, match=r"Retry-After of 60s exceeds the .*s left before the source's deadline"
    ):
        run(lambda h: h.get_json(URL), deadline=time.monotonic() + 10, sleep=sleep)
    assert sleep.delays == []


@respx.mock
def test_an_oversized_body_is_refused() -> None:
    async def endless() -> AsyncIterator[bytes]:  # chunked: no Content-Length to refuse it by
        while True:
            yield b"1," * 100

    respx.get(URL).mock(return_value=httpx.Response(200, content=endless()))
    with pytest.raises(SourceError, match="answer too large: more than 1,000 bytes"):
        run(lambda h: h.get_json(URL), max_body_bytes=1000)
    respx.get(URL).mock(
        return_value=httpx.Response(200, content=b"[]", headers={"Content-Length": str(10**12)})
    )
    with pytest.raises(SourceError, match="answer too large: Content-Length"):
        run(lambda h: h.get_json(URL), max_body_bytes=1000)
