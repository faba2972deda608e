"""Dead ends under the latency targets and a budget together (stop 62, a review): Llama 3.1 70B on
llama.cpp to 4 users at chat speed within $500 a month. The targets alone and the budget alone each left no
row, so the answer fell through to "the largest instance has 2,304 GiB of GPU memory: a narrower precision
... would need less memory", though memory is not what binds. It now says the targets and the budget bind
together, and names the moves that would answer, each with the budget its cheapest row needs."""

from __future__ import annotations

import math
from typing import Any

from gpuscout.advise.types import Recommendation
from gpuscout.advise.workload import ServeWorkload
from tests.advise.test_s61_dead_end_moves import _answer, _cheapest, _said

LLAMA_CPP_CHAT = ServeWorkload(
    model="llama-3.1-70b",
    engine="llama.cpp",
    concurrency=4,
    prompt_tokens=1000,
    output_tokens=300,
    budget_usd=500,
)


def _binding(w: Any) -> str:
    found = _answer(w)
    assert not found.rows and found.binding is not None
    return found.binding


def _budget_needed(w: Any, **changes: Any) -> Recommendation:
    """The cheapest row of ``w`` with ``changes`` and the budget lifted, which the budget of ``w`` leaves
    out (checked: the budget binds for it)."""
    assert not _answer(w.model_copy(update=changes)).rows
    rows = _answer(w.model_copy(update={**changes, "budget_usd": None})).rows
    assert rows
    row = _cheapest(rows)
    assert row.total_usd is not None and row.total_usd > w.budget_usd
    # the budget it needs shows it
    shown = _answer(w.model_copy(update={**changes, "budget_usd": float(math.ceil(row.total_usd))})).rows
    assert shown and _cheapest(shown).total_usd == row.total_usd
    return row


def test_latency_targets_and_a_budget_together_are_said_to_bind_not_memory() -> None:
    binding = _binding(LLAMA_CPP_CHAT)
    assert binding.startswith("the latency targets and the budget bind together ("), binding
    assert "memory" not in binding and "largest instance" not in binding
    assert "): no offer within $500 a month meets the TTFT <= 2,000 ms at 1,000-token prompts, " in binding
    # each lifted alone leaves no row (checked, not assumed): the two bind together
    assert not _answer(LLAMA_CPP_CHAT.model_copy(update={"budget_usd": None})).rows
    assert not _answer(LLAMA_CPP_CHAT.model_copy(update={"latency_targets": "none"})).rows


def test_the_moves_under_targets_and_budget_say_the_budget_each_needs() -> None:
    binding = _binding(LLAMA_CPP_CHAT)
    # keeping the targets: the narrower GGUF level whose cheapest row meets them, with the budget it needs
    q4 = _budget_needed(LLAMA_CPP_CHAT, precision="gguf-q4_k_m")
    q4_said = f"--precision gguf-q4_k_m with --budget {math.ceil(q4.total_usd or 0)} ({_said(q4)})"
    assert "what would give an answer: keeping the targets, " + q4_said + "; " in binding, binding
    assert q4.estimate is not None and (q4.estimate.tpot_ms or math.inf) <= 50
    # the wider level meets the targets on no offer, whatever the budget
    assert not _answer(LLAMA_CPP_CHAT.model_copy(update={"precision": "gguf-q8_0", "budget_usd": None})).rows
    # dropping the targets last, with the budget its cheapest row needs and the speed it gives up
    free = _budget_needed(LLAMA_CPP_CHAT, latency_targets="none")
    last = binding.split("; as a last resort, ", 1)[1]
    assert last.startswith(
        f"--latency-targets none with --budget {math.ceil(free.total_usd or 0)}, which gives up the targets:"
    ), last
    assert free.estimate is not None and free.estimate.per_user_tokens_per_s is not None
    assert f"serves {free.estimate.per_user_tokens_per_s:,.0f} tok/s per user" in last


def test_relaxed_targets_under_a_budget_say_the_budget_they_need() -> None:
    """The slower speed target the offers reach shows no row within $500: said with the budget its
    cheapest row needs, not as a count of offers the budget leaves out."""
    binding = _binding(LLAMA_CPP_CHAT)
    otherwise = binding.split("; otherwise, ", 1)[1].split("; as a last resort, ", 1)[0]
    assert otherwise.startswith("--tpot-ms "), otherwise
    tpot = float(otherwise.removeprefix("--tpot-ms ").split(" ", 1)[0])
    row = _budget_needed(LLAMA_CPP_CHAT, tpot_ms_max=tpot)
    assert f" with --budget {math.ceil(row.total_usd or 0)} ({_said(row)})" in otherwise, otherwise
    assert " shows " not in otherwise


def test_the_targets_alone_binding_keep_their_answer() -> None:
    """Without the budget the same workload's answer is unchanged: the targets bind."""
    binding = _binding(LLAMA_CPP_CHAT.model_copy(update={"budget_usd": None}))
    assert binding.startswith("no offer meets the TTFT <= 2,000 ms")
    assert "without them, the cheapest offers reach" in binding
    assert "with --budget" not in binding
