"""The trade-off between cost and time: the Pareto front and its three named picks.

Every workload has two axes: what it costs (serve: per month; jobs: per run) and how long it takes
(jobs: wall-clock time to finish, spot rework included; serve: one request's latency at the
operating point, TTFT + output tokens x time per output token).

Times within ``time_tolerance`` (5 %) of each other are the same speed: the estimate is not finer
than that, and nobody should pay twice as much for 3 % less latency. A row is *dominated* when
another row is at most as dear and at most 5 % slower, and strictly better on one axis (cheaper, or
faster); the *front* is the rows no other row dominates. Nobody should rent a dominated row:
something is cheaper and as fast, or as cheap and faster, or saves so little that it is not worth
its wait (below).

Waiting is not free. A row ``k`` times as fast as another dominates it when it costs at most
``COST_TOLERANCE`` (5 %) more for each extra multiple of the speed -- ``5 % x (k - 1)`` more, and
never less than 5 % -- (:func:`cost_allowance`): nobody waits 52 days rather than 14 to save $2 of
$2,399 (the costs are an estimated time times a price, no finer than 5 %), nor 3.1 days rather than
8 hours to save $1.66 (8.2 h for $16.85 is 9x as fast for 11 % more, within the 40 % more 9x is worth).
Twice as fast may cost 5 % more, 3x as fast 10 % more, 10x as fast 45 % more, and nothing more than
``MAX_COST_ALLOWANCE`` (50 %) more: a row at two thirds of the price or less is a real choice however slow
it is (an 85-day run on 3 GPUs for $7.9k is not "beaten" by 512 GPUs for 8 hours at $24k; whether the
wait is worth $16k is the renter's call). This is a judgement about what waiting is worth, stated once
here; a deadline (``--deadline``) is the way to say more: under one, a faster row beats a cheaper one
only within ``COST_TOLERANCE`` (:func:`most_allowance`).

The picks, all on the front:

- **cheapest**: the front's cheapest row (its fastest, when several cost the same).
- **fastest**: the cheapest front row within ``time_tolerance`` of the best time.
- **balanced**: among the front rows at most ``balanced_time_factor`` (3x) the *window time*, the one
  with the smallest ``cost / cheapest cost x time / best time`` -- the knee of the front, where saving a
  further 1 % of cost would cost more than 1 % of time. The window time is the best time among the
  front rows that rent no more GPUs than the load needs (``surplus`` false; the best time of the front
  when none does). Only a serving row can rent more than its load needs: one whose extra replicas, or a
  split over more GPUs than the fewest that carry the load within the targets, only shorten requests
  below what the load asks (50 users on an 8x B200 that 1 B200 serves); such a row can still be picked,
  but it does not set the window, so a load that one H100 serves is not held to a third of an
  eight-replica rig's latency. A job (batch, fine-tune, pre-train) is finished sooner by every GPU it
  rents: its window is the front's best time, and its balanced pick is never more than 3x slower than
  the fastest run, however cheap a slow card is. An endpoint whose renter states latency targets takes
  every row within the request latency those targets allow (:func:`acceptable_latency`) as within the
  window too: 125 users held to TTFT <= 5 s and <= 350 ms per token accept a 47 s request, and a 2-box
  answer at $1,999 a month is not passed over for 63 boxes at $32,052 because those answer in 11 s.

Pure functions over plain ``(cost, time)`` pairs, so the ranking, its naive oracle and the tests share
them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: A balanced pick is at most this many times the window time (:func:`window_time`).
BALANCED_TIME_FACTOR = 3.0
#: Times within this share of each other are the same speed (the front, the fastest pick).
TIME_TOLERANCE = 0.05
#: How much more a faster row may cost, per extra multiple of the speed (and at least once), and still
#: beat a slower one (see :func:`cost_allowance`).
COST_TOLERANCE = 0.05
#: The most more a faster row may cost and still beat a slower one, however much faster it is.
MAX_COST_ALLOWANCE = 0.5


def most_allowance(deadline: bool) -> float:
    """The most more a faster row may cost and still beat a slower one: ``MAX_COST_ALLOWANCE``, or under a
    deadline ``COST_TOLERANCE``. A deadline says what time is worth to the renter: the rows that meet it
    are told apart by cost, a faster one beating a cheaper one only within the estimate's own 5 %, not
    for the up to 50 % more that speed is worth without one (the renter who said "by Friday" does not
    want to pay 40 % more to finish on Tuesday)."""
    return COST_TOLERANCE if deadline else MAX_COST_ALLOWANCE


def front(
    points: Sequence[tuple[float, float]],
    tolerance: float = TIME_TOLERANCE,
    most: float = MAX_COST_ALLOWANCE,
) -> list[int]:
    """Indices of the ``(cost, time)`` points no other point dominates (see :func:`dominates`; ``most``:
    the largest cost allowance, :func:`most_allowance`), cheapest first (ties: faster first, then the
    input order). Equal points are all kept. O(n log n): one sort, then one pass over the points in cost
    order. Never empty for points given: where the cost allowances beat every point in a cycle, the points
    no cheaper point matches within ``tolerance`` are the front."""
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
    # a kept point that a faster point beats within its cost allowance goes; the kept points are few
    # (the front), each is checked against the points no dearer than its largest allowance (the one
    # the best time gives), in cost order
    best_time = min((p[1] for p in points), default=0.0)
    out: list[int] = []
    for i in kept:
        ceiling = points[i][0] * (1.0 + cost_allowance(points[i][1], best_time, most))
        beaten = False
        for j in order:
            if points[j][0] > ceiling:
                break
            if j != i and _worth_the_wait(points[j], points[i], tolerance, most):
                beaten = True
                break
        if not beaten:
            out.append(i)
    # "worth the wait" is not transitive with the 5 % tolerance: A beaten by a faster C that a cheaper B
    # matches within 5 %, B matched by the cheaper A, can leave no point at all. Then the first pass's
    # front stands (nothing cheaper is as fast: never empty, the cheapest-fastest point is on it)
    return out or kept


def cost_allowance(slow_time: float, fast_time: float, most: float = MAX_COST_ALLOWANCE) -> float:
    """How much more (a share of the slower row's cost) a row taking ``fast_time`` may cost than one
    taking ``slow_time`` and still beat it: ``COST_TOLERANCE x (slow_time / fast_time - 1)``, at least
    ``COST_TOLERANCE`` and at most ``most`` (:func:`most_allowance`)."""
    ratio = slow_time / max(fast_time, 1e-12)
    return min(max(most, COST_TOLERANCE), COST_TOLERANCE * max(1.0, ratio - 1.0))


def _worth_the_wait(
    a: tuple[float, float], b: tuple[float, float], tolerance: float, most: float = MAX_COST_ALLOWANCE
) -> bool:
    """Whether ``a`` is faster than ``b`` beyond ``tolerance`` and dearer by at most ``b``'s cost
    allowance (:func:`cost_allowance`): ``b`` does not save enough to be worth its wait."""
    return a[1] * (1.0 + tolerance) < b[1] and a[0] <= b[0] * (1.0 + cost_allowance(b[1], a[1], most))


def balanced_score(cost: float, time: float, cheapest: float, best_time: float) -> float:
    """``cost / cheapest x time / best time``: 1 for a row that is both the cheapest and the fastest."""
    return (cost / max(cheapest, 1e-12)) * (time / max(best_time, 1e-12))


def acceptable_latency(ttft_ms: float | None, tpot_ms: float | None, output_tokens: int) -> float:
    """Seconds a request may take within an endpoint's latency targets (TTFT + output tokens x time per
    output token, as a row's latency is counted); 0 where a target is not set (no latency is stated
    acceptable)."""
    if ttft_ms is None or tpot_ms is None:
        return 0.0
    return (ttft_ms + output_tokens * tpot_ms) / 1000.0


def window_time(points: Sequence[tuple[float, float]], surplus: Sequence[bool] = ()) -> float:
    """The time the balanced pick's window counts from: the best time among the ``points`` whose
    ``surplus`` is false (rows that rent no more GPUs than the load needs; every point when
    ``surplus`` is empty), else the best time of all."""
    lean = [p[1] for i, p in enumerate(points) if not (surplus and surplus[i])]
    return min(lean or [p[1] for p in points], default=0.0)


def balanced_window(
    points: Sequence[tuple[float, float]],
    surplus: Sequence[bool] = (),
    balanced_time_factor: float = BALANCED_TIME_FACTOR,
    acceptable: float = 0.0,
) -> float:
    """The longest time a balanced pick may take among front ``points``: ``balanced_time_factor`` x the
    :func:`window_time`, or the ``acceptable`` time the renter stated where that is longer."""
    return max(window_time(points, surplus) * balanced_time_factor, acceptable)


def picks(
    points: Sequence[tuple[float, float]],
    *,
    surplus: Sequence[bool] = (),
    balanced_time_factor: float = BALANCED_TIME_FACTOR,
    time_tolerance: float = TIME_TOLERANCE,
    acceptable: float = 0.0,
) -> dict[str, int]:
    """The named picks among front ``points`` (``(cost, time)`` pairs), as indices into ``points``.
    ``surplus[i]``: point ``i`` rents more GPUs than the load needs, and does not set the balanced
    pick's window (:func:`window_time`); empty: none does. ``acceptable``: a time the renter stated as
    acceptable (:func:`acceptable_latency`), within the window however fast the fastest row is."""
    if not points:
        return {}
    if surplus and len(surplus) != len(points):
        raise ValueError(f"{len(surplus)} surplus flags for {len(points)} points")
    idx = range(len(points))
    cheapest_cost = min(p[0] for p in points)
    best_time = min(p[1] for p in points)
    cheapest = min(idx, key=lambda i: (points[i][0], points[i][1], i))
    near_best = [i for i in idx if points[i][1] <= best_time * (1.0 + time_tolerance)]
    fastest = min(near_best, key=lambda i: (points[i][0], points[i][1], i))
    window = balanced_window(points, surplus, balanced_time_factor, acceptable)
    allowed = [i for i in idx if points[i][1] <= window]
    balanced = min(
        allowed,
        key=lambda i: (balanced_score(points[i][0], points[i][1], cheapest_cost, best_time), points[i][0], i),
    )
    return {"cheapest": cheapest, "balanced": balanced, "fastest": fastest}


def dominates(
    a: tuple[float, float],
    b: tuple[float, float],
    tolerance: float = TIME_TOLERANCE,
    most: float = MAX_COST_ALLOWANCE,
) -> bool:
    """Whether ``a`` is at most as dear as ``b`` and at most ``tolerance`` slower, and strictly better on
    one axis (cheaper, or faster); or faster beyond ``tolerance`` and dearer by no more than ``b``'s
    :func:`cost_allowance` (at most ``most``)."""
    if a[0] <= b[0] and a[1] <= b[1] * (1.0 + tolerance) and (a[0] < b[0] or a[1] < b[1]):
        return True
    return _worth_the_wait(a, b, tolerance, most)
