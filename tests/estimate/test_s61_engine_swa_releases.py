"""Which release of vLLM and SGLang first keeps a sliding layer's window only (stop 61), read in their
released code rather than recalled.

vLLM: 0.9.0's ``get_kv_cache_config`` (vllm/v1/core/kv_cache_utils.py) always ran
``unify_hybrid_kv_cache_specs``, turning every SlidingWindowSpec of a mixed model into a FullAttentionSpec;
0.9.1 runs it only under ``disable_hybrid_kv_cache_manager`` (off by default on CUDA / ROCm). gpuscout said
0.10 (recalled): "vllm 0.9.1" gave Gemma-2-27B 2.875 GiB of KV at 8,192 tokens, not 2.156.

SGLang: 0.4.9.post3's model_runner makes a model with a sliding window (Gemma 2 / 3) hybrid: its sliding
layers in a SWAKVPool whose out-of-window tokens are freed (evict_swa). 0.4.9's SWAKVPool served Llama 4's
chunked attention only. gpuscout assumed every release kept the window: "sglang 0.4.6" gave 2.156 GiB.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.engines import resolve_engine

PER_LAYER_TOKEN = 2 * 16 * 128 * 2  # Gemma-2-27B: K and V, 16 KV heads x 128, bf16
FULL = 46 * 8192 * PER_LAYER_TOKEN  # 2.875 GiB: every layer the whole 8,192 tokens
WINDOWED = 23 * 8192 * PER_LAYER_TOKEN + 23 * 4096 * PER_LAYER_TOKEN  # 2.156 GiB: 23 layers keep 4,096


def _kv(engine: str) -> float:
    return memory_needed("gemma-2-27b", "H100-SXM", engine=engine, context=8192).memory.kv_cache_gb * 1e9


@pytest.mark.parametrize(
    ("engine", "expected"),
    [
        ("vllm 0.9.0", FULL),
        ("vllm 0.9.1", WINDOWED),
        ("vllm 0.9.2", WINDOWED),
        ("sglang 0.4.6", FULL),
        ("sglang 0.4.9", FULL),
        ("sglang 0.4.9.post2", FULL),
        ("sglang 0.4.9.post5", WINDOWED),  # a post release is its own release (stop 62)
        ("sglang 0.4.10", WINDOWED),
        ("sglang 0.5.1", WINDOWED),
        ("sglang", WINDOWED),
    ],
)
def test_the_first_release_with_per_layer_windows(engine: str, expected: float) -> None:
    assert FULL == 2.875 * 2**30
    assert _kv(engine) == pytest.approx(expected)


def test_the_releases_and_their_sources_are_read_not_recalled() -> None:
    for name, since in (("vllm", "0.9.1"), ("sglang", "0.4.9.post3")):
        eng = resolve_engine(name)
        assert eng.kv_layer_windows_since == since
        assert eng.kv_layer_windows_source.startswith("read in")
        assert "recalled" not in eng.kv_layer_windows_source
