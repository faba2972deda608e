"""The trade-off between cost and time: the Pareto front and its three named picks.

Every workload has two axes: what it costs (serve: per month; jobs: per run) and how long it takes
(jobs: wall-clock time to finish, spot rework included; serve: one request's latency at the
operating point, TTFT + output tokens x time per output token). A row is *dominated* when another
row is at most as dear and at most as slow, and strictly better on one of the two; the *front* is the
rows no other row dominates. Nobody should rent a dominated row: something is cheaper and faster.

The picks, all on the front:

- **cheapest**: the front's cheapest row (its fastest, when several cost the same).
- **fastest**: the cheapest front row within ``fastest_tolerance`` (5 %) of the best time. A few per
  cent of speed are inside the estimate's error; paying several times more for them is no pick.
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
#: The fastest pick is the cheapest row within this share of the best time.
FASTEST_TOLERANCE = 0.05


def front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the non-dominated ``(cost, time)`` points, cheapest first (ties: faster first, then
    the input order). Points equal on both axes are all kept (neither dominates the other)."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1], i))
    kept: list[int] = []
    best_time = math.inf
    last: tuple[float, float] | None = None
    for i in order:
        cost, time = points[i]
        if time < best_time:
            kept.append(i)
            best_time = time
            last = (cost, time)
        elif last is not None and (cost, time) == last:
            kept.append(i)
    return kept


def balanced_score(cost: float, time: float, cheapest: float, best_time: float) -> float:
    """``cost / cheapest x time / best time``: 1 for a row that is both the cheapest and the fastest."""
    return (cost / max(cheapest, 1e-12)) * (time / max(best_time, 1e-12))


def picks(
    points: Sequence[tuple[float, float]],
    *,
    balanced_time_factor: float = BALANCED_TIME_FACTOR,
    fastest_tolerance: float = FASTEST_TOLERANCE,
) -> dict[str, int]:
    """The named picks among front ``points`` (``(cost, time)`` pairs), as indices into ``points``."""
    if not points:
        return {}
    idx = range(len(points))
    cheapest_cost = min(p[0] for p in points)
    best_time = min(p[1] for p in points)
    cheapest = min(idx, key=lambda i: (points[i][0], points[i][1], i))
    near_best = [i for i in idx if points[i][1] <= best_time * (1.0 + fastest_tolerance)]
    fastest = min(near_best, key=lambda i: (points[i][0], points[i][1], i))
    allowed = [i for i in idx if points[i][1] <= best_time * balanced_time_factor]
    balanced = min(
        allowed,
        key=lambda i: (balanced_score(points[i][0], points[i][1], cheapest_cost, best_time), points[i][0], i),
    )
    return {"cheapest": cheapest, "balanced": balanced, "fastest": fastest}


def dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether ``a`` is at most as dear and as slow as ``b``, and strictly better on one axis."""
    return a[0] <= b[0] and a[1] <= b[1] and (a[0] < b[0] or a[1] < b[1])
