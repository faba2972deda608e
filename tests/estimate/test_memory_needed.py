"""``memory_needed``: the memory a whole batch takes (a VRAM calculator's question), where ``estimate``
caps the batch at what the KV cache holds and reports the memory of the sequences that run."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate, memory_needed

# Llama-3.1-8B: 32 layers x 8 KV heads x 128 dims x (K + V) x 2 B = 131,072 B of bf16 cache per token
KV_PER_TOKEN = 32 * 8 * 128 * 2 * 2


def test_the_whole_batch_is_counted_not_the_capped_one() -> None:
    need = memory_needed("llama-3.1-8b", "L4", batch=64, context=32768)
    assert need.memory.kv_bytes_per_token == KV_PER_TOKEN
    # 64 sequences x 32,768 tokens x 128 KiB (16-token blocks: 32,768 is a whole number of them)
    assert need.memory.kv_cache_gb == pytest.approx(64 * 32768 * KV_PER_TOKEN / 1e9, rel=1e-9)
    assert not need.fits and need.binding_constraint == "kv_cache"
    assert need.max_batch == 0  # 16 GB of weights + one 4.3 GB cache is over the L4's 21.7 GB
    assert any("64 x 32768 tokens need" in w and "not one sequence fits" in w for w in need.warnings)
    # the estimate at the same batch answers another question: what runs (here, nothing)
    est = estimate("llama-3.1-8b", "L4", batch=64, context_in=32768, context_out=0)
    assert est.memory.kv_cache_gb < need.memory.kv_cache_gb / 60


def test_a_batch_that_fits_only_in_part_does_not_fit() -> None:
    need = memory_needed("llama-3.1-8b", "H100", batch=64, context=8192)
    assert 0 < need.max_batch < 64 and not need.fits
    est = estimate("llama-3.1-8b", "H100", batch=64, context_in=8000, context_out=192)
    assert est.fits and est.batch == need.max_batch  # the estimate runs what fits, the rest queue
    assert need.memory.kv_cache_gb == pytest.approx(64 / need.max_batch * est.memory.kv_cache_gb, rel=0.02)
    at_max = memory_needed("llama-3.1-8b", "H100", batch=need.max_batch, context=8192)
    assert at_max.fits
    assert not memory_needed("llama-3.1-8b", "H100", batch=need.max_batch + 1, context=8192).fits


def test_tensor_parallel_and_replicas_split_the_batch_differently() -> None:
    tp = memory_needed("llama-3.1-8b", "H100", gpus=2, batch=32, context=8192)
    dp = memory_needed("llama-3.1-8b", "H100", gpus=2, batch=32, context=8192, parallel="replicas")
    one = memory_needed("llama-3.1-8b", "H100", batch=16, context=8192)
    # TP halves the weights and each sequence's cache; replicas hold the whole model and half the batch
    assert tp.memory.weights_gb == pytest.approx(one.memory.weights_gb / 2, rel=0.02)
    assert tp.memory.kv_cache_gb == pytest.approx(one.memory.kv_cache_gb, rel=1e-9)
    assert dp.memory.weights_gb == pytest.approx(one.memory.weights_gb, rel=1e-9)
    assert dp.memory.kv_cache_gb == pytest.approx(one.memory.kv_cache_gb, rel=1e-9)


def test_a_format_the_engine_cannot_run_does_not_fit_and_says_why() -> None:
    need = memory_needed("llama-3.1-8b", "V100", precision="fp8", engine="vllm")
    assert not need.supported and not need.fits and need.binding_constraint == "unsupported"
    assert need.warnings


def test_bad_input_names_the_field() -> None:
    with pytest.raises(InvalidInputError) as exc:
        memory_needed("llama-3.1-8b", "H100", context=0)
    assert exc.value.field == "context"
    with pytest.raises(InvalidInputError) as exc:
        memory_needed("llama-3.1-8b", "H100", batch=0)
    assert exc.value.field == "batch"
