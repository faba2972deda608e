"""Times as the store keeps them (UTC) and as the faces show their age.

Standard library only: the read path (:mod:`gpuscout.catalog.reader`) and the CLI import it
without the database engine.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc(value: datetime | None) -> datetime | None:
    """``value`` in UTC (naive values are taken as UTC, as the store writes them)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def now() -> datetime:
    return datetime.now(UTC)


def format_age(age_s: float | None) -> str:
    """Human age: ``"unknown"`` for ``None``, else ``"45s"``, ``"12m"``, ``"5h"``, ``"3d"``."""
    if age_s is None:
        return "unknown"
    age_s = max(age_s, 0.0)
    if age_s < 120:
        return f"{age_s:.0f}s"
    if age_s < 7200:
        return f"{age_s / 60:.0f}m"
    if age_s < 172800:
        return f"{age_s / 3600:.0f}h"
    return f"{age_s / 86400:.0f}d"
