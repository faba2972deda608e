"""The latency floor of a dead end names the layout the engine runs (stop 62, a review): for llama.cpp,
whose multi-GPU layout is a layer split (its rows read "8x MI355X 2-way layer split"), the floor said
"TTFT 482 ms (TP8 on MI355X)"; it now says "8-way layer split on MI355X"."""

from __future__ import annotations

from tests.advise.test_s61_dead_end_moves import _answer
from tests.advise.test_s62_latency_and_budget import LLAMA_CPP_CHAT


def test_a_llama_cpp_floor_names_its_layer_split() -> None:
    binding = _answer(LLAMA_CPP_CHAT).binding or ""
    floor = binding.split("at one user per replica on the widest split, the best is ", 1)[1].split(";")[0]
    assert "TP" not in floor, floor  # llama.cpp runs no tensor parallelism
    assert "-way layer split on " in floor, floor
