"""What the CLI prints without Typer or Rich: JSON of dataclasses and records, and a closed stdout
silenced. Apart from :mod:`gpuscout.cli.output` (which needs Typer) for :mod:`gpuscout.cli.lean`."""

from __future__ import annotations

import dataclasses
import enum
import functools
import operator
import os
import sys
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any

_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _shape(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A dataclass's field names and (in ``dir`` order) its property names."""
    fields = tuple(f.name for f in dataclasses.fields(cls))
    return fields, tuple(n for n in dir(cls) if isinstance(getattr(cls, n, None), property))


def to_jsonable(obj: Any) -> Any:
    """Convert dataclasses (their fields, then their properties), enums, datetimes, tuples... into
    plain JSON values."""
    kind: type = type(obj)
    if kind in _PLAIN_TYPES:  # the common leaf, answered before the checks below
        return obj
    how = _KINDS.get(kind) or _kind_of(kind)
    if how is _Kind.DATACLASS:
        fields, properties = _shape(kind)
        out = {}
        for name in fields:  # a plain value is kept as it is without a call (most fields are)
            value = getattr(obj, name)
            out[name] = value if type(value) in _PLAIN_TYPES else to_jsonable(value)
        for name in properties:
            value = getattr(obj, name)
            out[name] = value if type(value) in _PLAIN_TYPES else to_jsonable(value)
        return out
    if how is _Kind.ENUM:
        return obj.value
    if how is _Kind.DATETIME:
        return obj.isoformat()
    if how is _Kind.DICT:
        return {str(k): v if type(v) in _PLAIN_TYPES else to_jsonable(v) for k, v in obj.items()}
    if how is _Kind.SEQUENCE:
        return [v if type(v) in _PLAIN_TYPES else to_jsonable(v) for v in obj]
    if hasattr(obj, "model_dump"):
        return to_jsonable(obj.model_dump(mode="json"))
    return obj


class _Kind(enum.Enum):
    DATACLASS = 1
    ENUM = 2
    DATETIME = 3
    DICT = 4
    SEQUENCE = 5
    OTHER = 6


#: How :func:`to_jsonable` converts an instance of each type seen (the checks run once per type).
_KINDS: dict[type, _Kind] = {}


def _kind_of(cls: type) -> _Kind:
    if dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        how = _Kind.DATACLASS
    elif issubclass(cls, enum.Enum):
        how = _Kind.ENUM
    elif issubclass(cls, datetime | date):
        how = _Kind.DATETIME
    elif issubclass(cls, dict):
        how = _Kind.DICT
    elif issubclass(cls, list | tuple | set | frozenset):
        how = _Kind.SEQUENCE
    else:
        how = _Kind.OTHER
    _KINDS[cls] = how
    return how


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on stdout (no Rich markup)."""
    from gpuscout.cli.json_text import dumps_indented

    sys.stdout.write(dumps_indented(to_jsonable(obj)) + "\n")


def print_records(items: Sequence[Any], more: Callable[[Any], dict[str, Any]]) -> None:
    """``print_json([{**to_jsonable(o), **more(o)} for o in items])`` for instances of one dataclass,
    each written straight from its attributes (no dict per object, no walk over one): listing every
    match of a query at 100,000 offers spent more time building and walking those than reading."""
    from gpuscout.cli.json_text import dumps_indented, object_lines

    try:
        texts = []
        for obj in items:
            extra = more(obj)
            kind: type = type(obj)
            texts.append(object_lines(_record_parts(kind, tuple(extra))(obj), extra, to_jsonable, 1))
    except ValueError:  # not a plain dataclass, or ``more`` names one of its fields
        sys.stdout.write(dumps_indented(to_jsonable([{**to_jsonable(o), **more(o)} for o in items])) + "\n")
        return
    sys.stdout.write(("[\n  " + ",\n  ".join(texts) + "\n]" if texts else "[]") + "\n")


@functools.cache
def _record_parts(cls: type, more: tuple[str, ...]) -> Callable[[Any], list[tuple[str, Any]]]:
    """``(key text, value)`` of each field, then each property, of an instance of ``cls`` (the order
    of :func:`to_jsonable`; the key as :func:`~gpuscout.cli.json_text.object_lines` takes it)."""
    if _KINDS.get(cls) is not _Kind.DATACLASS and _kind_of(cls) is not _Kind.DATACLASS:
        raise ValueError(f"{cls.__name__} is not a dataclass")
    fields, properties = _shape(cls)
    names = (*fields, *properties)
    if set(names) & set(more):
        raise ValueError("an added key is a field")
    from gpuscout.cli.json_text import key_text

    heads = tuple(key_text(n) for n in names)
    getter = operator.attrgetter(*names)
    return lambda obj: list(zip(heads, getter(obj), strict=True))


def silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test runner's buffer): nothing to silence
        pass
