"""What a refresh of one source reports (:class:`RefreshResult`).

Its own module, without the refresh machinery (HTTP client, event loops, adapters), so that the
read path can load the bundled snapshot and report it the same way without importing them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
