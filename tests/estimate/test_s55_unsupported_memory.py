"""An engine that cannot run a format still answers the memory of every sequence asked for (stop 55:
`faq unsloth/Llama-3.3-70B-Instruct-bnb-4bit` counted one user's KV cache for eight, since vLLM refuses
NF4 and its refusal planned one sequence: 42 GiB where the weights and eight caches need 50)."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import memory_needed


def test_a_refused_format_still_holds_every_users_cache() -> None:
    refused = memory_needed(
        "llama-3.3-70b", "H100-SXM", precision="nf4", context=4096, batch=8, engine="vllm"
    )
    runs = memory_needed(
        "llama-3.3-70b", "H100-SXM", precision="nf4", context=4096, batch=8, engine="hf-transformers"
    )
    assert not refused.supported and runs.supported
    # 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 327,680 B a token; x 4,096 tokens x 8 users
    assert refused.memory.kv_cache_gb == pytest.approx(327_680 * 4096 * 8 / 1e9, rel=0.02)
    assert refused.memory.kv_cache_gb == pytest.approx(runs.memory.kv_cache_gb, rel=0.02)
    one = memory_needed("llama-3.3-70b", "H100-SXM", precision="nf4", context=4096, batch=1, engine="vllm")
    assert refused.memory.kv_cache_gb == pytest.approx(8 * one.memory.kv_cache_gb, rel=0.02)
