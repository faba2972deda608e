"""The ``Offer`` fields as the faces show them, derived from the dataclass (never listed by hand).

* :func:`face_fields`: the fields the API, the exports and the CLI show (``metadata["face"]`` is not
  false), in declaration order, with their type and description;
* :data:`RECORD_COLUMNS` / :func:`offer_record`: one offer as plain values (enums as their value,
  datetimes as ISO 8601, tuples as lists), followed by the computed values
  (:data:`~gpuscout.catalog.offer.COMPUTED_FIELDS`);
* :func:`csv_cell` / :func:`write_csv`: CSV cells that cannot start a spreadsheet formula (not even
  in a file opened with ``;`` or tab as the delimiter), lists joined with ``" | "``.

Pure: no I/O beyond the stream :func:`write_csv` is given.
"""

from __future__ import annotations

import csv
import dataclasses
import enum
import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any, TypeVar

from gpuscout.catalog.offer import COMPUTED_FIELDS, Offer

LIST_SEPARATOR = " | "


@dataclass(frozen=True, slots=True)
class FaceField:
    """One value the faces show: an ``Offer`` field or a computed property."""

    name: str
    type: Any  # the annotation (``float | None``, ``tuple[str, ...]``, an enum...)
    doc: str
    computed: bool = False


T = TypeVar("T")


def per_offer_type(derive: Callable[[type[Offer]], T]) -> Callable[[type[Offer]], T]:
    """``derive`` computed once per Offer class (the field lists are read on every row)."""
    done: dict[type[Offer], T] = {}

    def get(cls: type[Offer]) -> T:
        if cls not in done:
            done[cls] = derive(cls)
        return done[cls]

    return get


@per_offer_type
def offer_constructor(cls: type[Offer]) -> Callable[..., Offer]:
    """A function making ``cls(...)`` (same parameters, same defaults, the same object), compiled once.

    A frozen dataclass's ``__init__`` stores each field through ``object.__setattr__``, a generic
    call that costs more than the rest of building an offer from a file row; this one stores each
    field through its slot's own setter (reading 100,000 offers makes 100,000 objects). A class
    that is not a plain slots dataclass (a ``__post_init__``, a field without a slot) gets its own
    constructor.
    """
    fields = dataclasses.fields(cls)
    slots = [next((vars(k)[f.name] for k in cls.__mro__ if f.name in vars(k)), None) for f in fields]
    plain_slots = all(type(s).__name__ == "member_descriptor" for s in slots)
    if hasattr(cls, "__post_init__") or not plain_slots:
        return cls
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls, "MISSING": dataclasses.MISSING}
    params, body = [], []
    for i, (f, slot) in enumerate(zip(fields, slots, strict=True)):
        scope[f"s{i}"] = slot.__set__  # type: ignore[union-attr]
        value = f.name
        if f.default is not dataclasses.MISSING:
            scope[f"d{i}"] = f.default
            params.append(f"{f.name}=d{i}")
        elif f.default_factory is not dataclasses.MISSING:
            scope[f"f{i}"] = f.default_factory
            params.append(f"{f.name}=MISSING")
            value = f"(f{i}() if {f.name} is MISSING else {f.name})"
        else:
            params.append(f.name)
        body.append(f"    s{i}(o, {value})\n")
    source = f"def make({', '.join(params)}):\n    o = new(cls)\n{''.join(body)}    return o\n"
    exec(source, scope)  # the text is built above from the field list only
    make: Callable[..., Offer] = scope["make"]
    return make


@per_offer_type
def _face_fields(cls: type[Offer]) -> tuple[FaceField, ...]:
    hints = typing.get_type_hints(cls)
    out = [
        FaceField(f.name, hints[f.name], str(f.metadata.get("doc", "")))
        for f in dataclasses.fields(cls)
        if f.metadata.get("face", True)
    ]
    for name, doc in COMPUTED_FIELDS:
        prop = getattr(cls, name)
        out.append(FaceField(name, typing.get_type_hints(prop.fget)["return"], doc, computed=True))
    return tuple(out)


def face_fields(cls: type[Offer] = Offer) -> tuple[FaceField, ...]:
    """The shown fields of ``cls`` (the Offer type), then its computed values."""
    return _face_fields(cls)


def record_columns(cls: type[Offer] = Offer) -> tuple[str, ...]:
    return tuple(f.name for f in face_fields(cls))


RECORD_COLUMNS: tuple[str, ...] = record_columns()


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """A field value as a plain JSON value (enum -> value, datetime -> ISO 8601, tuple -> list)."""
    if type(value) in _PLAIN_TYPES:  # most values, answered before the (abstract) type checks below
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def offer_record(offer: Offer) -> dict[str, Any]:
    """The shown fields of ``offer`` (of its own class) as plain values, computed values last."""
    return {f.name: plain(getattr(offer, f.name)) for f in face_fields(type(offer))}


#: What makes a spreadsheet read a cell as a formula (the full-width forms too) or run one (tab, CR).
FORMULA_TRIGGERS = "=+-@\uff1d\uff0b\uff0d\uff20"
#: Where a spreadsheet may start a new cell although our quoting says otherwise (a file opened with
#: ";" or tab as the delimiter, a reader that ends rows at any CR or LF): a formula may not start
#: right after one either (spaces and quotes in between ignored).
_SPLITS = re.compile("[;\t\r\n]")
_SPLIT_THEN_FORMULA = re.compile(f'([;\t\r\n])([ "]*)([{re.escape(FORMULA_TRIGGERS)}][^;\t\r\n]*)')


def csv_cell(value: Any) -> str:
    """A CSV cell: ``None`` is empty, lists are joined, and text that a spreadsheet could read as a
    formula stays text: a quote is put before a formula start at the beginning (after leading spaces
    or quotes, or when the cell starts with a tab or a line end) and after every ``;``, tab, CR or
    LF (a file opened with other delimiters splits there). Numbers (``-2``, ``+1e5``) are left as
    they are. A CR becomes a LF, which the writer quotes."""
    if value is None:
        return ""
    kind = type(value)
    if kind is int or kind is float:
        return str(value)  # a number's text is a number (a "-" before it starts no formula)
    if isinstance(value, list | tuple):
        value = LIST_SEPARATOR.join(str(v) for v in value)
    # a bare CR ends a row for a CSV reader but is no line end to a writer using "\n": as LF it is
    # quoted with the cell instead of splitting it
    text = str(value).replace("\r\n", "\n").replace("\r", "\n")
    if _SPLITS.search(text):
        text = _SPLIT_THEN_FORMULA.sub(_neutralise_fragment, text)
    first = text.lstrip(' "')[:1]
    if text[:1] in ("\t", "\r", "\n") or (first and first in FORMULA_TRIGGERS and not _is_number(text)):
        return "'" + text
    return text


def _neutralise_fragment(match: re.Match[str]) -> str:
    separator, spaces, fragment = match.groups()
    return separator + spaces + (fragment if _is_number(fragment) else "'" + fragment)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def write_csv(stream: IO[str], columns: Sequence[str], records: Iterable[Mapping[str, Any]]) -> None:
    """Write ``records`` under the header ``columns`` (one line each, ``\\n`` line ends, safe cells)."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow([csv_cell(record.get(c)) for c in columns])
