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
from json.encoder import encode_basestring_ascii
from typing import Any

_INDENT = "  "
_CONSTANTS = {True: "true", False: "false"}


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


def _scalar(value: Any) -> str | None:
    """The text of a scalar JSON value; ``None`` for a list or a dict (or anything else)."""
    kind = type(value)
    if kind is str:
        return str(encode_basestring_ascii(value))
    if value is None:
        return "null"
    if kind is float:
        return _float(value)
    if kind is bool:
        return _CONSTANTS[value]
    if kind is int:
        return int.__repr__(value)
    return None


def _encode(value: Any, depth: int) -> str:
    text = _scalar(value)
    if text is not None:
        return text
    kind = type(value)
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = "\n" + _INDENT * (depth + 1)
        items = [_scalar(v) or _encode(v, depth + 1) for v in value]
        return "[" + inner + ("," + inner).join(items) + "\n" + _INDENT * depth + "]"
    if kind is dict:
        if not value:
            return "{}"
        inner = "\n" + _INDENT * (depth + 1)
        parts = []
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            parts.append(f"{encode_basestring_ascii(key)}: {_scalar(item) or _encode(item, depth + 1)}")
        return "{" + inner + ("," + inner).join(parts) + "\n" + _INDENT * depth + "}"
    raise _NotPlain


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2, default=str)``."""
    try:
        return _encode(value, 0)
    except (_NotPlain, RecursionError):
        return json.dumps(value, indent=2, default=str)
