"""The FAQ's slow-generation cause names what the split's link carries: a tensor split all-reduces twice a
layer, a layer split (llama.cpp's default, transformers' device_map) hands each card's output to the next."""

from __future__ import annotations

from gpuscout.advise.faq import _slow_cause


def test_an_interconnect_bound_layer_split_is_hand_offs_not_all_reduces() -> None:
    cause, helps = _slow_cause("interconnect", 4, parallel="layer")
    assert "hand-offs between the 4 cards" in cause and "all-reduce" not in cause
    assert "a hand-off carries a whole batch" in helps and "all-reduce" not in helps
    tensor_cause, tensor_helps = _slow_cause("interconnect", 4)
    assert "all-reduces between the 4 cards" in tensor_cause and "an all-reduce carries" in tensor_helps


def test_a_split_pace_names_the_layer_split_s_hand_offs() -> None:
    cause, helps = _slow_cause("split", 3, parallel="layer")
    assert cause == "reads, hand-offs between GPUs and fixed costs together"
    assert "all-reduce" not in helps
    assert _slow_cause("split", 3)[0] == "reads, all-reduces and fixed costs together"


def test_the_vram_answer_says_an_mla_cache_is_kept_whole_on_every_tensor_parallel_gpu() -> None:
    """DeepSeek's compressed (MLA) KV cache has no heads to split: TP keeps it whole on each GPU, so a user's
    0.27 GiB is paid on every GPU of the split, which a GQA model's cache is not."""
    from gpuscout.advise.faq import faq
    from tests.advise.helpers import NOW
    from tests.advise.test_faq import OFFERS

    def vram(model: str) -> str:
        return next(a.answer for a in faq(model, OFFERS, now=NOW).answers if a.key == "vram")

    assert "on every GPU of a tensor-parallel split" in vram("deepseek-r1")
    assert "on every GPU" not in vram("llama-3.1-8b")
