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
from gpuscout.catalog.offer_fields import offer_constructor, per_offer_type

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
        stored = {m: m.value for m in enum_type}  # a member (or its value) -> the value, one lookup
        return (lambda v: stored.get(v) or enum_type(v).value), enum_type
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
    plain: str | None  # "str", "float", "int", "bool": to_column is that conversion (see _inline)
    optional: bool
    is_tuple: bool
    is_time: bool


def _plain(hint: Any) -> tuple[str | None, bool]:
    """(the plain type a field's to_column applies, whether the field is optional)."""
    args = typing.get_args(hint)
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args
    inner = next(a for a in args if a is not type(None)) if optional else hint
    plain = {str: "str", float: "float", int: "int", bool: "bool"}.get(inner)
    return plain, optional


@per_offer_type
def _columns(cls: type[Offer]) -> tuple[_Column, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else None
        to_col, from_col = _codec(hints[f.name], default)
        plain, optional = _plain(hints[f.name])
        is_tuple = typing.get_origin(hints[f.name]) is tuple
        is_time = datetime in (hints[f.name], *typing.get_args(hints[f.name]))
        out.append(_Column(f.name, to_col, from_col, plain, optional, is_tuple, is_time))
    return tuple(out)


def _inline(column: _Column, i: int) -> str:
    """The expression of ``column.to_column(o.<name>)``, written out for the plain types (no call)."""
    v, get = f"v{i}", f"(v{i} := o.{column.name})"
    if column.plain == "str":
        value = f'{v} if "\\x00" not in {v} else _text({v})'
    elif column.plain is not None:
        value = f"{column.plain}({v})"
    else:
        value = f"c{i}({v})"
    if column.optional:
        return f"(None if {get} is None else {value})"
    if column.plain == "str":
        return f'({v} if "\\x00" not in {get} else _text({v}))'
    return value.replace(f"({v})", f"({get})", 1)


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


#: The columns the store adds to an offer's fields, computed from the offer and the accelerator specs.
STORE_COLUMNS = (
    "snapshot_id",
    "price_usd_per_gpu_hour",
    "spot_price_usd_per_gpu_hour",
    "bandwidth_per_usd",
    "tflops_per_usd",
    "spot_bandwidth_per_usd",
    "spot_tflops_per_usd",
)
_STORE_VALUES = {
    "snapshot_id": "snapshot_id",
    "price_usd_per_gpu_hour": "per_gpu",
    "spot_price_usd_per_gpu_hour": "spot_per_gpu",
    "bandwidth_per_usd": "_per(bw, per_gpu)",
    "tflops_per_usd": "_per(tf, per_gpu)",
    "spot_bandwidth_per_usd": "_per(bw, spot_per_gpu)",
    "spot_tflops_per_usd": "_per(tf, spot_per_gpu)",
}

RowValues = Callable[[Offer, int, Specs], tuple[Any, ...]]


def insert_binds(dialect: Any, table: Any) -> dict[str, Convert | None]:
    """Each column's bind processor for ``dialect`` (SQLAlchemy's own), where it matters replaced by
    one giving the same values for what an offer row holds, without SQLAlchemy's general checks.

    On SQLite a float needs none (every float column's value is already a float or None), a boolean
    is stored as ``int(bool(v))`` (written inline by :func:`row_values`), and a JSON value as the
    text of ``json.dumps``: the JSON replacement writes a mapping or list of strings directly (the
    ``extra`` of every row, its ``regions``) and hands anything else to SQLAlchemy's processor.
    Other dialects keep SQLAlchemy's processors. ``tests/catalog/test_reader.py`` checks the values
    are the same.
    """
    import sqlalchemy as sa

    binds: dict[str, Convert | None] = {}
    for column in table.columns:
        bind = column.type.dialect_impl(dialect).bind_processor(dialect)
        if dialect.name == "sqlite" and bind is not None:
            if isinstance(column.type, sa.Float) and not column.type.asdecimal:
                bind = None
            elif isinstance(column.type, sa.Boolean) and not dialect.supports_native_boolean:
                bind = sqlite_boolean
            elif isinstance(column.type, sa.JSON) and dialect._json_serializer is None:
                bind = json_text(bind)
        binds[column.name] = bind
    return binds


_STRICT_BOOLS = frozenset({None, True, False})


def sqlite_boolean(value: Any) -> int | None:
    """SQLAlchemy's Boolean bind on SQLite (a strict bool, stored as an integer); :func:`row_values`
    writes it inline for a bool field."""
    if value not in _STRICT_BOOLS:
        raise TypeError(f"Not a boolean value: {value!r}")
    return None if value is None else int(value)


def json_text(fallback: Convert) -> Convert:
    """``fallback`` (SQLAlchemy's JSON bind: ``json.dumps`` text), written directly for a dict of
    strings or a list of strings (the same text: ``json.dumps``'s separators and ASCII escapes)."""
    from json.encoder import encode_basestring_ascii as quote

    def text(value: Any) -> Any:
        kind = type(value)
        if kind is dict:
            parts = []
            for k, v in value.items():
                if type(k) is not str or type(v) is not str:
                    return fallback(value)
                parts.append(f"{quote(k)}: {quote(v)}")
            return "{" + ", ".join(parts) + "}"
        if kind is list:
            for v in value:
                if type(v) is not str:
                    return fallback(value)
            return "[" + ", ".join(map(quote, value)) + "]"
        return fallback(value)

    return text


def row_values(
    columns: Sequence[str], binds: Mapping[str, Convert | None], cls: type[Offer] = Offer
) -> RowValues:
    """A function giving an offer's ``offers`` row as a tuple in ``columns`` order, each value passed
    through ``binds[column]`` (the database dialect's own conversion for that column, or ``None``).

    The values are those of :func:`offer_row`; the function is compiled once for the column list (as
    :mod:`dataclasses` compiles ``__init__``), because building a dict per row and converting it cell
    by cell costs more than the database's own insert at 100,000 offers.
    """
    fields = {c.name: c for c in _columns(cls)}
    scope: dict[str, Any] = {"_per": _per, "_text": _text, "_NO_SPECS": (None, None)}
    exprs = []
    for i, name in enumerate(columns):
        bind = binds.get(name)
        if bind is not None:
            scope[f"b{i}"] = bind
        column = fields.get(name)
        if column is not None:
            scope[f"c{i}"] = column.to_column
            if column.is_tuple and bind is not None and not column.optional:
                # most lists are empty: their stored form is computed once
                scope[f"e{i}"] = bind(column.to_column(()))
                exprs.append(f"(e{i} if not (v{i} := o.{name}) else b{i}(c{i}(v{i})))")
                continue
            if bind is sqlite_boolean and column.plain == "bool":  # int(bool(v)), without a call
                value = f"(1 if (v{i} := o.{name}) else 0)"
                exprs.append(
                    f"(None if (v{i} := o.{name}) is None else (1 if v{i} else 0))"
                    if column.optional
                    else value
                )
                continue
            if column.is_time:  # the offers of one feed or file mostly share one time object
                scope[f"k{i}"] = _same_as_last(column.to_column, bind)
                exprs.append(f"k{i}(o.{name})")
                continue
            expr = _inline(column, i)
        elif name in _STORE_VALUES:
            expr = _STORE_VALUES[name]
        else:
            raise ValueError(f"no value for column {name!r} of offers")
        exprs.append(f"b{i}({expr})" if bind is not None else expr)
    source = (
        "def values(o, snapshot_id, specs):\n"
        "    bw, tf = specs.get(o.accelerator, _NO_SPECS)\n"
        "    per_gpu = o.price_usd_per_gpu_hour\n"
        "    spot_per_gpu = o.spot_price_usd_per_gpu_hour\n"
        f"    return ({', '.join(exprs)},)\n"
    )
    exec(source, scope)
    built: RowValues = scope["values"]
    return built


def _same_as_last(convert: Convert, bind: Convert | None) -> Convert:
    """``bind(convert(v))``, computed again only when ``v`` is not the previous value's object (the
    pair is replaced in one assignment, so concurrent writers never see half of it)."""
    last: list[tuple[Any, Any]] = [(object(), None)]

    def stored(value: Any) -> Any:
        seen, out = last[0]
        if value is not seen:
            out = convert(value)
            out = bind(out) if bind is not None else out
            last[0] = (value, out)
        return out

    return stored


def _equal_to_last(convert: Convert) -> Convert:
    """``convert(v)``, computed again only when ``v`` differs from the previous value (a stored time
    reads back as new text for every row)."""
    last: list[tuple[Any, Any]] = [(object(), None)]

    def read(value: Any) -> Any:
        seen, out = last[0]
        if value is None or value != seen:
            out = convert(value)
            last[0] = (value, out)
        return out

    return read


def row_offer(row: Mapping[Any, Any], cls: type[Offer] = Offer) -> Offer:
    """The ``Offer`` a row (mapping of at least :func:`offer_columns`) holds."""
    return cls(**{c.name: c.from_column(row[c.name]) for c in _columns(cls)})


def decode_offer(values: Sequence[Any], cls: type[Offer] = Offer) -> Offer:
    """The ``Offer`` of a row read as the driver returns it, with the :func:`offer_columns` values in
    that order (``SELECT`` of :data:`OFFER_COLUMNS`)."""
    return _decoder(cls)(values)


@per_offer_type
def _decoder(cls: type[Offer]) -> Callable[[Sequence[Any]], Offer]:
    """``cls(*[column.from_column(v) ...])`` for a row, compiled once (see :func:`row_values`): reading
    all the matches of a query at 100,000 offers decodes tens of thousands of rows."""
    columns = _columns(cls)
    scope: dict[str, Any] = {"cls": offer_constructor(cls)}  # cls(...), through the slots
    exprs = []
    for i, column in enumerate(columns):
        v, get = f"v{i}", f"(v{i} := r[{i}])"
        scope[f"c{i}"] = column.from_column
        if column.plain == "str":
            if column.optional:
                exprs.append(f"r[{i}]")  # None stays None, text is itself
            else:
                scope[f"d{i}"] = column.from_column(None)  # the field's default for a NULL
                exprs.append(f"(d{i} if {get} is None else {v})")
        elif column.plain is not None:
            convert = f"{column.plain}({v})"
            plain = f"{column.plain}(r[{i}])"
            exprs.append(f"(None if {get} is None else {convert})" if column.optional else plain)
        elif column.is_tuple:
            exprs.append(f'(() if {get} == "[]" else c{i}({v}))')  # most lists are empty
        elif column.is_time:
            scope[f"c{i}"] = _equal_to_last(column.from_column)  # one feed's rows share a time
            exprs.append(f"c{i}(r[{i}])")
        else:
            exprs.append(f"c{i}(r[{i}])")
    source = f"def decode(r):\n    return cls({', '.join(exprs)})\n"
    exec(source, scope)  # the text is built above from the field list only
    decode: Callable[[Sequence[Any]], Offer] = scope["decode"]
    return decode
