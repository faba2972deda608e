"""The trade-off between cost and time: the Pareto front and its three named picks.

Every workload has two axes: what it costs (serve: per month; jobs: per run) and how long it takes
(jobs: wall-clock time to finish, spot rework included; serve: one request's latency at the
operating point, TTFT + output tokens x time per output token).

Times within ``time_tolerance`` (5 %) of each other are the same speed: the estimate is not finer
than that, and nobody should pay twice as much for 3 % less latency. A row is *dominated* when
another row is at most as dear and at most 5 % slower, and strictly better on one axis (cheaper, or
faster); the *front* is the rows no other row dominates (with a zero tolerance, the textbook Pareto
front). Nobody should rent a dominated row: something is cheaper and as fast, or as cheap and faster.

Costs within ``COST_TOLERANCE`` (5 %) of each other are the same cost in the same way: a job's cost is
its price times an estimated time, no finer than the time, and nobody should wait 52 days rather than
14 to save $2 of $2,399. A row is also dominated by one at most 5 % dearer that is faster by more than
the time tolerance.

The picks, all on the front:

- **cheapest**: the front's cheapest row (its fastest, when several cost the same).
- **fastest**: the cheapest front row within ``time_tolerance`` of the best time.
- **balanced**: among the front rows at most ``balanced_time_factor`` (3x) the best time, the one with
  the smallest ``cost / cheapest cost x time / best time`` -- the knee of the front, where saving a
  further 1 % of cost would cost more than 1 % of time. A fine-tune's balanced pick is therefore never
  more than 3x slower than the fastest run, however cheap a slow card is.

Pure functions over plain ``(cost, time)`` pairs, so the ranking, its naive oracle and the tests share
them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: A balanced pick is at most this many times the best time on the front.
BALANCED_TIME_FACTOR = 3.0
#: Times within this share of each other are the same speed (the front, the fastest pick).
TIME_TOLERANCE = 0.05
#: Costs within this share of each other are the same cost: a dearer row this close that is faster
#: (beyond ``TIME_TOLERANCE``) dominates the cheaper one.
COST_TOLERANCE = 0.05


def front(points: Sequence[tuple[float, float]], tolerance: float = TIME_TOLERANCE) -> list[int]:
    """Indices of the ``(cost, time)`` points no other point dominates (see :func:`dominates`),
    cheapest first (ties: faster first, then the input order). Equal points are all kept.
    O(n log n): one sort, then one pass over the points in cost order."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1], i))
    kept: list[int] = []
    cheaper_best = math.inf  # the best time among strictly cheaper points
    n = 0
    while n < len(order):
        cost = points[order[n]][0]
        end = n + 1
        while end < len(order) and points[order[end]][0] == cost:
            end += 1
        group = order[n:end]  # equal cost (contiguous in cost order), fastest first
        fastest = points[group[0]][1]
        for i in group:
            time = points[i][1]
            if cheaper_best <= time * (1.0 + tolerance) or fastest < time:
                continue  # a cheaper point is as fast (within the tolerance), or an as cheap one is faster
            kept.append(i)
        cheaper_best = min(cheaper_best, fastest)
        n += len(group)
    # a kept point that a point at most COST_TOLERANCE dearer beats on time (beyond the tolerance) goes:
    # the kept points are few (the front), so the pairs are checked directly
    return [i for i in kept if not any(_near_cost_faster(points[j], points[i], tolerance) for j in kept)]


def _near_cost_faster(a: tuple[float, float], b: tuple[float, float], tolerance: float) -> bool:
    """Whether ``a`` costs at most ``COST_TOLERANCE`` more than ``b`` and is faster beyond ``tolerance``."""
    return a[0] <= b[0] * (1.0 + COST_TOLERANCE) and a[1] * (1.0 + tolerance) < b[1]


def balanced_score(cost: float, time: float, cheapest: float, best_time: float) -> float:
    """``cost / cheapest x time / best time``: 1 for a row that is both the cheapest and the fastest."""
    return (cost / max(cheapest, 1e-12)) * (time / max(best_time, 1e-12))


def picks(
    points: Sequence[tuple[float, float]],
    *,
    balanced_time_factor: float = BALANCED_TIME_FACTOR,
    time_tolerance: float = TIME_TOLERANCE,
) -> dict[str, int]:
    """The named picks among front ``points`` (``(cost, time)`` pairs), as indices into ``points``."""
    if not points:
        return {}
    idx = range(len(points))
    cheapest_cost = min(p[0] for p in points)
    best_time = min(p[1] for p in points)
    cheapest = min(idx, key=lambda i: (points[i][0], points[i][1], i))
    near_best = [i for i in idx if points[i][1] <= best_time * (1.0 + time_tolerance)]
    fastest = min(near_best, key=lambda i: (points[i][0], points[i][1], i))
    allowed = [i for i in idx if points[i][1] <= best_time * balanced_time_factor]
    balanced = min(
        allowed,
        key=lambda i: (balanced_score(points[i][0], points[i][1], cheapest_cost, best_time), points[i][0], i),
    )
    return {"cheapest": cheapest, "balanced": balanced, "fastest": fastest}


def dominates(a: tuple[float, float], b: tuple[float, float], tolerance: float = TIME_TOLERANCE) -> bool:
    """Whether ``a`` is at most as dear as ``b`` and at most ``tolerance`` slower, and strictly better on
    one axis (cheaper, or faster); or at most ``COST_TOLERANCE`` dearer and faster beyond ``tolerance``."""
    if a[0] <= b[0] and a[1] <= b[1] * (1.0 + tolerance) and (a[0] < b[0] or a[1] < b[1]):
        return True
    return _near_cost_faster(a, b, tolerance)
