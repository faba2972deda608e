"""The balanced pick's window counts from the best time among the front rows that rent no more GPUs
than the load needs: a serving row whose extra replicas (or wider split) only shorten requests below
what the load asks does not shut a right-sized row out of the 3x window. Jobs (no row is "surplus")
keep the front's best time."""

from __future__ import annotations

import pytest

from gpuscout.advise.answer import picks_rule
from gpuscout.advise.pareto import picks, window_time
from gpuscout.advise.selection import Candidate, select

# llama-3.1-8b for 50 users on the bundled snapshot ($/month, request latency in s): a cheap slow rig,
# one H100 (the load fits it: 217 users), one H200, two and three H100s (replicas the load does not
# need), one B200, then 2, 4 and 8 B200s of one replica each (1 B200 carries the 50 users).
SERVE_50 = [
    (268.0, 12.7, False),  # 4x RTX3080 TP4: the fewest GPUs of that card that carry the load
    (536.0, 9.7, False),  # 2 x 1x RTX6000-Ada
    (614.0, 7.4, True),  # 8x V100, 8 replicas (7 carry the load)
    (932.0, 4.2, False),  # 1x H100
    (1444.0, 3.5, False),  # 1x H200
    (1862.0, 3.1, True),  # 2x H100, 2 replicas
    (2792.0, 2.7, True),  # 3x H100, 3 replicas
    (3527.0, 1.9, False),  # 1x B200: the best time of a right-sized row
    (6777.0, 1.4, True),  # 2x B200
    (13553.0, 1.2, True),  # 4x B200
    (25381.0, 1.1, True),  # 8x B200, 8 replicas: the best time on the front
]


def _points() -> tuple[list[tuple[float, float]], list[bool]]:
    return [(c, t) for c, t, _ in SERVE_50], [s for _, _, s in SERVE_50]


def test_replicas_the_load_does_not_need_do_not_set_the_window() -> None:
    pts, surplus = _points()
    assert window_time(pts, surplus) == 1.9  # 1x B200, not the 8-replica rig's 1.1 s
    chosen = picks(pts, surplus=surplus)
    # one H100 (4.2 s, within 3 x 1.9 s) is the knee; before, 3 x 1.1 s shut it out for 2x H100 at $1,862
    assert chosen == {"cheapest": 0, "balanced": 3, "fastest": 10}
    assert picks(pts)["balanced"] == 5  # the old window (every row sets it): 2x H100, 2 replicas


def test_the_window_does_not_change_where_every_row_is_right_sized() -> None:
    # a job's rows (or a serving answer of right-sized rows): the front's best time, as before
    pts, _ = _points()
    assert window_time(pts) == window_time(pts, [False] * len(pts)) == 1.1
    assert picks(pts, surplus=[False] * len(pts)) == picks(pts)
    # a fine-tune's cheap slow card stays out: never more than 3x the fastest run
    slow = [(1.0, 100.0), (20.0, 10.0), (25.0, 9.0)]
    assert picks(slow, surplus=[False, False, False])["balanced"] == 1


def test_with_no_right_sized_row_the_front_best_time_counts() -> None:
    pts = [(10.0, 9.0), (20.0, 3.0), (40.0, 1.0)]
    assert window_time(pts, [True, True, True]) == 1.0
    assert picks(pts, surplus=[True, True, True]) == picks(pts)


def test_a_surplus_row_can_still_be_the_balanced_pick() -> None:
    # the flag only moves the window: a cheap rig with a replica to spare is still the knee
    pts = [(100.0, 10.0), (150.0, 2.0), (1000.0, 1.5), (5000.0, 0.5)]
    chosen = picks(pts, surplus=[False, True, False, True])
    assert chosen["balanced"] == 1 and chosen["fastest"] == 3


def test_the_flags_must_match_the_points() -> None:
    with pytest.raises(ValueError, match="2 surplus flags for 3 points"):
        picks([(1.0, 1.0), (2.0, 0.5), (3.0, 0.2)], surplus=[False, True])


def test_the_selection_passes_each_candidates_flag_to_the_picks() -> None:
    cands = [Candidate(c, t, (n,), f"row-{n}", f"row-{n}", s) for n, (c, t, s) in enumerate(SERVE_50)]
    chosen = select(cands, cands, objective="cost", top=None)
    assert chosen.picks == {"cheapest": 1, "balanced": 4, "fastest": 11}
    assert chosen.by_number(4).candidate.group == "row-3"  # 1x H100
    plain = [Candidate(c.cost, c.time, c.key, c.group, c.payload) for c in cands]  # not flagged: as before
    assert select(plain, plain, objective="cost", top=None).picks["balanced"] == 6


@pytest.mark.parametrize("serve", [True, False, None])
def test_the_picks_rule_states_the_window(serve: bool | None) -> None:
    rule = picks_rule(3.0, 0.05, serve=serve)
    assert "balanced: the least cost/cheapest x time/fastest among rows at most 3x" in rule
    if serve is False:
        assert rule.endswith("at most 3x that time") and "replicas" not in rule
    else:
        assert "rent no more GPUs than the load needs" in rule
        assert "extra replicas, or a wider split, that only shorten requests do not set it" in rule
