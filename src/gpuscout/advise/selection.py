"""Which rows the answer shows, in which order: the Pareto front first, then the dominated rows.

Input: scored candidates (one per offer and price kind that passed every filter). Output: the rows to
show, each with whether it is on the front, the picks it carries and, for a dominated row, the shown
front row that beats it. Rules:

- The same real choice (same provider, instance type, GPUs, fabric and price: a region copy) is one
  row; the regions are gathered afterwards.
- The front (see :mod:`gpuscout.advise.pareto`) comes first, ordered by the objective: ``cost``
  cheapest first, ``time``/``latency`` fastest first, ``balanced`` by ``cost/cheapest x time/best``.
  When it has more rows than ``top``, the three picks are kept first (as many as ``top`` allows) and
  the others follow in that order. The picks are named (``Selection.picks``, by number) whether or not
  ``top`` leaves room to show them.
- Then the dominated rows, best first by the same objective, up to ``top`` rows in all.
- Every row carries its ``number``: its 1-based position in that whole ordering (the front, then the
  dominated rows), whatever ``top`` is. A pick kept past the rows ``top`` cuts keeps its number, so
  the numbers shown can skip (1, 2, 3, 5, 10), and row N of one answer is row N of any other answer to
  the same inputs and objective (``--explain N`` names the row the reader saw).
- A pick whose row's speed is uncalibrated (``Candidate.calibrated`` false: the estimator's constants
  were fitted on other hardware) rests on a guess: ``Selection.calibrated_picks`` names, by number,
  the row the same pick names among the calibrated rows alone (their own front and picks, same rules).
  That row may be off the whole front (the uncalibrated row beat it); it is numbered like any
  dominated row, which needs the rows ahead of it in ``ranked``: where it is not numbered
  (``Selection.unnumbered``), the caller selects again with every row.

Both the ranking and its naive oracle (``benchmarks/naive_rank.py``) call :func:`select`, the first
with the cheapest candidate of each distinct time plus the best-scored rows it kept, the second with
every row: the answers must be identical.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuscout.advise import pareto
from gpuscout.advise.types import PICKS
from gpuscout.errors import InvalidInputError, quoted_value

#: Objectives and how they read the trade-off.
OBJECTIVE_HELP = {
    "cost": "the front cheapest first, then dominated rows by cost",
    "time": "the front fastest first (jobs: time to finish; serve: request latency), then by time",
    "latency": "as time (serve: request latency = TTFT + output x time per token)",
    "balanced": "by cost/cheapest x time/fastest (1 = both the cheapest and the fastest)",
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """One scored row: its cost and time, a total tie-break ``key`` (never compares ``payload``), the
    ``group`` of region copies it belongs to, what the caller needs to build the row, and whether it
    rents more GPUs than the load needs (``surplus``: a serving row whose extra replicas or wider split
    only shorten requests; it does not set the balanced pick's window, see
    :func:`gpuscout.advise.pareto.window_time`), and whether its speed is calibrated on its hardware
    (``calibrated``: see ``Selection.calibrated_picks``)."""

    cost: float
    time: float
    key: tuple[Any, ...]
    group: Hashable
    payload: Any = field(compare=False)
    surplus: bool = False
    calibrated: bool = True  # the row's speed rests on constants fitted on its own hardware


@dataclass(frozen=True, slots=True)
class Shown:
    candidate: Candidate
    pareto: bool
    picks: tuple[str, ...]
    dominated_by: int | None  # the number of a shown row that beats it (a front row if one does)
    number: int  # 1-based position in the whole ordering (front, then dominated rows), for any ``top``


@dataclass(frozen=True, slots=True)
class Selection:
    rows: tuple[Shown, ...]
    front_size: int  # rows on the whole front (region copies merged), shown or not
    picks: dict[str, int]  # pick -> its row's ``number``, shown or not (``top`` may leave a pick out)
    # every front row, shown or not, numbered, with its picks: what the answer says of "every row" (its
    # caveats) is said of these and the rows shown, whatever ``top`` cuts
    front: tuple[Shown, ...] = ()
    # each pick whose row's speed is uncalibrated -> the number of the row the same pick names among the
    # calibrated candidates (None: no candidate is calibrated); a pick left out is calibrated, or its
    # calibrated row is not numbered (``unnumbered``)
    calibrated_picks: dict[str, int | None] = field(default_factory=dict)
    # each pick of ``calibrated_picks`` with a row -> (its time, its cost) over the pick's own row's: how far
    # the calibrated substitute is from the pick, which its number alone does not tell (#374 may be the
    # fastest calibrated row, numbered far down a ranking by cost)
    calibrated_ratios: dict[str, tuple[float, float]] = field(default_factory=dict)
    # a calibrated pick's row is among the candidates but not numbered: ``ranked`` left out rows ahead of
    # it (select again with every row to name it)
    unnumbered: bool = False

    def by_number(self, number: int) -> Shown:
        """The shown row numbered ``number`` (a ``KeyError`` when that row is not shown)."""
        for s in self.rows:
            if s.number == number:
                return s
        raise KeyError(number)


def check_objective(objective: str) -> None:
    if objective not in OBJECTIVE_HELP:
        raise InvalidInputError(
            "objective", f"unknown objective {quoted_value(objective)}", ", ".join(OBJECTIVE_HELP)
        )


def _merge(cands: Iterable[Candidate]) -> list[Candidate]:
    """The first candidate of each group, in the given order."""
    seen: set[Hashable] = set()
    out: list[Candidate] = []
    for c in cands:
        if c.group not in seen:
            seen.add(c.group)
            out.append(c)
    return out


def score_of(objective: str, c: Candidate, cheapest: float, best_time: float) -> float:
    if objective == "cost":
        return c.cost
    if objective == "balanced":
        return pareto.balanced_score(c.cost, c.time, cheapest, best_time)
    return c.time


def order_key(
    objective: str, c: Candidate, cheapest: float, best_time: float, window: float = math.inf
) -> tuple[Any, ...]:
    """The sort key of a row under ``objective``: its score, then cost and time, then the tie-break.
    Under "balanced", the rows within the balanced pick's ``window`` (:func:`pareto.balanced_window`)
    come first, so the pick reads first: a slower row that scores better is outside the window the
    pick is chosen in."""
    outside = objective == "balanced" and c.time > window
    return (outside, score_of(objective, c, cheapest, best_time), c.cost, c.time, c.key)


def _beaten_by(
    rows: Sequence[Shown], c: Candidate, tolerance: float, most: float = pareto.MAX_COST_ALLOWANCE
) -> int | None:
    """The number of the shown row that beats ``c``: the cheapest front row that dominates it,
    else the cheapest shown row that does (a 5 % time tolerance is not transitive: a row can be beaten
    only by a row that is itself beaten)."""
    for front_only in (True, False):
        beaten = [
            j
            for j, s in enumerate(rows)
            if (s.pareto or not front_only)
            and s.candidate is not c
            and pareto.dominates((s.candidate.cost, s.candidate.time), (c.cost, c.time), tolerance, most)
        ]
        if beaten:
            return rows[min(beaten, key=lambda j: (rows[j].candidate.cost, j))].number
    return None


def select(
    front_candidates: Sequence[Candidate],
    ranked: Iterable[Candidate],
    *,
    objective: str,
    top: int | None,
    balanced_time_factor: float = pareto.BALANCED_TIME_FACTOR,
    time_tolerance: float = pareto.TIME_TOLERANCE,
    most_allowance: float = pareto.MAX_COST_ALLOWANCE,
    acceptable: float = 0.0,
) -> Selection:
    """The rows to show. ``front_candidates`` must contain every row that can be on the front (at
    least the cheapest of each distinct time); ``ranked`` the rows that can be shown as dominated
    (at least the best ``top`` + front size by ``objective``; any order). ``most_allowance``: the most
    more a faster row may cost and beat a slower one (:func:`pareto.most_allowance`); ``acceptable``: the
    latency the renter's targets allow, within the balanced pick's window (:func:`pareto.picks`)."""
    check_objective(objective)
    if not front_candidates:
        return Selection((), 0, {})
    ranked = ranked if isinstance(ranked, Sequence) else list(ranked)  # read twice for uncalibrated picks
    points = [(c.cost, c.time) for c in front_candidates]
    on_front = [front_candidates[i] for i in pareto.front(points, time_tolerance, most_allowance)]
    on_front.sort(key=lambda c: (c.cost, c.time, c.key))
    front = _merge(on_front)
    cheapest = front[0].cost
    best_time = min(c.time for c in front)
    chosen = pareto.picks(
        [(c.cost, c.time) for c in front],
        surplus=[c.surplus for c in front],
        balanced_time_factor=balanced_time_factor,
        time_tolerance=time_tolerance,
        acceptable=acceptable,
    )
    pick_of: dict[int, list[str]] = {}
    for name in PICKS:
        pick_of.setdefault(chosen[name], []).append(name)
    window = pareto.balanced_window(
        [(c.cost, c.time) for c in front], [c.surplus for c in front], balanced_time_factor, acceptable
    )

    def key(c: Candidate) -> tuple[Any, ...]:
        return order_key(objective, c, cheapest, best_time, window)

    by_objective = sorted(range(len(front)), key=lambda i: key(front[i]))
    limit = len(front) if top is None else top
    picked = [i for i in by_objective if i in pick_of]
    others = [i for i in by_objective if i not in pick_of]
    keep = set(picked[:limit]) | set(others[: max(0, limit - len(picked))])
    whole_front = [
        Shown(front[i], True, tuple(pick_of.get(i, ())), None, n + 1) for n, i in enumerate(by_objective)
    ]
    rows: list[Shown] = [s for s, i in zip(whole_front, by_objective, strict=True) if i in keep]
    front_groups = {c.group for c in front}
    room = None if top is None else top - len(rows)
    if room is None or room > 0:
        rest = sorted((c for c in ranked if c.group not in front_groups), key=key)
        rows.extend(Shown(c, False, (), None, len(front) + n + 1) for n, c in enumerate(_merge(rest)[:room]))
    rows = [
        s
        if s.pareto
        else dataclasses.replace(
            s, dominated_by=_beaten_by(rows, s.candidate, time_tolerance, most_allowance)
        )
        for s in rows
    ]
    numbers = {name: s.number for s in whole_front for name in s.picks}
    uncalibrated = {name for s in whole_front if not s.candidate.calibrated for name in s.picks}
    calibrated_picks: dict[str, int | None] = {}
    calibrated_ratios: dict[str, tuple[float, float]] = {}
    unnumbered = False
    if uncalibrated:
        # every row's number, as the rows shown are numbered: the front, then the dominated rows in order
        number_of = {s.candidate.group: s.number for s in whole_front}
        dominated = sorted((c for c in ranked if c.group not in front_groups), key=key)
        number_of.update((c.group, len(front) + n + 1) for n, c in enumerate(_merge(dominated)))
        alternative = _calibrated_picks(
            [*front_candidates, *ranked],
            balanced_time_factor=balanced_time_factor,
            time_tolerance=time_tolerance,
            most_allowance=most_allowance,
            acceptable=acceptable,
        )
        for name in PICKS:
            if name not in uncalibrated:
                continue
            c = alternative.get(name)
            if c is None:
                calibrated_picks[name] = None
            elif c.group in number_of:
                calibrated_picks[name] = number_of[c.group]
                own = next(s.candidate for s in whole_front if name in s.picks)
                if own.time > 0 and own.cost > 0:
                    calibrated_ratios[name] = (c.time / own.time, c.cost / own.cost)
            else:
                unnumbered = True
    return Selection(
        tuple(rows),
        len(front),
        numbers,
        tuple(whole_front),
        calibrated_picks,
        calibrated_ratios,
        unnumbered=unnumbered,
    )


def _calibrated_picks(
    candidates: Sequence[Candidate],
    *,
    balanced_time_factor: float,
    time_tolerance: float,
    most_allowance: float = pareto.MAX_COST_ALLOWANCE,
    acceptable: float = 0.0,
) -> dict[str, Candidate]:
    """The candidate each pick names among the calibrated ``candidates`` alone (their own front, the
    same rules as :func:`select`); empty when none is calibrated."""
    calibrated = [c for c in candidates if c.calibrated]
    if not calibrated:
        return {}
    points = [(c.cost, c.time) for c in calibrated]
    on_front = [calibrated[i] for i in pareto.front(points, time_tolerance, most_allowance)]
    on_front.sort(key=lambda c: (c.cost, c.time, c.key))
    front = _merge(on_front)
    chosen = pareto.picks(
        [(c.cost, c.time) for c in front],
        surplus=[c.surplus for c in front],
        balanced_time_factor=balanced_time_factor,
        time_tolerance=time_tolerance,
        acceptable=acceptable,
    )
    return {name: front[i] for name, i in chosen.items()}
