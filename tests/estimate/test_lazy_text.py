"""Assumption text built on first read (``deferred_text``): the same items, whatever reads them."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

from gpuscout.estimate.api import estimate
from gpuscout.estimate.lazy_text import LazyText, deferred_text, text


def _calls() -> tuple[list[int], LazyText]:
    calls: list[int] = []

    def build() -> dict[str, str]:
        calls.append(1)
        return {"engine": "vLLM", "load": "batch 4"}

    return calls, LazyText.deferred(build)


def test_text_is_built_once_on_first_read_and_reads_as_the_dict() -> None:
    calls, lazy = _calls()
    assert calls == []
    assert lazy == {"engine": "vLLM", "load": "batch 4"} and calls == [1]
    assert lazy == {"engine": "vLLM", "load": "batch 4"}  # the plain dict on the left
    assert dict(lazy) == {**lazy} == lazy.copy() == dict(lazy.items())
    assert list(lazy) == ["engine", "load"] and len(lazy) == 2 and "load" in lazy
    assert json.loads(json.dumps(lazy)) == {"engine": "vLLM", "load": "batch 4"}
    assert calls == [1]


def test_every_way_in_fills_it() -> None:
    for read in (
        len,
        list,
        repr,
        dict,
        copy.copy,
        copy.deepcopy,
        lambda d: pickle.loads(pickle.dumps(d)),
        lambda d: d | {},
        lambda d: {} | d,
        lambda d: d.get("engine"),
        lambda d: d["engine"],
        lambda d: sorted(d.items()),
    ):
        _, lazy = _calls()
        assert read(lazy) == read({"engine": "vLLM", "load": "batch 4"}), read  # type: ignore[operator]


def test_estimates_carry_the_same_text_deferred_or_not() -> None:
    eager = estimate("llama-3.1-8b", "L4", batch=8, context_in=1000, context_out=200)
    with deferred_text():
        lazy = estimate("llama-3.1-8b", "L4", batch=8, context_in=1000, context_out=200)
    assert type(eager.assumptions) is dict and isinstance(lazy.assumptions, LazyText)
    assert lazy == eager and eager == lazy
    assert dataclasses.asdict(lazy) == dataclasses.asdict(eager)
    assert lazy.assumptions == eager.assumptions and len(eager.assumptions) > 5


def test_outside_the_block_text_is_built_at_once() -> None:
    assert type(text(lambda: {"a": "b"})) is dict
    with deferred_text():
        assert isinstance(text(lambda: {"a": "b"}), LazyText)
    assert type(text(lambda: {"a": "b"})) is dict
