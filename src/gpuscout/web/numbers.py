"""Numbers as people type them into a form: digit groups (``1,000``, ``1 000``, ``1 000``, ``1_000``)
are read where they are unambiguous; a decimal comma (``1,5``) is not, and its error says to use a dot.

Only the web forms read numbers this way (the pages' query strings); the JSON API's typed bodies are
not loosened."""

from __future__ import annotations

import re

#: The digit group separators a form reads: a comma, a space, a thin space, a narrow and a plain
#: no-break space, an underscore.
SEPARATORS = ",\u0020\u2009\u202f\u00a0_"
#: A number with digit groups of three, one separator throughout, and an optional decimal part with a
#: dot (``12,500.50``); ``1,5`` and ``10,00`` are not one.
_GROUPED = re.compile(
    rf"[+-]?[0-9]{{1,3}}(?P<sep>[{SEPARATORS}])[0-9]{{3}}(?:(?P=sep)[0-9]{{3}})*(?:\.[0-9]+)?"
)
#: A number with a comma where a dot was meant (``1,5``, ``10,00``, ``0,05``).
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]*,[0-9]+")
#: What an error about a number with a decimal comma adds.
USE_A_DOT = "a decimal point is a dot (1.5, not 1,5)"


def ungrouped(raw: str) -> str:
    """``raw`` without its digit group separators where it is a grouped number (``"1,000"`` ->
    ``"1000"``, ``"12 500.50"`` -> ``"12500.50"``), else as typed (``"1,5"`` stays ``"1,5"``)."""
    text = raw.strip()
    found = _GROUPED.fullmatch(text)
    return text.replace(found["sep"], "") if found else raw


def decimal_comma(raw: str) -> bool:
    """Whether ``raw`` is a number written with a decimal comma (not digit groups)."""
    text = raw.strip()
    return bool(_DECIMAL_COMMA.fullmatch(text)) and not _GROUPED.fullmatch(text)
