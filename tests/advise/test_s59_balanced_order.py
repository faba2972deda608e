"""Under ``--objective balanced`` the rows read in the balanced pick's order (stop 59, renter pass): a
front row outside the pick's window (more than 3x the best latency) scored better and was listed first,
above the row named the balanced pick."""

from __future__ import annotations

from gpuscout.advise import pareto
from gpuscout.advise.selection import Candidate, select


def _c(cost: float, time: float, name: str) -> Candidate:
    return Candidate(cost=cost, time=time, key=(name,), group=name, payload=name)


def test_the_balanced_pick_reads_first_and_the_rows_outside_its_window_last() -> None:
    # a cheap, slow row (7 s, 3.5x the best) scores best on cost/cheapest x time/fastest but is
    # outside the 3x window; the pick is the best-scoring row within it
    rows = [_c(100.0, 7.0, "slow"), _c(400.0, 3.0, "mid"), _c(900.0, 2.0, "fast")]
    assert pareto.balanced_score(100.0, 7.0, 100.0, 2.0) < pareto.balanced_score(400.0, 3.0, 100.0, 2.0)
    sel = select(rows, rows, objective="balanced", top=None)
    names = [s.candidate.payload for s in sel.rows]
    assert names[0] == "mid" and "balanced" in sel.rows[0].picks
    assert names[-1] == "slow"
    # the other objectives keep their order
    by_cost = [s.candidate.payload for s in select(rows, rows, objective="cost", top=None).rows]
    assert by_cost == ["slow", "mid", "fast"]
