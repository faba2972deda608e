"""The Pareto front and its picks on hand-made points (cost, time)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.advise.pareto import cost_allowance, dominates, front, picks


def test_the_textbook_front_with_no_tolerance() -> None:
    pts = [(10.0, 5.0), (12.0, 4.0), (11.0, 6.0), (20.0, 1.0), (20.0, 2.0), (10.0, 5.0)]
    assert front(pts, 0.0) == [0, 5, 1, 3]  # (11, 6) and (20, 2) are beaten; equal points both kept
    assert dominates((10.0, 5.0), (11.0, 6.0), 0.0) and not dominates((10.0, 5.0), (10.0, 5.0), 0.0)


def test_times_within_the_tolerance_are_the_same_speed() -> None:
    # 2x the price for 3 % less time is not on the front; 2x the price for 30 % less is
    pts = [(100.0, 10.0), (200.0, 9.7), (400.0, 7.0)]
    assert front(pts, 0.05) == [0, 2]
    assert front(pts, 0.0) == [0, 1, 2]
    assert dominates((100.0, 10.0), (200.0, 9.7), 0.05)
    assert not dominates((100.0, 10.0), (100.0, 9.7), 0.05)  # as cheap and faster: not beaten


def test_picks_cheapest_fastest_within_the_tolerance_and_the_knee() -> None:
    pts = [(10.0, 100.0), (15.0, 20.0), (40.0, 10.0), (41.0, 9.8)]
    chosen = picks(pts, balanced_time_factor=3.0, time_tolerance=0.05)
    assert chosen["cheapest"] == 0
    assert chosen["fastest"] == 2  # 41 is 2 % faster than 40: not worth a dollar more
    assert chosen["balanced"] == 1  # 1.5x the cost for a fifth of the time: the knee


def test_the_balanced_pick_is_never_far_slower_than_the_fastest() -> None:
    # a very cheap, very slow point wins cost x time, but is 10x the best time: not balanced
    pts = [(1.0, 100.0), (20.0, 10.0), (25.0, 9.0)]
    chosen = picks(pts, balanced_time_factor=3.0, time_tolerance=0.05)
    assert chosen["cheapest"] == 0 and chosen["balanced"] != 0
    assert pts[chosen["balanced"]][1] <= 3 * 9.0


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([1.0, 2.0, 2.5, 3.0, 7.0]), st.sampled_from([1.0, 1.04, 1.1, 2.0, 3.0])),
        max_size=40,
    )
)
def test_front_is_exactly_the_points_nothing_dominates(points: list[tuple[float, float]]) -> None:
    """The one-pass front equals the definition (every pair compared), in its documented order."""
    expected = [
        i
        for i in range(len(points))
        if not any(dominates(points[j], points[i]) for j in range(len(points)) if j != i)
    ]
    if points and not expected:  # a cycle of cost allowances: the points nothing cheaper matches
        expected = [
            i
            for i in range(len(points))
            if not any(_matched(points[j], points[i]) for j in range(len(points)))
        ]
    expected.sort(key=lambda i: (points[i][0], points[i][1], i))
    assert front(points) == expected


def _matched(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """``a`` at most as dear as ``b``, at most 5 % slower, and better on one axis."""
    return a[0] <= b[0] and a[1] <= b[1] * 1.05 and (a[0] < b[0] or a[1] < b[1])


def test_a_cycle_of_cost_allowances_leaves_a_front_not_none() -> None:
    """C beats A (5.7 % faster, 3 % dearer), B matches C within 5 % for less, A matches B for less: every
    point was beaten and the front was empty, which crashed `recommend batch llama-3.1-70b --output-total
    10B --deadline 24h --no-spot` (IndexError in selection). The cheapest, that nothing cheaper matches,
    stands."""
    points = [(9421.09, 86300.49), (9593.57, 85452.0), (9720.51, 81670.75)]
    assert all(any(dominates(points[j], points[i], 0.05, 0.05) for j in range(3)) for i in range(3))
    assert front(points, 0.05, 0.05) == [0]


def test_a_row_within_the_cost_tolerance_and_much_faster_dominates_the_cheaper_one() -> None:
    # pre-training 8B: 52.7 days for $2,397 ranked first, 14.5 days for $2,399 second (0.08 % dearer)
    slow, quick = (2397.0, 52.7 * 86400), (2399.0, 14.5 * 86400)
    assert dominates(quick, slow) and not dominates(slow, quick)
    assert front([slow, quick]) == [1]
    assert picks([quick]) == {"cheapest": 0, "balanced": 0, "fastest": 0}
    # 3.6x the time must save more than 13 %: 6 % dearer is not worth the wait, 15 % dearer is
    assert front([slow, (2397.0 * 1.06, 14.5 * 86400)]) == [1]
    assert front([slow, (2397.0 * 1.15, 14.5 * 86400)]) == [0, 1]
    # twice the time: 6 % dearer is another price, both stay on the front
    assert front([slow, (2397.0 * 1.06, 52.7 / 2 * 86400)]) == [0, 1]
    # within the cost tolerance but not faster beyond the time tolerance: the cheaper stays alone
    assert front([slow, (2399.0, 52.7 * 86400 / 1.04)]) == [0]


def test_a_much_slower_row_must_save_in_proportion_to_its_wait() -> None:
    # batch 8B fp8, 500M tokens: 3.1 days for $15.19 ranked first under "cheapest first", 8.2 hours
    # for $16.85 second -- 9x the time to save 10 %; it would have to save 40 %
    slow, quick = (15.19, 3.1 * 86400), (16.85, 8.2 * 3600)
    assert abs(cost_allowance(slow[1], quick[1]) - 0.05 * (3.1 * 24 / 8.2 - 1)) < 1e-12
    assert dominates(quick, slow) and front([slow, quick]) == [1]
    # a real saving at 9x the time stays: half the price
    assert front([(8.0, slow[1]), quick]) == [0, 1]
    # at most 2x the time the allowance is the flat 5 %, and it grows by 5 % per extra multiple
    assert cost_allowance(2.0, 1.0) == 0.05 and cost_allowance(1.5, 1.0) == 0.05
    assert abs(cost_allowance(3.0, 1.0) - 0.10) < 1e-12 and abs(cost_allowance(10.0, 1.0) - 0.45) < 1e-12
    assert not dominates((11.1, 1.0), (10.0, 3.0)) and dominates((11.1, 1.0), (10.0, 3.5))


def test_a_beaten_row_says_why_in_figures() -> None:
    from gpuscout.advise.reasons import beaten_reason

    # not worth the wait: 9x the time for a 10 % saving, where 40 % would be needed
    why = beaten_reason(1, (16.85, 8.2 * 3600), (15.19, 3.1 * 86400), serve=False, time_tolerance=0.05)
    assert why.startswith("beaten by #1: finishes in 8.2 h rather than 3.1 days (9.1x sooner) for 11% more")
    assert why.endswith("within the 40% more that 9.1x sooner is worth")
    # as cheap and as fast: the two prices and times
    why = beaten_reason(2, (100.0, 2.0), (120.0, 2.05), serve=True, time_tolerance=0.05)
    assert why == "beaten by #2: $100 a month (this row $120 a month), answers in 2.0 s (2.0 s)"


@settings(max_examples=300, deadline=None)
@given(
    st.floats(min_value=0.01, max_value=1e7, allow_nan=False),
    st.floats(min_value=1.0, max_value=1e8, allow_nan=False),
    st.lists(
        st.tuples(
            st.floats(min_value=1.0, max_value=1.1, allow_nan=False),
            st.floats(min_value=0.9, max_value=1.05, allow_nan=False),
        ),
        max_size=6,
    ),
)
def test_the_front_of_a_cycle_and_points_near_it_is_never_empty(
    cost: float, time: float, near: list[tuple[float, float]]
) -> None:
    """The three rows that crashed a ranking, at any scale (the ratios make the cycle: each beaten by
    another), with points near them: the front is never empty and is the definition's, or, where every
    point is beaten in a cycle, the points nothing cheaper matches."""
    ratios = [(1.0, 1.0), (1.0183, 0.9902), (1.0318, 0.9464), *near]
    points = [(cost * c, time * t) for c, t in ratios]
    got = front(points, 0.05, 0.05)
    assert got
    expected = [
        i
        for i in range(len(points))
        if not any(dominates(points[j], points[i], 0.05, 0.05) for j in range(len(points)) if j != i)
    ]
    if not expected:
        expected = [
            i
            for i in range(len(points))
            if not any(_matched(points[j], points[i]) for j in range(len(points)))
        ]
    expected.sort(key=lambda i: (points[i][0], points[i][1], i))
    assert got == expected
