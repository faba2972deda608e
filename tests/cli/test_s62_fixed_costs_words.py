"""One name, "fixed costs", for a step's own costs (kernel launches, CPU scheduling) wherever people read
it, "scheduler" only for the engine's cap on running sequences, and no snake_case label in the text.

``estimate`` printed ``binding limit  scheduler`` beside ``fixed costs 3.8`` of the decode step and
``(cap 64, scheduler)`` (the max_num_seqs cap) in the same output; diagnose said ``bound  overhead``,
transcribe ``(overhead-bound)``; the load line said ``(cap 565, kv_cache)`` and the assumptions table's
keys were the JSON's (``kv_dtype``, ``fixed_costs``). The JSON keeps its values and keys.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from gpuscout import estimate
from gpuscout.cli import app
from gpuscout.estimate.types import FIXED_COSTS_WHAT, binding_words
from gpuscout.wording import key_words
from tests.cli.terminal_lines import table_cells

runner = CliRunner()
LAYER_SPLIT = [
    "estimate", "qwen3-30b-a3b", "--gpu", "RTX4090", "--gpus", "2", "--parallel", "layer",
    "--engine", "llama.cpp", "--precision", "q4_k_m",
]  # fmt: skip


def _rows(output: str) -> dict[str, str]:
    """The rows of the tables in ``output`` (first cell: the rest joined), continuation lines joined."""
    rows: dict[str, str] = {}
    last = ""
    for cells in table_cells(output.splitlines()):
        if cells[0]:
            last = cells[0]
            rows[last] = " ".join(cells[1:]).strip()
        elif last:
            rows[last] = f"{rows[last]} {' '.join(cells[1:]).strip()}".strip()
    return rows


def test_estimate_names_fixed_costs_one_way_and_the_cap_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    result = runner.invoke(app, LAYER_SPLIT)
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    assert rows["binding limit"] == FIXED_COSTS_WHAT  # was "scheduler"
    assert rows["decode step (parts overlap)"].endswith("fixed costs 3.8")
    assert "(cap 64, scheduler)" in rows["load"]  # the sequence cap keeps the word
    assert "scheduler" not in rows["binding limit"]
    data = json.loads(runner.invoke(app, [*LAYER_SPLIT, "--json"]).stdout)
    assert data["binding_limit"] == "overhead"  # the JSON value


def test_estimate_shows_no_snake_case_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    result = runner.invoke(app, ["estimate", "llama-3.1-8b", "--gpu", "H100-SXM"])
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    assert re.search(r"\(cap \d+, KV cache\)", rows["load"]), rows["load"]  # was "kv_cache"
    assert "kv_cache" not in result.output
    assert all("_" not in key for key in rows), list(rows)  # "KV dtype", "memory budget", ...
    assert {"KV dtype", "memory budget", "fixed costs"} <= rows.keys()
    data = json.loads(runner.invoke(app, ["estimate", "llama-3.1-8b", "--gpu", "H100-SXM", "--json"]).stdout)
    assert {"kv_dtype", "memory_budget", "fixed_costs"} <= data["assumptions"].keys()


def test_diagnose_and_transcribe_say_fixed_costs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    args = ["diagnose", "llama-3.1-8b", "--gpu", "H100-SXM", "--measured-tps", "40"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert _rows(result.output)["bound"] == FIXED_COSTS_WHAT  # was "overhead"
    assert json.loads(runner.invoke(app, [*args, "--json"]).stdout)["bound"] == "overhead"
    heard = runner.invoke(app, ["transcribe", "whisper-large-v3", "--gpu", "H100-SXM"])
    assert heard.exit_code == 0, heard.output
    assert _rows(heard.output)["decoder step"].endswith("(bound by fixed costs)")  # was "overhead-bound"


def test_the_queueing_warning_names_the_pace_in_words() -> None:
    e = estimate("llama-3.2-1b", "H200-SXM", concurrency=2000, context_in=128, context_out=128)
    capped = next(w for w in e.warnings if "at most 1024 sequences" in w)
    assert f"{FIXED_COSTS_WHAT} sets the pace" in capped


@pytest.mark.parametrize(
    ("value", "parallel", "words"),
    [
        ("overhead", "tensor", FIXED_COSTS_WHAT),
        ("kv_cache", "tensor", "KV cache memory"),
        ("interconnect", "layer", "hand-offs between GPUs"),
        ("interconnect", "tensor", "all-reduces"),
    ],
)
def test_binding_words(value: str, parallel: str, words: str) -> None:
    assert binding_words(value, parallel) == words


def test_key_words() -> None:
    assert key_words("kv_dtype") == "KV dtype"
    assert key_words("estimate: fixed_costs") == "estimate: fixed costs"
    assert key_words("moe") == "MoE" and key_words("engine") == "engine"
