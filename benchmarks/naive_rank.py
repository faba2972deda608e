"""The advisor's oracle: the answer computed from scratch for every offer, with nothing shared between offers.

``rank_naive`` builds a fresh ``Ranker`` (evaluator, terms, cost model) per offer, costs every
(offer, price) row, and hands *every* passing row to the same pure selection
(:func:`gpuscout.advise.selection.select`: the Pareto front, the picks, the dominated rows), so it
differs from :func:`gpuscout.advise.rank.rank` only by the caching and the pruning of rows that
cannot be shown. The tests (``tests/advise/test_rank.py``) and ``benchmarks/advise.py`` check that
both give the same answer; it is reference code, not shipped in the package.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.cost import breakdown, cost_model, data_prices
from gpuscout.advise.pareto import most_allowance
from gpuscout.advise.rank import (
    Ranker,
    _fleet_most,
    _job_time,
    _prices,
    billing_options,
    build_rows,
    choice_group,
    prefilter_reason,
    spot_sized,
)
from gpuscout.advise.selection import Candidate, check_objective, select
from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import AnyWorkload
from gpuscout.catalog.offer import Offer


def rank_naive(
    workload: AnyWorkload,
    offers: Sequence[Offer],
    *,
    objective: str = "cost",
    top: int | None = None,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    now: datetime | None = None,
    include_stale: bool = False,
) -> list[Recommendation]:
    """The straightforward computation: a fresh evaluator, terms and cost model for every offer."""
    check_objective(objective)
    now = now or datetime.now(UTC)
    be = backends or default_backends()

    def fresh() -> Ranker:
        return Ranker(workload, backends=be, assumptions=assumptions, now=now, include_stale=include_stale)

    deadline = getattr(workload, "deadline_hours", None)
    deadline_s = deadline * 3600.0 if deadline is not None else math.inf
    rows: list[Candidate] = []
    for index, offer in enumerate(offers):
        ranker = fresh()  # no sharing
        if prefilter_reason(workload, offer, include_stale) is not None:
            continue
        if not include_stale and ranker.provider(offer).defunct:
            continue
        terms = ranker.terms(offer)
        ev = ranker.evaluator.evaluate(offer)
        if ev.rejected is not None:
            continue
        full = ranker.evaluator.detail(ev)
        for spot, hourly in _prices(workload, offer):
            # a spot row of a batch under a deadline: as many more instances as its reclaims need
            sized = spot_sized(workload, full, terms, ranker.a) if spot else full
            # then on the most instances its expected bill keeps within the cost tolerance; under a budget
            # that count's cost is over, the most of those whose cost is within it (none: out for the budget)
            options = billing_options(workload, sized, terms, spot, ranker.a, _fleet_most(offer))
            prices = data_prices(offer, terms, ranker.a)
            budget = workload.budget_usd
            sized = options[0]
            for option in options:
                option_cm = cost_model(option, workload, terms, spot, ranker.a)
                if budget is None or breakdown(option_cm, hourly, prices).total <= budget:
                    sized = option
                    break
            cm = cost_model(sized, workload, terms, spot, ranker.a)
            total = breakdown(cm, hourly, prices).total
            time = _job_time(workload, sized, cm)
            if not total < math.inf or (workload.budget_usd is not None and total > workload.budget_usd):
                continue
            if time > deadline_s:
                continue
            key = (hourly, offer.provider, offer.instance_type, offer.region, int(spot), index)
            group = choice_group(offer, spot, hourly)
            rows.append(Candidate(total, time, key, group, (offer, spot, hourly), sized.rents_surplus))
    a = assumptions or Assumptions()
    selection = select(
        rows,
        rows,
        objective=objective,
        top=top,
        balanced_time_factor=a.balanced_time_factor,
        time_tolerance=a.time_tolerance,
        most_allowance=most_allowance(deadline is not None),
        acceptable=getattr(workload, "stated_latency_s", 0.0),
    )
    return build_rows(selection, offers, fresh(), fresh)
