"""``max_nodes`` bounds the node counts the advisor searches for a pre-training run; with ``gpus`` or
``nodes`` given the size is fixed and there is none to search, so giving it too is an input error
naming it (it used to be accepted and ignored). Left at its default it is not "given"."""

from __future__ import annotations

import pytest

from gpuscout.advise.workload import PretrainWorkload, Workload
from gpuscout.errors import InvalidInputError

BASE = {"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 1e10}


@pytest.mark.parametrize("size", [{"gpus": 16}, {"nodes": 2}])
@pytest.mark.parametrize("max_nodes", [4, PretrainWorkload.model_fields["max_nodes"].default])
def test_max_nodes_with_a_fixed_size_is_an_error_naming_it(size: dict[str, int], max_nodes: int) -> None:
    with pytest.raises(InvalidInputError) as info:
        Workload.from_dict({**BASE, **size, "max_nodes": max_nodes})
    assert info.value.field == "max_nodes"
    (fixed,) = size
    assert str(info.value).startswith(
        f"max_nodes: bounds the node count the advisor searches; with {fixed} given there is none to search"
    )


@pytest.mark.parametrize("size", [{"gpus": 16}, {"nodes": 2}])
def test_a_fixed_size_with_max_nodes_at_its_default_is_accepted(size: dict[str, int]) -> None:
    w = Workload.from_dict({**BASE, **size})
    assert (
        isinstance(w, PretrainWorkload) and w.max_nodes == PretrainWorkload.model_fields["max_nodes"].default
    )


def test_max_nodes_without_a_fixed_size_is_accepted() -> None:
    w = Workload.from_dict({**BASE, "max_nodes": 4})
    assert isinstance(w, PretrainWorkload) and w.max_nodes == 4
