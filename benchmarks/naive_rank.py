"""The advisor's oracle: ranking computed from scratch for every offer, with nothing shared between offers.

``rank_naive`` builds a fresh ``Ranker`` (evaluator, terms, cost model) per offer and reuses the
ranking's own steps, so it differs from :func:`gpuscout.advise.rank.rank` only by the caching. The
tests (``tests/advise/test_rank.py``) and ``benchmarks/advise.py`` check that both give the same
ranking; it is reference code, not shipped in the package.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.configs import ConfigEval
from gpuscout.advise.cost import CostBreakdown, breakdown, cost_model, data_prices
from gpuscout.advise.rank import (
    Ranker,
    _check_objective,
    _latency_metric,
    _prefilter,
    _prices,
    _sort_key,
    _time_metric,
    _with_rank,
)
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import AnyWorkload
from gpuscout.catalog.offer import Offer


def rank_naive(workload: AnyWorkload, offers: Sequence[Offer], *, objective: str = "cost",
               top: int | None = None, backends: Backends | None = None,
               assumptions: Assumptions | None = None, now: datetime | None = None) -> list[Recommendation]:
    """The straightforward computation: a fresh evaluator, terms and cost model for every offer."""
    _check_objective(objective)
    now = now or datetime.now(UTC)
    be = backends or default_backends()
    rows: list[tuple[tuple[float, float, float, str, str, str, int, int], Recommendation]] = []
    scored: list[tuple[Ranker, Offer, bool, float, float, float, int]] = []
    for index, offer in enumerate(offers):
        ranker = Ranker(workload, backends=be, assumptions=assumptions, now=now)  # no sharing
        if _prefilter(workload, offer) is not None:
            continue
        terms = ranker.terms(offer)
        ev: ConfigEval = ranker.evaluator.evaluate(offer)
        if ev.rejected is not None:
            continue
        for spot, hourly in _prices(workload, offer, terms):
            cost: CostBreakdown = breakdown(cost_model(ev, workload, terms, spot, ranker.a), hourly,
                                            data_prices(offer, terms, ranker.a))
            if workload.budget_usd is not None and cost.total > workload.budget_usd:
                continue
            full = ranker.evaluator.detail(ev)
            tm = _time_metric(workload, full) if objective != "latency" else _latency_metric(workload, full)
            scored.append((ranker, offer, spot, hourly, cost.total, tm, index))
    min_cost = min_time = 1.0
    if objective == "balanced" and scored:
        min_cost = min(s[4] for s in scored) or 1e-12
        min_time = min(s[5] for s in scored) or 1e-12
    for ranker, offer, spot, hourly, total, tm, index in scored:
        if objective == "cost":
            score = total
        elif objective == "balanced":
            score = math.sqrt((total / min_cost) * (tm / min_time))
        else:
            score = tm
        rec = ranker.recommendation(offer, spot, hourly, None, score)
        rows.append((_sort_key(score, total, hourly, offer, spot, index), rec))
    rows.sort(key=lambda r: r[0])
    if top is not None:
        rows = rows[:top]
    return [_with_rank(rec, i + 1) for i, (_, rec) in enumerate(rows)]
