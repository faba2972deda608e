"""What a refresh of one source reports (:class:`RefreshResult`), and what a store write reports
(:class:`WriteReport`, the drop reasons a snapshot row keeps).

Its own module, without the refresh machinery (HTTP client, event loops, adapters) or the database
engine, so that the read path can load the bundled snapshot and report it the same way, and the
``sqlite3`` writer (:mod:`gpuscout.catalog.sqlite_writer`) can write as the Store does, without
importing them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

DropReasons = Mapping[str, Mapping[str, int]]  # {"invalid": {reason: n}, "excluded": {reason: n}}


def drop_reasons_json(reasons: DropReasons | None) -> dict[str, dict[str, int]] | None:
    """The ``snapshots.drop_reasons`` value: empty kinds left out, ``None`` when nothing was dropped."""
    if not reasons:
        return None
    out = {kind: {str(r): int(n) for r, n in counts.items() if n} for kind, counts in reasons.items()}
    return {kind: counts for kind, counts in out.items() if counts} or None


FAILED_STATUSES = ("rejected", "failed")


def attempt_row(
    source: str,
    status: str,
    *,
    started_at: datetime,
    finished_at: datetime,
    error: str | None,
    reason: str | None,
    row_count: int,
    dropped_count: int,
    drop_reasons: DropReasons | None,
) -> dict[str, Any]:
    """The ``snapshots`` row of a rejected or failed refresh: no offers, no providers, never a
    fallback. Both writers (the Store and the ``sqlite3`` writer) insert this row. Any other
    ``status`` is refused with InvalidInputError."""
    if status not in FAILED_STATUSES:
        from gpuscout.errors import InvalidInputError, quoted_value

        raise InvalidInputError(
            "status", f"{quoted_value(status)} is not a failed attempt", ", ".join(FAILED_STATUSES)
        )
    return {
        "source": source,
        "started_at": started_at,
        "finished_at": finished_at,
        "status": status,
        "error": error,
        "row_count": row_count,
        "reason": reason,
        "dropped_count": dropped_count,
        "observed_at": None,
        "providers": "",
        "fallback": False,
        "drop_reasons": drop_reasons_json(drop_reasons),
    }


@dataclass(slots=True)
class WriteReport:
    """What a store's ``write_snapshot`` stored."""

    snapshot_id: int
    rows: int
    providers: list[str] = field(default_factory=list)
    written: bool = True  # False: the condition of ``only_if_absent``/``unless_fingerprint`` did not hold


@dataclass(frozen=True, slots=True)
class RefreshResult:
    """Outcome of refreshing one source.

    ``status``: ``ok`` (stored and current), ``rejected`` (fetched but refused by the validation
    gate), ``failed`` (error or timeout) or ``skipped`` (credentials missing). ``rows`` is the
    number stored (ok) or received (otherwise). ``dropped`` counts the invalid rows not stored
    (dropped by the adapter or by the gate), ``drop_reasons`` the same per reason; ``excluded``
    counts feed rows that are not offers by design (CPU-only types, reservation terms...).
    """

    source: str
    status: str
    rows: int
    elapsed_s: float
    error: str | None = None
    dropped: int = 0
    snapshot_id: int | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    drop_reasons: dict[str, int] = field(default_factory=dict)
    excluded: int = 0

    @property
    def ok(self) -> bool:
        return self.status == "ok"
