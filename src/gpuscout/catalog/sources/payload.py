"""Reading provider payloads defensively: named fields, schema-change detection, row drops.

A missing or renamed field inside one row drops that row with a reason naming the field. When
*every* row of a non-empty answer lacks the same field, the provider changed its schema and the
source fails with a :class:`SourceError` naming the field (never a bare ``KeyError``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from gpuscout.catalog.normalize import Unmatched
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.catalog.sources.base import Source, SourceError
from gpuscout.wording import plural


class MissingField(Unmatched):
    """A field the parser needs is absent (or null / the wrong type) in a row."""

    def __init__(self, path: str, problem: str = "missing", kind: str | None = None) -> None:
        self.path = path
        super().__init__(f"field {path!r} {problem}", f"field {path!r} {kind or problem}")


def field(row: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...] | None = None) -> Any:
    """``row[key]``, or :class:`MissingField` naming ``where.key`` when absent/null/wrong type."""
    if not isinstance(row, Mapping):
        raise MissingField(where, f"is {type(row).__name__}, expected an object")
    if key not in row or row[key] is None:
        raise MissingField(f"{where}.{key}")
    value = row[key]
    wrong_bool = isinstance(value, bool) and bool not in _as_tuple(kind or ())
    if kind is not None and (not isinstance(value, kind) or wrong_bool):
        raise MissingField(f"{where}.{key}", f"has type {type(value).__name__}")
    return value


def number(row: Mapping[str, Any], key: str, where: str) -> float:
    """A numeric field (numbers or numeric strings); :class:`MissingField` otherwise."""
    value = field(row, key, where)
    if isinstance(value, bool):
        raise MissingField(f"{where}.{key}", "is a boolean, expected a number", "not a number")
    try:
        result = float(value)
    except (TypeError, ValueError, OverflowError):
        raise MissingField(
            f"{where}.{key}", f"is {_short(value)}, expected a number", "not a number"
        ) from None
    if not math.isfinite(result):
        raise MissingField(f"{where}.{key}", f"is {_short(value)}, expected a finite number", "not a number")
    return result


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def envelope(payload: Any, key: str, source: str, kind: type | tuple[type, ...] = list) -> Any:
    """The top-level ``payload[key]`` of an answer, or :class:`SourceError` naming the field."""
    if not isinstance(payload, dict):
        raise SourceError(
            source, f"unexpected answer: {type(payload).__name__}, expected a JSON object with field {key!r}"
        )
    if key not in payload:
        present = ", ".join(sorted(map(str, payload))[:8]) or "none"
        raise SourceError(source, f"schema change: field {key!r} missing from the answer (fields: {present})")
    value = payload[key]
    if value is None:
        return kind() if kind in (list, dict) else value
    if not isinstance(value, kind):
        raise SourceError(source, f"schema change: field {key!r} is {type(value).__name__}")
    return value


NO_PRICE = "no positive price"


def require_price(on_demand: float | None, spot: float | None) -> None:
    """Drop a row that has neither an on-demand nor a spot price (unknown is not an offer)."""
    if on_demand is None and spot is None:
        raise Unmatched("no positive on-demand or spot price", NO_PRICE)


def now_utc() -> datetime:
    return datetime.now(UTC)


def parse_rows(
    source: Source,
    rows: Iterable[Any],
    parse: Callable[[Any], Iterable[Offer]],
    ident: Callable[[Any], str],
    *,
    collects: bool = False,
) -> list[Offer]:
    """Parse every row; drop (with reason) rows that raise :class:`Unmatched`; detect schema change.

    A row for which ``parse`` returns nothing is not an offer (a CPU-only type) and does not count
    against the schema-change rule, unless ``collects``: a parser that only gathers rates from each
    row and composes offers afterwards (GCP's SKUs, Azure's meters) returns nothing for every row.
    """
    offers: list[Offer] = []
    seen = 0
    silent = 0  # rows that are not offers and not drops (CPU-only types...)
    missing: Counter[str] = Counter()
    for row in rows:
        seen += 1
        source.rows_seen += 1
        try:
            made = list(parse(row))
        except Unmatched as exc:
            source.drop_unmatched(_label(ident, row, seen), exc)
            if isinstance(exc, MissingField):
                missing[exc.path] += 1
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
            # garbage in one row (wrong types, absurd numbers) drops that row, never the source
            kind = f"malformed row: {type(exc).__name__}"
            source.drop(_label(ident, row, seen), f"{kind}: {str(exc)[:200]}", category=kind)
        else:
            offers.extend(made)
            silent += not made and not collects
    if seen and not offers and missing:
        path, count = missing.most_common(1)[0]
        if count == seen - silent:
            rows = f"all {count} {plural(count, 'row')}"
            raise SourceError(source.name, f"schema change: field {path!r} missing in {rows} of the answer")
    return offers


def _label(ident: Callable[[Any], str], row: Any, position: int) -> str:
    try:
        return ident(row)
    except Exception:  # the identity field itself may be what is missing
        return f"row {position}"


def positive(value: Any) -> float | None:
    """A positive number as float (specs: vCPUs, RAM, disk); anything else -> ``None``."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def placements(regions: Iterable[Any]) -> list[tuple[str, Availability]]:
    """One (region, available) per listed region; none listed -> [("any", unavailable)]."""
    names = [str(r) for r in regions if r]
    if not names:
        return [("any", Availability.UNAVAILABLE)]
    return [(r, Availability.AVAILABLE) for r in names]
