"""A budget that fewer instances meet keeps a spread batch on fewer (``rank.Ranker.under_budget``).

``rank.billing_sized`` spreads a batch over the most instances whose expected bill is within the front's
cost tolerance of the cheapest count's, blind to prices and the budget (it is cached per billing terms).
A budget that one instance meets but the spread (a few per cent more) does not left no row at all; now
the row takes the most of those counts whose nominal cost (the cost shown, compared with the budget) is
within it, and says why, and ``benchmarks.naive_rank`` (the advisor's oracle) agrees row for row.
"""

from __future__ import annotations

from benchmarks.naive_rank import rank_naive

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.rank import advise, rank
from gpuscout.advise.workload import BatchWorkload
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()
# per-second billing: each more instance pays its own warm-up, so the counts cost a little more each
PLAIN = offer("cloud", "H100-SXM", 1, 2.0)
BASE = BatchWorkload(model="small", images_total=13_700)


def _cost_on(w: BatchWorkload, k: int) -> float:
    """The cost of ``w``'s row on at most ``k`` instances (billing spreads it over all ``k``)."""
    (row,) = advise(w, [PLAIN], backends=BE, assumptions=Assumptions(max_instances=k), now=NOW).rows
    assert row.config.instances == k and row.cost is not None
    return row.cost.total


def test_the_unbudgeted_row_is_spread_over_several_instances() -> None:
    # the premise: without a budget the batch is spread, for more than one instance costs
    (row,) = rank(BASE, [PLAIN], backends=BE, now=NOW)
    assert row.config.instances > 2 and row.cost is not None
    assert row.cost.total > _cost_on(BASE, 1)


def test_a_budget_one_instance_meets_shows_the_row_on_one() -> None:
    w = BASE.model_copy(update={"budget_usd": _cost_on(BASE, 1) * 1.0001})
    (row,) = rank(w, [PLAIN], backends=BE, now=NOW)
    assert row.config.instances == 1 and row.cost is not None and row.cost.total <= w.budget_usd
    assert rank_naive(w, [PLAIN], backends=BE, now=NOW) == [row]


def test_a_budget_between_two_counts_takes_the_most_it_pays_for_and_says_why() -> None:
    spread = rank(BASE, [PLAIN], backends=BE, now=NOW)[0]
    assert spread.cost is not None
    w = BASE.model_copy(update={"budget_usd": (_cost_on(BASE, 2) + _cost_on(BASE, 3)) / 2})
    (row,) = rank(w, [PLAIN], backends=BE, now=NOW)
    assert row.config.instances == 2 and row.cost is not None and row.cost.total <= w.budget_usd
    said = [r for r in row.reasons if r.startswith("2 instances ")]
    assert said, row.reasons
    assert (
        f"not the {spread.config.instances} instances its billing would spread it over: they cost "
        f"${spread.cost.total:.2f}, over the ${w.budget_usd:.2f} budget"
    ) in said[0]
    assert rank_naive(w, [PLAIN], backends=BE, now=NOW) == [row]


def test_under_a_deadline_the_budget_keeps_the_fewest_that_meet_it() -> None:
    # 1.5 h: the job needs several instances; a budget only the fewest of those meet keeps it on them
    timed = BASE.model_copy(update={"deadline_hours": 1.5})
    spread = rank(timed, [PLAIN], backends=BE, now=NOW)[0]
    assert spread.cost is not None
    need = 2
    while True:  # the fewest instances that meet the deadline
        most = Assumptions(max_instances=need)
        capped = advise(timed, [PLAIN], backends=BE, assumptions=most, now=NOW).rows
        if capped:
            break
        need += 1
    assert 1 < need < spread.config.instances
    assert capped[0].cost is not None
    w = timed.model_copy(update={"budget_usd": capped[0].cost.total * 1.0001})
    (row,) = rank(w, [PLAIN], backends=BE, now=NOW)
    assert row.config.instances == need and row.time_to_result_s <= 1.5 * 3600
    assert any("over the $" in r and r.startswith(f"{need} instances") for r in row.reasons), row.reasons
    assert rank_naive(w, [PLAIN], backends=BE, now=NOW) == [row]


def test_a_budget_no_count_meets_leaves_the_row_out_for_the_budget() -> None:
    w = BASE.model_copy(update={"budget_usd": _cost_on(BASE, 1) * 0.999})
    found = advise(w, [PLAIN], backends=BE, now=NOW)
    assert not found.rows and found.binding is not None
    assert found.binding.startswith("the budget binds"), found.binding
    assert rank_naive(w, [PLAIN], backends=BE, now=NOW) == []
