"""Dead ends under a deadline and a budget try a narrower precision (stop 62, a review): Llama 3.1 70B,
100M output tokens in 8 minutes within $120 ($100 before stop 76; the deadline binds) or $40 (the deadline
and the budget bind together). The answer tried no narrower precision, though FP8 finishes within both (or
within the deadline for a budget it names)."""

from __future__ import annotations

import math

from gpuscout.advise.reasons import usd
from gpuscout.advise.workload import BatchWorkload
from tests.advise.test_s61_dead_end_moves import _answer, _first
from tests.advise.test_s62_latency_and_budget import _binding, _budget_needed

BATCH_70B = BatchWorkload(model="llama-3.1-70b", output_tokens_total=1e8, deadline_hours=8 / 60)


def test_a_deadline_dead_end_under_a_budget_names_a_narrower_precision_within_both() -> None:
    # $120: FP8 finishes within 8 minutes for $113 (36 x 8x B200 spot); $100 until stop 76, when FP8 ran
    # its GEMMs at the datasheet's 2x the bf16 rate, not the measured 1.3-1.6x
    w = BATCH_70B.model_copy(update={"budget_usd": 120})
    binding = _binding(w)
    fp8 = _answer(w.model_copy(update={"precision": "fp8"}))
    assert fp8.rows  # FP8 finishes within 8 minutes for at most $120
    row = _first(fp8.rows)
    assert row.total_usd is not None and row.total_usd <= 120
    assert (row.time_to_result_s or math.inf) <= 8 * 60
    label = f"{row.config.describe(row.offer.accelerator)} at {row.provider_name or row.offer.provider}"
    assert (
        f"): --precision fp8 ({label} at {usd(row.total_usd)}) finishes within the deadline and the budget; "
        in (binding)
    ), binding
    assert "; at the checkpoint's own bf16, " in binding


def test_a_deadline_and_budget_dead_end_names_a_narrower_precision_with_the_budget_it_needs() -> None:
    w = BATCH_70B.model_copy(update={"budget_usd": 40})
    binding = _binding(w)
    assert binding.startswith("the deadline and the budget bind together ("), binding
    row = _budget_needed(w, precision="fp8")
    assert (row.time_to_result_s or math.inf) <= 8 * 60
    label = f"{row.config.describe(row.offer.accelerator)} at {row.provider_name or row.offer.provider}"
    said = f"--precision fp8 with --budget {math.ceil(row.total_usd or 0)} ({label} at {usd(row.total_usd)})"
    assert (
        f"for $40; {said} finishes within the deadline; at the checkpoint's own bf16, with the budget "
        in (binding)
    ), binding
