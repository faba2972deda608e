"""``json.dumps(value, indent=2, default=str)``, written out for the values the CLI prints.

With ``indent`` set, the standard library encodes in pure Python, one generator step per value:
printing every match of a query at 100,000 offers spent more time there than in reading them.
:func:`dumps_indented` gives the same text for plain JSON values (dicts with text keys, lists,
text, numbers, booleans, ``None``) with far fewer steps, using the standard library's own encoders
for text and numbers; any other value (a key that is not text, an object for ``default``) makes it
hand the whole value to ``json.dumps``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring_ascii
from typing import Any

_INDENT = "  "


class _NotPlain(Exception):
    """A value the written-out encoder leaves to ``json.dumps``."""


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def _null(value: None) -> str:
    return "null"


def _bool(value: bool) -> str:
    return "true" if value else "false"


#: The text of each scalar JSON type (str and int by the standard library's own C functions).
_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring_ascii, type(None): _null, float: _float, bool: _bool, int: int.__repr__,
}  # fmt: skip


def _scalar(value: Any) -> str | None:
    """The text of a scalar JSON value; ``None`` for a list or a dict (or anything else)."""
    write = _SCALARS.get(type(value))
    return None if write is None else write(value)


def _encode(value: Any, depth: int) -> str:
    write = _SCALARS.get(type(value))
    if write is not None:
        return write(value)
    kind = type(value)
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = "\n" + _INDENT * (depth + 1)
        get, deeper = _SCALARS.get, depth + 1
        items = [w(v) if (w := get(type(v))) is not None else _encode(v, deeper) for v in value]
        return "[" + inner + ("," + inner).join(items) + "\n" + _INDENT * depth + "]"
    if kind is dict:
        if not value:
            return "{}"
        inner = "\n" + _INDENT * (depth + 1)
        get, deeper = _SCALARS.get, depth + 1
        # A key that is not text is a TypeError here: json.dumps then writes the whole value.
        parts = [
            f"{encode_basestring_ascii(k)}: {w(v) if (w := get(type(v))) is not None else _encode(v, deeper)}"
            for k, v in value.items()
        ]
        return "{" + inner + ("," + inner).join(parts) + "\n" + _INDENT * depth + "}"
    raise _NotPlain


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2, default=str)``."""
    try:
        return _encode(value, 0)
    except (_NotPlain, TypeError, RecursionError):
        return json.dumps(value, indent=2, default=str)


def object_lines(
    pairs: list[tuple[str, Any]], more: dict[str, Any], plain: Callable[[Any], Any], depth: int
) -> str:
    """The text ``dumps_indented`` gives, at ``depth``, for a dict: ``pairs`` are its first items as
    (the key's JSON text followed by ``": "``, value) (see :func:`key_text`), then ``more``; each
    value is first made plain by ``plain`` (``to_jsonable``) unless it is a scalar already."""
    inner = "\n" + _INDENT * (depth + 1)
    get, deeper = _SCALARS.get, depth + 1
    parts = [
        head + (w(v) if (w := get(type(v))) is not None else _dump(plain(v), deeper))
        for head, v in (*pairs, *((key_text(k), v) for k, v in more.items()))
    ]
    if not parts:
        return "{}"
    return "{" + inner + ("," + inner).join(parts) + "\n" + _INDENT * depth + "}"


def key_text(key: str) -> str:
    """A dict key as :func:`dumps_indented` writes it, with the ``": "`` after it."""
    return encode_basestring_ascii(key) + ": "


def _dump(value: Any, depth: int) -> str:
    """:func:`_encode`, or ``json.dumps``'s text at ``depth`` for a value it leaves (the same text)."""
    try:
        return _encode(value, depth)
    except (_NotPlain, TypeError, RecursionError):
        text = json.dumps(value, indent=2, default=str)
        return text.replace("\n", "\n" + _INDENT * depth)
