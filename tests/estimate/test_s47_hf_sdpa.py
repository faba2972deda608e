"""HF transformers' default attention, SDPA, as 5.x runs it (measured here: benchmarks/gpu_measure.py on an
H200): the GQA heads go to the kernel unexpanded (``use_gqa_in_sdpa``), nothing waits for the host per
layer, and the DynamicCache appends each token by concatenation -- the whole cache read and written again.
The FlashAttention-2 path of the older rows keeps its expanded copies and per-layer host sync."""

from __future__ import annotations

import pytest

from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.throughput import decode_step
from tests.estimate.setups import make_setup

# Llama-3.1-8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131,072 B of cache per token
KV_PER_TOKEN = 32 * 8 * 128 * 2 * 2


def test_the_default_path_is_sdpa_and_flash_attention_is_a_variant() -> None:
    sdpa = resolve_engine("transformers")
    assert (sdpa.kv_copies_per_step, sdpa.attn_host_sync, sdpa.kv_append_copies) == (0.0, False, 2.0)
    older = "HF transformers 4.51.3 (generate, flash-attention 2.7.4)"
    for text in ("transformers flash_attention_2", older):
        fa2 = resolve_engine(text)
        assert fa2.kv_copies_per_step > 0 and fa2.attn_host_sync and fa2.kv_append_copies == 0.0
    # today's release with flash-attention named is the variant alone, no era
    assert resolve_engine("transformers 5.17 flash-attention").era == "flash-attention-2"


@pytest.mark.parametrize("batch", [8, 32])
def test_sdpa_reads_the_cache_three_times_a_step(batch: int) -> None:
    """Memory per decode step at 8,192 tokens of context: the weights, plus the plain cache read by the
    attention and read + written by the concatenation (3 passes), and nothing GQA-expanded."""
    st = make_setup("llama-3.1-8b", "H200", engine="transformers")
    ctx = 8192
    short, long = decode_step(st, batch, 16), decode_step(st, batch, ctx)
    extra_bytes = (long.memory - short.memory) * st.achieved_bandwidth
    expected = 3 * KV_PER_TOKEN * (ctx - 16) * batch
    assert extra_bytes == pytest.approx(expected, rel=0.01)


def test_sdpa_hides_a_long_cache_behind_the_host_where_fa2_cannot() -> None:
    """At 8,192 tokens x 8 sequences the SDPA step's GPU work (~12 ms) hides behind the host's launches
    (~30 ms), as measured (same-machine step at 128 and 8,192 tokens: 61 vs 60 ms); the FA2 path adds
    its attention to the host's clock and copies the expanded cache, so its step grows."""
    sdpa = make_setup("llama-3.1-8b", "H200", engine="transformers")
    fa2 = make_setup("llama-3.1-8b", "H200", engine="transformers flash-attention")
    grow_sdpa = decode_step(sdpa, 8, 8192).total - decode_step(sdpa, 8, 128).total
    grow_fa2 = decode_step(fa2, 8, 8192).total - decode_step(fa2, 8, 128).total
    assert grow_sdpa < 0.002 < 0.01 < grow_fa2
