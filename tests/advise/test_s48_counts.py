"""The "no offer" head counts offers, each once, not rows.

An offer priced on demand and on spot is ranked as two rows; both out (over the budget, past the
deadline) counted it twice: "of 749 offers: 784 are over the budget; 93 are stale; 48 do not fit"
(925 for 749 offers). ``Ranker.reject_counts`` counts an offer once, only when none of its rows passes,
under its on-demand row's reason (the spot row's where it has no on-demand price); ``--show-rejected``
still lists each row.
"""

from __future__ import annotations

import re

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.rank import Ranker
from gpuscout.advise.workload import BatchWorkload
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer
from tests.advise.test_spot_deadline import MARKET, _tight

BE = fake_backends()
W = BatchWorkload(model="small", output_tokens_total=2e8)


def _head_counts(binding: str) -> tuple[int, dict[str, int]]:
    """(offers, {kind text: count}) of the head "of N offers: a are ...; b do ..." in ``binding``."""
    found = re.search(r"\(of ([\d,]+) offers?: ([^)]*)\)", binding)
    assert found is not None, binding
    parts = {}
    for part in found.group(2).split("; "):
        n, _, text = part.partition(" ")
        parts[text] = int(n.replace(",", ""))
    return int(found.group(1).replace(",", "")), parts


def _offers() -> list:
    return [
        offer("p", "H100-SXM", 1, 2.0, spot=1.0),  # on demand and spot: two rows
        offer("p", "H200-SXM", 1, 3.0, spot=1.5, instance="h200"),  # two rows
        offer("p", "H100-SXM", 1, None, spot=0.9, instance="auction"),  # spot only: one row
        offer("p", "H100-SXM", 1, 2.5, stale=True, instance="old"),  # filtered before any row
    ]


def test_a_budget_no_row_meets_counts_each_offer_once() -> None:
    w = W.model_copy(update={"budget_usd": 1e-6})
    ranker = Ranker(w, backends=BE, now=NOW)
    offers = _offers()
    found = ranker.advise(offers, include_rejected=True)
    assert not found.rows and found.binding is not None
    # five rows are over the budget (two offers' on-demand and spot rows, the auction's spot row) ...
    assert sum(1 for r in found.rejected if r.rejected and "budget" in r.rejected) == 5
    assert ranker.reject_rows["budget"] == 5
    # ... of three offers; and the stale one
    assert dict(ranker.reject_counts) == {"budget": 3, "stale": 1}
    considered, parts = _head_counts(found.binding)
    assert considered == 4
    assert parts == {"are over the budget": 3, "is stale": 1}
    assert sum(parts.values()) <= considered
    assert found.binding.startswith("the budget binds (of 4 offers: 3 are over the budget; 1 is stale)")


def test_an_offer_out_for_two_reasons_counts_under_its_on_demand_rows() -> None:
    # a deadline 4 instances meet on demand and spot (slowed by its reclaims) would need 5 for; at most 4
    # proposed, so the spot row is late; a budget the on-demand row is over and the spot row within
    w, *_ = _tight(BatchWorkload(model="small", images_total=13_700), 4)
    capped = Assumptions(max_instances=4)
    (od,) = Ranker(w, backends=BE, assumptions=capped, now=NOW).rank([MARKET])
    assert not od.config.spot and od.cost is not None
    w = w.model_copy(update={"budget_usd": od.cost.total * 0.9})  # spot: 0.8/h against 2.0/h
    ranker = Ranker(w, backends=BE, assumptions=capped, now=NOW)
    found = ranker.advise([MARKET], include_rejected=True)
    assert not found.rows
    kinds = sorted(("spot" if r.config.spot else "od", r.rejected or "") for r in found.rejected)
    assert [k for k, _ in kinds] == ["od", "spot"]  # both rows listed
    assert "budget" in kinds[0][1] and "deadline" in kinds[1][1]
    assert dict(ranker.reject_counts) == {"budget": 1}  # the offer once, under its on-demand row's reason
    assert ranker.reject_rows == {"budget": 1, "deadline": 1}  # what the diagnosis relaxes: both kinds
    assert found.binding is not None
    considered, parts = _head_counts(found.binding)
    assert considered == 1 and parts == {"is over the budget": 1}


def test_an_offer_with_a_passing_row_is_not_counted() -> None:
    # the spot row within the budget, the on-demand row over it: the offer has a row, so is not "out"
    plain = offer("p", "H100-SXM", 1, 2.0, spot=0.5)
    rows = Ranker(W, backends=BE, now=NOW).rank([plain])
    totals = sorted(r.cost.total for r in rows if r.cost is not None)
    w = W.model_copy(update={"budget_usd": sum(totals) / 2})
    ranker = Ranker(w, backends=BE, now=NOW)
    found = ranker.advise([plain], include_rejected=True)
    assert [r.config.spot for r in found.rows] == [True]
    assert len(found.rejected) == 1 and ranker.reject_rows == {"budget": 1}
    assert not ranker.reject_counts
