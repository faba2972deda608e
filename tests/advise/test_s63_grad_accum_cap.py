"""A pre-training run's accumulation stays within what the estimator takes (1,000,000 micro-batches per
optimizer step): a 1e15-token budget on 8 GPUs asked for 15,258,789, and the whole answer failed with
"grad_accum: 15258789 is out of range", naming a field the workload does not have (found by
test_workload_bounds' hypothesis search, stop 63). The batch limit is a ceiling, so a narrower batch is
within it."""

from __future__ import annotations

import math

from gpuscout.advise.api import recommend
from gpuscout.advise.batch_limits import BatchLimit, grad_accum
from gpuscout.advise.workload import PretrainWorkload, Workload
from gpuscout.estimate.training import describe_layout
from gpuscout.estimate.training_memory import MAX_GRAD_ACCUM
from tests.advise.test_workload_bounds import OFFERS


def _pretrain(**fields: object) -> PretrainWorkload:
    w = Workload.from_dict({"kind": "pretrain", "model": "llama-3.1-8b", "gpus": 8, **fields})
    assert isinstance(w, PretrainWorkload)
    return w


def test_accumulation_is_capped_at_the_estimators_most() -> None:
    w = _pretrain(token_budget=1e15)
    wide = BatchLimit(5e11, "steps", "", "")
    assert grad_accum(w, wide, 8, 1) == MAX_GRAD_ACCUM  # 5e11 / (8 x 4,096) would be 15,258,789
    narrow = BatchLimit(8 * w.seq_len * 4.0, "steps", "", "")
    assert grad_accum(w, narrow, 8, 1) == 4  # below the cap: as before


def test_a_huge_budget_is_ranked_with_finite_costs() -> None:
    w = _pretrain(token_budget=10**15, global_batch_tokens=10**15)
    recs = recommend(w, OFFERS, top=5)
    assert recs
    for rec in recs:
        assert rec.cost is not None and math.isfinite(rec.cost.total) and rec.cost.total > 0
        assert rec.time_s is not None and math.isfinite(rec.time_s)


def test_a_capped_accumulation_says_so() -> None:
    capped = describe_layout("none", False, "none", 8, 4096, 1, MAX_GRAD_ACCUM)
    assert "1,000,000 accumulated per step (the most taken) (1 x 8 GPUs x 1,000,000" in capped
    assert "the most taken" not in describe_layout("none", False, "none", 8, 4096, 1, 4)
