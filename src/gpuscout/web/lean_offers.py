"""``/api/v1/offers`` answered on the event loop, before FastAPI's routing, for plain query strings.

An uncached request of the JSON API spends more on the way to its handler and back than on its
answer: FastAPI's routing, dependencies and query-model validation, and two thread switches to
read the store from the thread pool (with the pool's threads contending for the GIL, more CPU
than the reads themselves). :class:`LeanOffersMiddleware` therefore answers ``GET
/api/v1/offers`` itself when the query string is *plain*: every parameter a field of
:class:`~gpuscout.web.filters.OfferFilters`, given once, and the values valid for that model. It
reads the parameters as Starlette does (``parse_qsl`` of the Latin-1 text, blanks kept), validates
them with the same model FastAPI uses for the route, and writes the body with the route's own
:func:`~gpuscout.web.api.offers_body` into the route's ``Response``. It sits inside the app's other
middleware (gzip, security headers, ``HEAD``), so the response goes out exactly as the route's.

The SQLite read runs on the event loop, through the services' loop reader: its own connection,
which waits at most ``LOOP_BUSY_TIMEOUT_S`` for a lock (a WAL reader meets one only in rare cases,
such as a writer holding the file in exclusive locking mode). With the web cache on, the body is
looked up in the same cache under the same key as the route's (and a miss computed here).

Anything else goes to FastAPI, which answers as it always did: another path or method, a repeated
or unknown parameter, an invalid value (its 422 body), an unknown GPU name and any other error of
the answer, a SQLite read that fails or meets a lock (the thread pool's read waits the store's
whole busy timeout), a store not opened yet (opening it may migrate or load it, in the thread pool)
and PostgreSQL. ``tests/web/test_lean_offers.py`` holds both paths to the same status, headers and
bytes over many query strings.
"""

from __future__ import annotations

import sqlite3
from urllib.parse import parse_qsl

from pydantic import ValidationError
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gpuscout.errors import GpuscoutError
from gpuscout.web.api import offers_body
from gpuscout.web.filters import OfferFilters, is_blank
from gpuscout.web.services import WebServices

OFFERS_PATH = "/api/v1/offers"
_FIELDS = frozenset(OfferFilters.model_fields)


def plain_filters(query_string: bytes) -> OfferFilters | None:
    """The filters the route reads from ``query_string`` when it is plain (see the module docstring),
    else ``None``."""
    items = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    values = dict(items)
    if len(values) != len(items) or not _FIELDS.issuperset(values):
        return None
    if any(is_blank(name, value) for name, value in values.items()):  # the API's error (ApiOfferFilters)
        return None
    try:
        return OfferFilters.model_validate(values)
    except ValidationError:
        return None


def lean_body(services: WebServices, query_string: bytes) -> bytes | None:
    """The route's body for a plain query string read on this thread, ``None`` when FastAPI must
    answer (see the module docstring)."""
    reader = services.loop_reader()
    if reader is None:
        return None
    filters = plain_filters(query_string)
    if filters is None:
        return None
    try:
        return offers_body(services, filters, reader)
    except (GpuscoutError, sqlite3.Error):
        return None


class LeanOffersMiddleware:
    """Pure ASGI middleware answering plain ``GET /api/v1/offers`` requests (module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["path"] == OFFERS_PATH
            and scope["method"] == "GET"
            and not scope.get("root_path")
        ):
            services: WebServices = scope["app"].state.services
            content = lean_body(services, scope["query_string"])
            if content is not None:
                await Response(content, media_type="application/json")(scope, receive, send)
                return
        await self.app(scope, receive, send)
