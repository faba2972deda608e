"""The JSON of ``/api/v1/offers`` written straight from the store's rows.

``OfferPageOut.model_validate(...).model_dump_json()`` over decoded offers costs most of an uncached
request: each row becomes an ``Offer`` (enums, a datetime, JSON lists), then a validated ``OfferOut``,
then JSON. The same bytes come from the rows themselves: each ``OfferOut`` field is read from its
column with the conversion its type implies (the one :mod:`gpuscout.catalog.rows` applies when it
decodes an offer), the computed values are computed as the ``Offer`` properties compute them, the
view's values with the functions the model path uses, and the plain values are serialised by
pydantic's own JSON writer (the same float, datetime and string output as ``model_dump_json``).

:func:`page_json` is that encoder; ``tests/web/test_offer_json.py`` checks its bytes equal the model
path's over many views of varied offers. Only rows read with ``sqlite3`` come this way (the
:class:`~gpuscout.catalog.reader.SqliteReader`); the Store's offers (PostgreSQL) take the model path.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pydantic_core

from gpuscout.catalog.clock import utc
from gpuscout.catalog.offer import Offer, gpus_worth
from gpuscout.catalog.offer_fields import face_fields
from gpuscout.catalog.rows import OFFER_COLUMNS
from gpuscout.web.offer_view import age_hours, source_url

_COUNT, _MEMORY, _PRICE, _SPOT, _OBSERVED, _STALE, _SOURCE, _EXTRA, _ACCELERATOR, _FRACTIONAL = (
    OFFER_COLUMNS.index(name)
    for name in (
        "gpu_count",
        "gpu_memory_gb",
        "price_usd_per_hour",
        "spot_price_usd_per_hour",
        "observed_at",
        "stale",
        "source",
        "extra",
        "accelerator",
        "fractional",
    )
)


def _stored_time(value: str | datetime | None) -> datetime | None:
    """A stored time in UTC (SQLite: the text the store wrote, UTC without an offset)."""
    if value is None:
        return None
    return utc(datetime.fromisoformat(value) if isinstance(value, str) else value)


def _expression(name: str, hint: Any, default: Any, scope: dict[str, Any]) -> str:
    """The Python expression of field ``name``'s JSON value (annotated ``hint``) over a row ``r``: the
    conversion :mod:`gpuscout.catalog.rows` applies to that column when it decodes an offer, with
    enums as their value, tuples as lists and times as UTC datetimes (pydantic writes them)."""
    i = OFFER_COLUMNS.index(name)
    args = typing.get_args(hint)
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args
    inner = next(a for a in args if a is not type(None)) if optional else hint
    if isinstance(inner, type) and issubclass(inner, enum.Enum):
        scope[f"e{i}"] = {m.value: m.value for m in inner}
        return f"e{i}[r[{i}]]"  # a value the enum does not know fails, as decoding does
    if inner is datetime:
        return "observed" if name == "observed_at" else f"stored_time(r[{i}])"
    if typing.get_origin(inner) is tuple:
        return f'([] if r[{i}] in (None, "[]") else list(loads(r[{i}]) or ()))'
    if inner in (bool, int, float):
        return (
            f"(None if r[{i}] is None else {inner.__name__}(r[{i}]))"
            if optional
            else f"{inner.__name__}(r[{i}])"
        )
    if inner is str:
        if optional:
            return f"r[{i}]"
        scope[f"d{i}"] = default if isinstance(default, str) else ""  # a NULL reads as the default
        return f"(d{i} if r[{i}] is None else r[{i}])"
    raise TypeError(f"no JSON reader for Offer field {name!r} of type {hint!r}")


#: The view's and computed values of an ``OfferOut`` (``count``, ``worth``, ``age`` and ``observed``
#: are set first; the computed values are what the ``Offer`` properties compute; ``stale`` is the
#: catalog's rule, which the read already applied).
_DERIVED = {
    "stale": f"bool(r[{_STALE}])",
    "total_memory_gb": f"float(r[{_MEMORY}]) * count",
    "price_usd_per_gpu_hour": f"(None if r[{_PRICE}] is None else float(r[{_PRICE}]) / worth)",
    "spot_price_usd_per_gpu_hour": f"(None if r[{_SPOT}] is None else float(r[{_SPOT}]) / worth)",
    "source_url": f"source_url(r[{_SOURCE}])",
    "age_hours": "age_hours(age)",
    "variant_assumed": f"variant_assumed(r[{_EXTRA}])",
}


def _variant_assumed(extra: str | None) -> bool:
    if not extra or '"variant"' not in extra:  # most offers have no such key: no JSON read
        return False
    return bool(json.loads(extra).get("variant") == "assumed")


def _item_function(names: Sequence[str]) -> Callable[[Sequence[Any], datetime], dict[str, Any]]:
    """``item(row, now)``: the ``OfferOut`` values named ``names`` (in that order) of one row,
    compiled once from the field list."""
    scope: dict[str, Any] = {
        "stored_time": _stored_time,
        "loads": json.loads,
        "gpus_worth": gpus_worth,
        "ZERO": timedelta(0),
        "source_url": source_url,
        "age_hours": age_hours,
        "variant_assumed": _variant_assumed,
    }
    fields = {f.name: f for f in face_fields() if not f.computed}
    defaults = {f.name: f.default for f in dataclasses.fields(Offer) if f.default is not dataclasses.MISSING}
    values = [
        f"{name!r}: "
        + (
            _DERIVED[name]
            if name in _DERIVED
            else _expression(name, fields[name].type, defaults.get(name), scope)
        )
        for name in names
    ]
    source = (
        "def item(r, now):\n"
        f"    count = int(r[{_COUNT}])\n"
        f"    worth = gpus_worth(r[{_ACCELERATOR}], count, float(r[{_MEMORY}]), fractional=True) "
        f"if r[{_FRACTIONAL}] else count\n"
        f"    observed = stored_time(r[{_OBSERVED}])\n"
        "    age = None if observed is None else max(now - observed, ZERO)\n"
        f"    return {{{', '.join(values)}}}\n"
    )
    exec(source, scope)  # the text is built above from the field lists only
    item: Callable[[Sequence[Any], datetime], dict[str, Any]] = scope["item"]
    return item


def offer_item(row: Sequence[Any], now: datetime) -> dict[str, Any]:
    """One ``OfferOut`` as plain values, in the model's field order, from a row of
    :data:`~gpuscout.catalog.rows.OFFER_COLUMNS` (what ``OfferOut.from_offer`` gives for it)."""
    return _item(row, now)


def page_json(rows: Sequence[Sequence[Any]], *, total: int, page: int, per_page: int, pages: int) -> bytes:
    """The body of one ``/api/v1/offers`` page (``OfferPageOut``) for its rows and the match count."""
    now = datetime.now(UTC)
    body = {
        "total": total,
        "page": page,
        "per_page": per_page,
        "pages": pages,
        "items": [offer_item(row, now) for row in rows],
    }
    return pydantic_core.to_json(body)


def _item_names() -> tuple[str, ...]:
    from gpuscout.web.schemas import OfferOut

    return tuple(OfferOut.model_fields)


_item = _item_function(_item_names())
