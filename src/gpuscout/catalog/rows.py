"""``Offer`` <-> ``offers`` row, derived from the dataclass fields and their types.

Each field is stored in the column of the same name; its *type* picks the conversion (enums as
their value, datetimes in UTC, tuples as JSON lists, the ``extra`` mapping as a JSON object, bools
and numbers as themselves). A field of a type not in :func:`_codec` fails at import, so a new kind
of field gets a conversion on purpose. The store adds its own columns: the snapshot id, per-GPU
prices (indexed for the default sort) and the spec-per-dollar sort keys.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from gpuscout.catalog.clock import utc
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.offer_fields import per_offer_type

Convert = Callable[[Any], Any]
Specs = Mapping[str, tuple[float | None, float | None]]  # name -> (bandwidth GB/s, BF16 TFLOPS)


def _text(value: str) -> str:
    """Text as stored: without NUL characters, which PostgreSQL text cannot hold (one bad feed cell must
    not fail the whole snapshot)."""
    return value.replace("\x00", "") if "\x00" in value else value


def _datetime(value: datetime | str) -> datetime | None:
    """A stored time in UTC: SQLite holds the text SQLAlchemy wrote (``2026-12-01 10:00:00.000000``,
    UTC without an offset), PostgreSQL's driver gives a datetime."""
    return utc(datetime.fromisoformat(value) if isinstance(value, str) else value)


def _json(value: Any) -> Any:
    """A JSON column's value: SQLite holds the JSON text, PostgreSQL's driver may give it decoded."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def _optional(convert: Convert) -> Convert:
    return lambda value: None if value is None else convert(value)


def _codec(hint: Any, default: Any) -> tuple[Convert, Convert]:
    """(to the column, from the column) for a field annotated ``hint``."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"unsupported Offer field type {hint!r}")
        to_col, from_col = _codec(inner[0], None)
        return _optional(to_col), _optional(from_col)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        enum_type = hint
        return (lambda v: enum_type(v).value), enum_type
    if hint is datetime:
        return utc, _datetime
    if hint is bool:
        return bool, bool
    if hint is int:
        return int, int
    if hint is float:
        return float, float
    if hint is str:
        # NOT NULL text columns: a missing value reads back as the field's default
        fallback = default if isinstance(default, str) else ""
        return _text, (lambda v: fallback if v is None else v)
    if origin is tuple:
        return (
            (lambda v: [_text(x) if isinstance(x, str) else x for x in v]),
            (lambda v: tuple(_json(v) or ())),
        )
    if origin is dict:
        return dict, (lambda v: dict(_json(v) or {}))
    raise TypeError(f"unsupported Offer field type {hint!r}")


@dataclasses.dataclass(frozen=True, slots=True)
class _Column:
    name: str
    to_column: Convert
    from_column: Convert


@per_offer_type
def _columns(cls: type[Offer]) -> tuple[_Column, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else None
        to_col, from_col = _codec(hints[f.name], default)
        out.append(_Column(f.name, to_col, from_col))
    return tuple(out)


def offer_columns(cls: type[Offer] = Offer) -> tuple[str, ...]:
    """The ``offers`` columns that hold ``cls``'s fields (one per field, same name)."""
    return tuple(c.name for c in _columns(cls))


OFFER_COLUMNS = offer_columns()


def _per(value: float | None, price: float | None) -> float | None:
    return value / price if value is not None and price else None


def offer_row(offer: Offer, snapshot_id: int, specs: Specs) -> dict[str, Any]:
    """The ``offers`` row of ``offer`` in snapshot ``snapshot_id``."""
    bw, tf = specs.get(offer.accelerator, (None, None))
    per_gpu, spot_per_gpu = offer.price_usd_per_gpu_hour, offer.spot_price_usd_per_gpu_hour
    row = {c.name: c.to_column(getattr(offer, c.name)) for c in _columns(type(offer))}
    row.update(
        snapshot_id=snapshot_id,
        price_usd_per_gpu_hour=per_gpu,
        spot_price_usd_per_gpu_hour=spot_per_gpu,
        bandwidth_per_usd=_per(bw, per_gpu),
        tflops_per_usd=_per(tf, per_gpu),
        spot_bandwidth_per_usd=_per(bw, spot_per_gpu),
        spot_tflops_per_usd=_per(tf, spot_per_gpu),
    )
    return row


def row_offer(row: Mapping[Any, Any], cls: type[Offer] = Offer) -> Offer:
    """The ``Offer`` a row (mapping of at least :func:`offer_columns`) holds."""
    return cls(**{c.name: c.from_column(row[c.name]) for c in _columns(cls)})


def decode_offer(values: Sequence[Any], cls: type[Offer] = Offer) -> Offer:
    """The ``Offer`` of a row read as the driver returns it, with the :func:`offer_columns` values in
    that order (``SELECT`` of :data:`OFFER_COLUMNS`)."""
    return cls(*[c.from_column(v) for c, v in zip(_columns(cls), values, strict=True)])
