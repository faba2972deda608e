"""A substitution that swaps a quantized checkpoint's own format says it needs other weights (stop 59,
renter pass): an AWQ checkpoint on a V100 was swapped for llama.cpp GGUF Q4_K_M as if the same download
ran there."""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers


def _first_reason(model: str) -> str:
    offers = [o for o in current_offers() if o.accelerator.startswith("V100")]
    w = Workload.from_dict({"kind": "serve", "model": model, "concurrency": 4})
    return advise(w, offers, top=1).rows[0].reasons[0]


def test_an_awq_checkpoint_swapped_for_gguf_needs_other_weights() -> None:
    reason = _first_reason("qwen3-14b-awq")
    assert "runs llama.cpp with GGUF" in reason
    assert "other weights: gguf-q4_k_m files of the model, not this awq checkpoint" in reason


def test_a_sixteen_bit_checkpoint_swapped_for_gguf_says_nothing_more() -> None:
    assert "other weights" not in _first_reason("llama-3.1-8b")
