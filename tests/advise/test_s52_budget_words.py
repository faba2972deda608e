"""A row left out for the budget says what it would cost ("costs $X, over the $B budget"), as a late row
says when it would finish: "$5.55 over the $5.00 budget" read as an overspend of $5.55."""

from __future__ import annotations

from gpuscout.advise.rank import rank
from gpuscout.advise.reasons import usd
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer
from tests.advise.test_rank import BE


def test_a_budget_rejection_names_the_total_it_would_cost() -> None:
    offers = [offer("cloud", price=2.2, instance="cloud")]
    w = ServeWorkload(model="small", concurrency=4)
    total = rank(w, offers, backends=BE, now=NOW)[0].total_usd
    assert total is not None and total > 1000.0  # a month at ~$2.2/h
    poor = w.model_copy(update={"budget_usd": 1000.0})
    rows = rank(poor, offers, backends=BE, now=NOW, include_rejected=True)
    why = [r.rejected for r in rows if r.rejected and "budget" in r.rejected]
    assert why == [f"costs {usd(total)}, over the $1,000 budget"]
