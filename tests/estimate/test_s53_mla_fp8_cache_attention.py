"""An FP8 KV cache makes a prompt's attention run at the FP8 rate only where the kernel multiplies FP8
keys and values (TensorRT-LLM's FP8 context FMHA, FlashAttention-3 on a GQA cache). MLA prefills on keys
and values up-projected from the latent, in 16 bits (vLLM ``_forward_prefill``, SGLang
``forward_normal``): its FP8 cache saves memory, not prefill time (it gave DeepSeek-V3 35 % more prompt
tokens/s)."""

from __future__ import annotations

import pytest

from gpuscout import estimate


def test_deepseek_prefill_is_not_faster_with_an_fp8_cache() -> None:
    kw = {"gpus": 8, "concurrency": 8, "context_in": 32000, "context_out": 256}
    bf16 = estimate("deepseek-v3", "H200", **kw)
    fp8 = estimate("deepseek-v3", "H200", kv_dtype="fp8", **kw)
    assert fp8.ttft_ms == pytest.approx(bf16.ttft_ms, rel=0.02)


def test_a_gqa_model_on_an_fp8_cache_still_prefills_at_the_fp8_rate() -> None:
    kw = {"engine": "vllm", "precision": "fp8", "context_in": 32000, "context_out": 64}
    bf16 = estimate("llama-3.1-8b", "H100", **kw)
    fp8 = estimate("llama-3.1-8b", "H100", kv_dtype="fp8", **kw)
    assert fp8.ttft_ms < 0.85 * bf16.ttft_ms
