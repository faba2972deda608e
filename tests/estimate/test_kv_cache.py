"""KV cache per token from the real attention shape (hand-checkable cases)."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.kv_cache import kv_bytes_per_sequence, kv_bytes_per_token, kv_heads_per_gpu
from gpuscout.estimate.precision import resolve_kv_dtype
from tests.estimate.physics_specs import DEEPSEEK_V3, GEMMA2_9B, LLAMA2_7B, LLAMA3_8B, LLAMA3_70B

BF16 = resolve_kv_dtype("bf16")
KIB = 1024


def test_pinned_bf16_kv_per_token() -> None:
    assert kv_bytes_per_token(LLAMA3_8B, BF16) == 128 * KIB  # 2*32*8*128*2
    assert kv_bytes_per_token(LLAMA3_70B, BF16) == 320 * KIB  # 2*80*8*128*2
    assert kv_bytes_per_token(LLAMA2_7B, BF16) == 512 * KIB  # MHA: 2*32*32*128*2
    # MLA latent: (kv_lora_rank 512 + rope 64) * 61 layers * 2 bytes, no K/V factor of 2
    assert kv_bytes_per_token(DEEPSEEK_V3, BF16) == (512 + 64) * 61 * 2
    assert kv_bytes_per_token(DEEPSEEK_V3, BF16) / KIB == pytest.approx(68.6, abs=0.05)


def test_kv_dtype_scales_bytes() -> None:
    assert kv_bytes_per_token(LLAMA3_8B, resolve_kv_dtype("fp8")) == 64 * KIB
    q4 = kv_bytes_per_token(LLAMA3_8B, resolve_kv_dtype("q4_0"))
    assert q4 == pytest.approx(128 * KIB * 18 / 64)


def test_sliding_window_layers_cap_at_window() -> None:
    per_layer = 2 * 8 * 256 * 2  # Gemma 2 9B: 8 KV heads x 256 head_dim, bf16
    short = kv_bytes_per_sequence(GEMMA2_9B, BF16, 1000)
    assert short == pytest.approx(42 * per_layer * 1000)
    long = kv_bytes_per_sequence(GEMMA2_9B, BF16, 8192)
    # 21 global layers hold 8192 tokens, 21 local layers only the 4096-token window
    assert long == pytest.approx(21 * per_layer * 8192 + 21 * per_layer * 4096)


def test_all_sliding_when_no_layer_types() -> None:
    mistral = dataclasses.replace(LLAMA3_8B, sliding_window=4096, layer_types=())
    assert kv_bytes_per_sequence(mistral, BF16, 32768) == kv_bytes_per_sequence(mistral, BF16, 4096)


def test_paged_block_rounding() -> None:
    exact = kv_bytes_per_sequence(LLAMA3_8B, BF16, 17)
    paged = kv_bytes_per_sequence(LLAMA3_8B, BF16, 17, block_tokens=16)
    assert exact == 17 * 128 * KIB
    assert paged == 32 * 128 * KIB


def test_tensor_parallel_shards_then_replicates_kv_heads() -> None:
    assert kv_heads_per_gpu(LLAMA3_8B, 1) == 8
    assert kv_heads_per_gpu(LLAMA3_8B, 4) == 2
    assert kv_heads_per_gpu(LLAMA3_8B, 8) == 1
    assert kv_heads_per_gpu(LLAMA3_8B, 16) == 1  # replicated: each GPU still needs one head
    one = kv_bytes_per_sequence(LLAMA3_8B, BF16, 1000, tp=8)
    assert kv_bytes_per_sequence(LLAMA3_8B, BF16, 1000, tp=16) == one
    # MLA latent is not split by heads: every GPU keeps the whole latent
    assert kv_bytes_per_sequence(DEEPSEEK_V3, BF16, 1000, tp=8) == kv_bytes_per_sequence(
        DEEPSEEK_V3, BF16, 1000
    )
