"""Shared async HTTP plumbing for sources: bounded concurrency, deadlines, retries, pagination.

Deadlines that hold whatever the other side does:

* every request has a **total** deadline (``timeout_s``, 30 s by default) covering connect,
  headers and the whole body. httpx's own timeouts are per operation (a read timeout restarts
  with every byte), so a server trickling one byte every few seconds would never trip them; the
  total deadline does;
* a request, a retry or a back-off sleep never runs past the source's deadline (set by the
  refresh: the per-source ``--timeout``), and a ``Retry-After`` longer than the time left fails
  at once instead of waiting;
* a body is read in chunks and refused beyond :data:`MAX_BODY_BYTES` (decoded), so an endless
  or decompression-bomb answer cannot fill memory.

Retries use exponential backoff with jitter and honour ``Retry-After`` (delta-seconds or an
HTTP date) on 429 and 503. Every failure ends as a :class:`SourceError` naming the URL and the
cause, never a bare ``httpx`` exception. ``sleep`` is injectable so tests never wait.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from gpuscout.catalog.sources.base import Source, SourceError, format_seconds
from gpuscout.wording import plural

Sleep = Callable[[float], Awaitable[None]]

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
RETRY_AFTER_STATUSES = frozenset({429, 503})
MAX_BODY_BYTES = 64 * 1024 * 1024  # the largest answer a source may send (decoded); Azure pages are ~1 MB


class BodyTooLarge(Exception):
    """The answer's body exceeded the fetcher's size bound (not retried)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try. ``attempts`` counts the first try; delays are in seconds."""

    attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.25  # +- fraction of the backoff delay
    max_retry_after_s: float = 120.0  # a longer Retry-After gives up instead of waiting


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date); None if absent/bad."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


def backoff_delay(attempt: int, policy: RetryPolicy, rand: Callable[[], float] = random.random) -> float:
    """Delay before retry number ``attempt`` (1-based): base * 2**(attempt-1), capped, jittered."""
    delay: float = min(policy.max_delay_s, policy.base_delay_s * 2.0 ** (attempt - 1))
    spread = delay * policy.jitter
    return max(0.0, delay + (2 * rand() - 1) * spread)


class HttpFetcher:
    """Requests on behalf of one source, through the caller's ``httpx.AsyncClient``."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        source: str,
        *,
        timeout_s: float = 30.0,
        max_concurrency: int = 4,
        retry: RetryPolicy | None = None,
        sleep: Sleep | None = None,
        rand: Callable[[], float] = random.random,
        deadline: float | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.client = client
        self.source = source
        self.timeout_s = float(timeout_s)
        self.timeout = httpx.Timeout(timeout_s)
        self.retry = retry or RetryPolicy()
        self.sleep: Sleep = sleep or asyncio.sleep
        self.rand = rand
        self.deadline = deadline  # time.monotonic() by which every request must be over
        self.max_body_bytes = max_body_bytes
        self._semaphore = asyncio.Semaphore(max(1, max_concurrency))
        self.requests_made = 0

    def _error(self, message: str) -> SourceError:
        return SourceError(self.source, message)

    def time_left(self) -> float | None:
        """Seconds until the source's deadline (None: no deadline)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def _budget(self) -> float:
        """The total time the next request may take: its own deadline, cut to end a little before
        the source's (so that the request's own reason is the one recorded)."""
        left = self.time_left()
        if left is None:
            return self.timeout_s
        return min(self.timeout_s, left - min(0.5, 0.05 * left))

    async def _send(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        json_body: Any,
        headers: Mapping[str, str] | None,
    ) -> httpx.Response:
        """One request, its body read in chunks up to :attr:`max_body_bytes`."""
        async with self.client.stream(
            method, url, params=params, json=json_body, headers=headers, timeout=self.timeout
        ) as response:
            declared = response.headers.get("Content-Length", "")
            encoded = "Content-Encoding" in response.headers
            if declared.isdigit() and int(declared) > self.max_body_bytes and not encoded:
                raise BodyTooLarge(f"Content-Length {int(declared):,} bytes")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > self.max_body_bytes:
                    raise BodyTooLarge(f"more than {self.max_body_bytes:,} bytes")
        # the body is complete: keep it on the response so .json() / .text work as usual
        response._content = bytes(body)
        return response

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """Send with retries; return a 2xx response or raise :class:`SourceError`."""
        policy = self.retry
        last_problem = "no attempt made"
        attempts_made = 0
        for attempt in range(1, policy.attempts + 1):
            wait: float | None = None
            budget = self._budget()
            if budget <= 0:
                break  # the source's deadline has passed: no new attempt
            attempts_made = attempt
            try:
                async with self._semaphore:
                    self.requests_made += 1
                    async with asyncio.timeout(budget):
                        response = await self._send(method, url, params, json_body, headers)
            except TimeoutError:
                last_problem = (
                    f"no complete answer within {format_seconds(budget)} (total deadline per request)"
                )
            except BodyTooLarge as exc:
                raise self._error(f"answer too large: {exc} ({method} {url})") from None
            except httpx.TimeoutException as exc:
                last_problem = f"{type(exc).__name__} (timeout {self.timeout.read}s)"
            except httpx.RequestError as exc:  # transport, decoding, redirects
                last_problem = f"{type(exc).__name__}: {str(exc)[:200]}"
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return response
                snippet = response.text[:200].strip().replace("\n", " ")
                last_problem = f"HTTP {status}" + (f": {snippet}" if snippet else "")
                if status in (401, 403):
                    raise self._error(f"{last_problem}: refused, check the credentials ({method} {url})")
                if status not in RETRY_STATUSES:
                    raise self._error(f"{last_problem} ({method} {url})")
                if status in RETRY_AFTER_STATUSES:
                    wait = parse_retry_after(response.headers.get("Retry-After"))
                    if wait is not None and wait > policy.max_retry_after_s:
                        raise self._error(
                            f"{last_problem}: Retry-After {wait:.0f}s exceeds the "
                            f"{policy.max_retry_after_s:.0f}s this source waits ({method} {url})"
                        )
            if attempt == policy.attempts:
                break
            delay = wait if wait is not None else backoff_delay(attempt, policy, self.rand)
            left = self.time_left()
            if left is not None and delay >= left:
                what = "Retry-After" if wait is not None else "the back-off"
                raise self._error(
                    f"{last_problem}; {what} of {delay:.0f}s exceeds the {left:.0f}s left before the "
                    f"source's deadline, after {attempt} {plural(attempt, 'attempt')} ({method} {url})"
                )
            await self.sleep(delay)
        if not attempts_made:
            raise self._error(f"the source's deadline passed before {method} {url} could be sent")
        tries = f"{attempts_made} {plural(attempts_made, 'attempt')}"
        raise self._error(f"gave up after {tries}: {last_problem} ({method} {url})")

    async def json(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """Like :meth:`request`, decoding the JSON body (malformed JSON -> :class:`SourceError`)."""
        response = await self.request(method, url, params=params, json_body=json_body, headers=headers)
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise self._error(f"malformed JSON: {exc} ({method} {url})") from exc

    async def get_json(
        self, url: str, *, params: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        return await self.json("GET", url, params=params, headers=headers)

    async def post_json(self, url: str, body: Any, *, headers: Mapping[str, str] | None = None) -> Any:
        return await self.json("POST", url, json_body=body, headers=headers)


# --- pagination ---------------------------------------------------------------------------

NextPage = Callable[[Any], "tuple[str, dict[str, Any] | None] | None"]


async def paginate(
    fetcher: HttpFetcher,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    next_page: NextPage,
    max_pages: int = 200,
) -> AsyncIterator[Any]:
    """Yield each page's decoded JSON, following ``next_page(payload) -> (url, params) | None``."""
    seen: set[str] = set()
    current_url, current_params = url, dict(params) if params is not None else None
    for _ in range(max_pages):
        marker = current_url + json.dumps(current_params, sort_keys=True, default=str)
        if marker in seen:
            raise fetcher._error(f"pagination loop: {current_url} was already fetched")
        seen.add(marker)
        payload = await fetcher.get_json(current_url, params=current_params, headers=headers)
        yield payload
        following = next_page(payload)
        if following is None:
            return
        current_url, current_params = following
    raise fetcher._error(f"more than {max_pages} pages from {url}; stopping")


def azure_next_page(payload: Any) -> tuple[str, dict[str, Any] | None] | None:
    """Azure Retail Prices: ``NextPageLink`` is a full URL (with ``$skip``), or null on the last page."""
    link = payload.get("NextPageLink") if isinstance(payload, dict) else None
    return (link, None) if isinstance(link, str) and link else None


def links_next_page(payload: Any) -> tuple[str, dict[str, Any] | None] | None:
    """DigitalOcean: ``links.pages.next`` is a full URL, absent on the last page."""
    if not isinstance(payload, dict):
        return None
    pages = (payload.get("links") or {}).get("pages") or {}
    link = pages.get("next") if isinstance(pages, dict) else None
    return (link, None) if isinstance(link, str) and link else None


def cursor_next_page(base_url: str, base_params: Mapping[str, Any]) -> NextPage:
    """Vultr: ``meta.links.next`` is a cursor passed back as ``cursor=``; empty on the last page."""

    def next_page(payload: Any) -> tuple[str, dict[str, Any] | None] | None:
        if not isinstance(payload, dict):
            return None
        links = (payload.get("meta") or {}).get("links") or {}
        cursor = links.get("next") if isinstance(links, dict) else None
        if not isinstance(cursor, str) or not cursor:
            return None
        return base_url, {**base_params, "cursor": cursor}

    return next_page


def token_next_page(base_url: str, base_params: Mapping[str, Any]) -> NextPage:
    """GCP Cloud Billing: ``nextPageToken`` is passed back as ``pageToken=``; empty on the last page."""

    def next_page(payload: Any) -> tuple[str, dict[str, Any] | None] | None:
        token = payload.get("nextPageToken") if isinstance(payload, dict) else None
        if not isinstance(token, str) or not token:
            return None
        return base_url, {**base_params, "pageToken": token}

    return next_page


class HttpSource(Source):
    """A :class:`Source` that talks HTTP through :class:`HttpFetcher`.

    ``retry``, ``sleep`` and ``max_concurrency`` can be set per instance, so tests (and the
    fault-injection suite) can make retries instant: ``VastAISource(sleep=fake_sleep)``.
    """

    max_concurrency: int = 4

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        sleep: Sleep | None = None,
        timeout_s: float | None = None,
        max_concurrency: int | None = None,
    ) -> None:
        super().__init__()
        self.retry = retry
        self.sleep = sleep
        if timeout_s is not None:
            self.timeout_s = timeout_s
        if max_concurrency is not None:
            self.max_concurrency = max_concurrency

    def http(self, client: httpx.AsyncClient) -> HttpFetcher:
        return HttpFetcher(
            client,
            self.name,
            timeout_s=self.timeout_s,
            max_concurrency=self.max_concurrency,
            retry=self.retry,
            sleep=self.sleep,
            deadline=self.deadline,
        )
