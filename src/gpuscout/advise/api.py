"""The advisor's entry point: rank given offers for a workload (``gpuscout.recommend`` adds the catalog)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends
from gpuscout.advise.rank import rank
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import AnyWorkload, Workload
from gpuscout.catalog.offer import Offer
from gpuscout.errors import InvalidInputError


def as_workload(workload: AnyWorkload | Mapping[str, Any]) -> AnyWorkload:
    """Accept a workload object or a plain mapping (``{"kind": "serve", "model": ...}``)."""
    if isinstance(workload, Workload):
        return workload
    if isinstance(workload, Mapping):
        return Workload.from_dict(dict(workload))
    raise InvalidInputError("workload", f"expected a Workload or a mapping, got {type(workload).__name__}",
                            "ServeWorkload, BatchWorkload, FinetuneWorkload, PretrainWorkload or a dict")


def recommend(
    workload: AnyWorkload | Mapping[str, Any],
    offers: Iterable[Offer],
    *,
    objective: str = "cost",
    top: int | None = None,
    include_rejected: bool = False,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
) -> list[Recommendation]:
    """Rank ``offers`` for ``workload``, best first (pure: the offers are given; ``gpuscout.recommend``
    reads the current catalog when none are).

    ``objective``: "cost" (total cost; serve: per month), "time" (job duration; serve: request latency),
    "latency" (serve: time per output token), "balanced" (geometric mean of relative cost and time).
    Offers that do not fit, miss a latency target, are unavailable, over budget, or spot for a workload
    that does not allow it are left out (or appended, unranked, with ``include_rejected``).
    """
    return rank(as_workload(workload), offers, objective=objective, top=top, backends=backends,
                assumptions=assumptions, include_rejected=include_rejected, now=now)
