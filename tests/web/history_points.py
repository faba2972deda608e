"""Hand-made price-history points for the chart tests (the shape of the store's ``HistoryPoint``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

#: the newest observation of the hand-made histories
NEWEST = datetime(2026, 12, 4, 12, tzinfo=UTC)


@dataclass(frozen=True)
class Point:  # the shape of the store's HistoryPoint
    at: datetime | None
    provider: str
    min_usd_per_gpu_hour: float
    median_usd_per_gpu_hour: float
    offers: int = 1
