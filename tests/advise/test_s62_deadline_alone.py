"""A batch dead end under a deadline alone (stop 62, a review): Llama 3.1 70B, 100M output tokens in 8
minutes. The answer said "--deadline 13min would show it" and nothing else, though FP8 finishes within 8
minutes and, at bf16, rows finish within 10 (the 13 minutes were the fastest of the five cheapest rows
only). It now names the widest narrower precision that finishes within the deadline first, then the
tightest deadline that shows a row at the precision the rows stand at, over every row that passes the
rest."""

from __future__ import annotations

import math
import re

from gpuscout.advise.reasons import usd
from gpuscout.advise.workload import BatchWorkload, parse_hours
from tests.advise.test_s61_dead_end_moves import _answer, _first
from tests.advise.test_s62_latency_and_budget import _binding

BATCH_70B = BatchWorkload(model="llama-3.1-70b", output_tokens_total=1e8, deadline_hours=8 / 60)


def test_a_deadline_alone_names_a_narrower_precision_that_finishes_within_it() -> None:
    binding = _binding(BATCH_70B)
    assert binding.startswith("the deadline binds ("), binding
    fp8 = _answer(BATCH_70B.model_copy(update={"precision": "fp8"}))
    assert fp8.rows  # FP8 finishes within 8 minutes (checked, not assumed)
    row = _first(fp8.rows)
    assert (row.time_to_result_s or math.inf) <= 8 * 60
    label = f"{row.config.describe(row.offer.accelerator)} at {row.provider_name or row.offer.provider}"
    assert (
        f"): --precision fp8 ({label} at {usd(row.total_usd)}) finishes within the deadline; at the "
        "checkpoint's own bf16, " in binding
    ), binding
    assert "and the budget" not in binding  # none was set


def test_the_deadline_proposed_is_the_tightest_that_shows_a_bf16_row() -> None:
    binding = _binding(BATCH_70B)
    said = re.search(r"--deadline (\d+)min would show it$", binding)
    assert said is not None, binding
    minutes = int(said.group(1))
    # the deadline proposed shows a row; a minute less shows none: over every row, not the five cheapest
    assert _answer(BATCH_70B.model_copy(update={"deadline_hours": parse_hours(f"{minutes}min")})).rows
    tighter = BATCH_70B.model_copy(update={"deadline_hours": parse_hours(f"{minutes - 1}min")})
    assert not _answer(tighter).rows, binding
    # the time said (whole minutes, rounded) is what the deadline proposed rounds up
    took = re.search(r"the fastest finishes in (\d+) min \(", binding)
    assert took is not None, binding
    assert int(took.group(1)) in (minutes - 1, minutes)  # said in whole minutes, rounded
