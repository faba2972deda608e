"""A faster row beats a slower one for a bounded premium: 5 % per extra multiple of the speed, never more
than 50 %. A run at a third of the price stays on the front however slow it is (the renter decides what
the wait is worth; a deadline says it)."""

from __future__ import annotations

from gpuscout.advise.pareto import MAX_COST_ALLOWANCE, cost_allowance, front


def test_the_allowance_grows_with_the_speed_up_to_its_ceiling() -> None:
    assert cost_allowance(2.0, 1.0) == 0.05
    assert abs(cost_allowance(10.0, 1.0) - 0.45) < 1e-12
    assert cost_allowance(261.0, 1.0) == MAX_COST_ALLOWANCE == 0.5


def test_a_run_at_a_third_of_the_price_stays_on_the_front_however_slow() -> None:
    # (cost, time): 3x H100 for 84.8 days at $7,944 against 512 GPUs for 7.8 h at $23,947
    slow_cheap, fast_dear = (7_944.0, 84.8 * 86_400), (23_947.0, 7.8 * 3_600)
    assert sorted(front([slow_cheap, fast_dear])) == [0, 1]


def test_a_much_faster_row_still_beats_a_slightly_cheaper_one() -> None:
    assert front([(100.0, 100.0), (140.0, 1.0)]) == [1]  # 100x as fast for 40 % more
    assert sorted(front([(100.0, 100.0), (160.0, 1.0)])) == [0, 1]  # 60 % more is past the ceiling
