"""A dead end's ways out as data (stop 62, a review): the advisor said what binds and the moves that would
answer in one ~150-word text ("what would give an answer: keeping the targets, --precision gguf-q4_k_m
with --budget 1262 (...); otherwise, ..."). The answer now also gives them in parts: ``binding_why`` (what
binds) and ``moves``, each with the workload fields it changes and its cheapest row's cost and speed, in
the order the text says them (those that keep what each row must meet, the relaxations, the last
resort); ``binding`` says the same text as before. Each move's fields, applied, show its row (checked by
ranking with them)."""

from __future__ import annotations

import math
from typing import Any

from gpuscout.advise.types import MOVE_GROUPS, Advice, Move
from gpuscout.advise.workload import parse_hours
from tests.advise.test_s61_dead_end_moves import _answer, _cheapest, _first
from tests.advise.test_s62_deadline_alone import BATCH_70B
from tests.advise.test_s62_latency_and_budget import LLAMA_CPP_CHAT


def _dead_end(w: Any) -> Advice:
    found = _answer(w)
    assert not found.rows and found.binding is not None
    return found


def _applied(w: Any, move: Move) -> Advice:
    """``w`` ranked with ``move``'s fields changed."""
    return _answer(w.model_copy(update=move.options))


def _in_order(moves: tuple[Move, ...]) -> None:
    """Keeping first, then relaxing, then the last resort; each group cheapest first."""
    groups = [MOVE_GROUPS.index(m.group) for m in moves]
    assert groups == sorted(groups), moves
    for group in MOVE_GROUPS:
        costs = [m.total_usd if m.total_usd is not None else math.inf for m in moves if m.group == group]
        assert costs == sorted(costs), moves


def test_the_serve_dead_end_gives_its_moves_with_their_fields_and_cost() -> None:
    found = _dead_end(LLAMA_CPP_CHAT)
    binding = found.binding or ""
    assert found.binding_why.startswith("the latency targets and the budget bind together (")
    assert binding.startswith(found.binding_why + "; what would give an answer: ")  # the flat text is kept
    assert [m.group for m in found.moves] == ["keeps", "relaxes", "last resort"], found.moves
    q4, tpot, drop = found.moves
    assert set(q4.options) == {"precision", "budget_usd"} and q4.options["precision"] == "gguf-q4_k_m"
    assert q4.options["budget_usd"] == math.ceil(q4.total_usd or 0)
    assert f"--budget {q4.options['budget_usd']:.0f} (" in q4.text
    assert set(tpot.options) == {"tpot_ms_max", "budget_usd"}
    assert tpot.text.startswith(f"--tpot-ms {tpot.options['tpot_ms_max']:.0f} ")
    assert drop.options["latency_targets"] == "none" and "budget_usd" in drop.options
    assert drop.text.startswith("--latency-targets none with --budget ")
    for move in found.moves:  # each said in the flat text, in this order
        assert move.text in binding, (move.text, binding)
        assert move.tpot_ms is not None and move.total_usd is not None
        # the fields, applied, show a row that costs what the move says its cheapest does
        shown = _applied(LLAMA_CPP_CHAT, move).rows
        assert shown, move
        assert _cheapest(shown).total_usd == move.total_usd
    positions = [binding.index(m.text) for m in found.moves]
    assert positions == sorted(positions)
    _in_order(found.moves)


def test_the_batch_deadline_dead_end_gives_its_moves_with_their_fields_and_cost() -> None:
    found = _dead_end(BATCH_70B)
    assert found.binding_why.startswith("the deadline binds (")
    assert [m.group for m in found.moves] == ["keeps", "relaxes"], found.moves
    fp8, later = found.moves
    assert fp8.options == {"precision": "fp8"}
    row = _first(_applied(BATCH_70B, fp8).rows)
    assert fp8.total_usd == row.total_usd and fp8.time_to_result_s == row.time_to_result_s
    assert fp8.text.endswith(" finishes within the deadline")
    # the deadline the text proposes ("--deadline 10min would show it"), as hours
    minutes = int((found.binding or "").rsplit("--deadline ", 1)[1].split("min", 1)[0])
    assert later.options == {"deadline_hours": parse_hours(f"{minutes}min")}
    shown = _applied(BATCH_70B, later).rows
    assert shown and _cheapest(shown).total_usd == later.total_usd
    assert later.time_to_result_s is not None and later.time_to_result_s <= minutes * 60
    _in_order(found.moves)
