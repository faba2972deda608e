"""When no offer passes, what would give an answer names the moves a renter would make, each ranked with
it and said with what it gives (stop 61, a review): Llama 3.3 70B to 32 users at chat speed on $3,000 a
month said only "--latency-targets none", which serves 7 tok/s per user, where FP8 meets the targets on
one H200 within the budget and the cheapest bf16 row that meets them needs a bigger budget. Now: the moves
that keep the targets (a narrower precision, the budget lifted), cheapest first, each with its cheapest
row's cost and time per token; dropping the targets last, with the speed it gives up."""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from gpuscout.advise.answer import _budget_lifted
from gpuscout.advise.api import advise
from gpuscout.advise.rank import Ranker
from gpuscout.advise.reasons import usd
from gpuscout.advise.types import Advice, Recommendation
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, ServeWorkload
from gpuscout.catalog.offer import Offer
from tests.advise.helpers import NOW

CHAT_70B = ServeWorkload(
    model="llama-3.3-70b", concurrency=32, prompt_tokens=2000, output_tokens=500, budget_usd=3000
)


@cache
def _offers() -> tuple[Offer, ...]:
    from gpuscout.catalog.api import current_offers

    return tuple(current_offers())


def _answer(w: Any) -> Advice:
    return advise(w, _offers(), top=5, now=NOW)


def _cheapest(rows: tuple[Recommendation, ...]) -> Recommendation:
    return min(rows, key=lambda r: r.total_usd or math.inf)


def _first(rows: tuple[Recommendation, ...]) -> Recommendation:
    """The cheapest row ranked by cost that runs as asked (the front's cheapest pick, where it does)."""
    return next(r for r in rows if not r.substitution)


def _said(rec: Recommendation) -> str:
    """A row as a move names it: "1x H200-SXM at Prime Intellect at $1,449 a month, 48 ms per token"."""
    assert rec.estimate is not None and rec.estimate.tpot_ms is not None
    where = f"{rec.config.describe(rec.offer.accelerator)} at {rec.provider_name or rec.offer.provider}"
    return f"{where} at {usd(rec.total_usd, ' a month')}, {rec.estimate.tpot_ms:,.0f} ms per token"


def test_the_70b_chat_dead_end_names_fp8_and_the_budget_with_what_each_gives() -> None:
    found = _answer(CHAT_70B)
    assert not found.rows and found.binding is not None
    binding = found.binding
    # each move's figures are the ranker's own with that move made
    fp8 = _answer(CHAT_70B.model_copy(update={"precision": "fp8"}))
    lifted = _answer(CHAT_70B.model_copy(update={"budget_usd": None}))
    assert fp8.rows and lifted.rows
    fp8_row, lifted_row = _first(fp8.rows), _cheapest(lifted.rows)
    assert fp8_row.total_usd is not None and lifted_row.total_usd is not None
    budget = math.ceil(lifted_row.total_usd)
    fp8_said = f"--precision fp8 ({_said(fp8_row)})"
    budget_said = f"--budget {budget} ({_said(lifted_row)})"
    assert fp8_said in binding and budget_said in binding, binding
    # the targets kept: each meets them
    tpot = CHAT_70B.tpot_target_ms
    assert tpot is not None
    for row in (fp8_row, lifted_row):
        assert row.estimate is not None and (row.estimate.tpot_ms or math.inf) <= tpot
    # the budget proposed shows the row it names
    shown = _answer(CHAT_70B.model_copy(update={"budget_usd": float(budget)}))
    assert shown.rows and _cheapest(shown.rows).total_usd == lifted_row.total_usd
    # cheapest first: FP8 stays within the budget, so it comes before the budget lifted
    assert fp8_row.total_usd <= 3000 < lifted_row.total_usd
    assert binding.index(fp8_said) < binding.index(budget_said)
    assert "what would give an answer: keeping the targets, " + fp8_said + ", or " + budget_said in binding
    # dropping the targets comes last, with the speed its cheapest row serves
    free = _answer(CHAT_70B.model_copy(update={"latency_targets": "none"}))
    cheap = _cheapest(free.rows)
    assert cheap.estimate is not None and cheap.estimate.per_user_tokens_per_s is not None
    speed = cheap.estimate.per_user_tokens_per_s
    assert speed < 20  # below the chat target: what it gives up
    last = binding.split("; as a last resort, ", 1)[1]
    assert last.startswith("--latency-targets none, which gives up the targets: its cheapest row, ")
    assert f"serves {speed:,.0f} tok/s per user" in last and "; 20 asked)" in last
    assert usd(cheap.total_usd, " a month") in last


def test_the_budget_lifted_shares_the_evaluator_and_finds_the_same_row() -> None:
    ranker = Ranker(CHAT_70B, now=NOW)
    ranker.advise(_offers(), "cost", top=5)
    shared = _budget_lifted(ranker, _offers())
    fresh = Ranker(CHAT_70B.model_copy(update={"budget_usd": None}), now=NOW)
    rows = fresh.advise(_offers(), "cost", top=5, diagnose=False).rows
    assert shared is not None and rows
    best = _cheapest(rows)
    assert (shared.offer, shared.config, shared.total_usd) == (best.offer, best.config, best.total_usd)


def test_where_no_move_keeps_the_targets_dropping_them_is_the_answer() -> None:
    """Already at int4 (nothing narrower), 333 tok/s per user for 70B: no budget the catalog's offers
    reach within its instance cap and no narrower precision keeps the targets. (8x H200 / B200 at TP8
    reach ~3.9 ms a token since stop 70's measured all-reduce latencies, so 4 ms no longer binds.)"""
    w = CHAT_70B.model_copy(update={"precision": "int4", "tpot_ms_max": 3.0, "budget_usd": 1e6})
    found = _answer(w)
    assert not found.rows and found.binding is not None
    assert "keeping the targets" not in found.binding
    assert "--precision" not in found.binding and "--budget" not in found.binding
    # the lifted budget shows nothing either (checked, not assumed)
    assert not _answer(w.model_copy(update={"budget_usd": None})).rows
    assert "; what would give an answer: " in found.binding
    answer = found.binding.split("; what would give an answer: ", 1)[1]
    assert "--latency-targets none, which gives up the targets" in answer


def test_a_budget_dead_end_names_a_narrower_precision_within_the_budget_first() -> None:
    w = CHAT_70B.model_copy(update={"latency_targets": "none", "budget_usd": 600})
    found = _answer(w)
    assert not found.rows and found.binding is not None
    int4 = _answer(w.model_copy(update={"precision": "int4"}))
    fp8 = _answer(w.model_copy(update={"precision": "fp8"}))
    assert int4.rows and not fp8.rows  # the widest that stays within $600
    row = _first(int4.rows)
    assert found.binding.startswith("the budget binds (")
    assert (
        f"): --precision int4 ({_said(row)}) stays within it; at the checkpoint's own bf16, the cheapest"
        in (found.binding)
    ), found.binding
    assert found.binding.endswith(" would show it")


def test_a_narrower_precision_that_needs_more_budget_says_the_budget_it_needs() -> None:
    w = CHAT_70B.model_copy(update={"budget_usd": 300})
    found = _answer(w)
    assert not found.rows and found.binding is not None
    fp8 = _answer(w.model_copy(update={"precision": "fp8", "budget_usd": None}))
    row = _cheapest(fp8.rows)
    assert row.total_usd is not None
    assert (
        f"--precision fp8 with --budget {math.ceil(row.total_usd)} ({_said(row)}) would show a cheaper row"
        in (found.binding)
    ), found.binding


def test_batch_and_finetune_dead_ends_keep_their_suggestions() -> None:
    batch = BatchWorkload(model="llama-3.1-8b", output_tokens_total=1e10, deadline_hours=0.2)
    found = _answer(batch)
    assert found.binding is not None and found.binding.startswith("the deadline binds (")
    assert found.binding.endswith("would show it")
    # no narrower precision is named: none finishes 10B tokens of Llama 3.1 8B within 12 minutes either
    # (checked: the deadline-alone dead end names one where one does)
    assert "--precision" not in found.binding
    for precision in ("fp8", "int4"):
        assert not _answer(batch.model_copy(update={"precision": precision})).rows
    tune = FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e9, budget_usd=0.01)
    ranker = Ranker(tune, now=NOW)
    answer = ranker.advise(_offers(), "cost", top=5)
    assert not answer.rows and answer.binding is not None
    assert answer.binding.startswith("the budget binds (")
    assert " would show it" in answer.binding and "--precision" not in answer.binding
