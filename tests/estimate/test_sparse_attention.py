"""DeepSeek Sparse Attention (DeepSeek-V3.2): the cache keeps every token, a step reads the top-2048
the lightning indexer picks plus the indexer's own key of every token. Hand-checked against dense MLA
(DeepSeek-V3, the same dimensions otherwise)."""

from __future__ import annotations

import json

import pytest

from gpuscout.estimate.kv_cache import (
    indexer_bytes_per_token_layer,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    kv_read_bytes_per_step,
)
from gpuscout.estimate.precision import resolve_kv_dtype
from gpuscout.estimate.throughput import _attn_flops_per_token, _prefill_attention_flops
from gpuscout.knowledge.hf_config import spec_from_hf_config
from gpuscout.knowledge.models import resolve_model
from tests.conftest import REFERENCE

V32 = resolve_model("deepseek-v3.2")
V3 = resolve_model("deepseek-v3")
BF16 = resolve_kv_dtype("bf16")
LATENT = 512 + 64  # kv_lora_rank + qk_rope_head_dim
INDEX = 128 + 4  # 128 FP8 index-key values and one FP32 scale, per token and layer


def test_the_cache_keeps_every_latent_and_an_indexer_key_per_token() -> None:
    assert (V32.index_topk, V32.index_n_heads, V32.index_head_dim) == (2048, 64, 128)
    assert indexer_bytes_per_token_layer(V32) == INDEX
    assert indexer_bytes_per_token_layer(V3) == 0.0
    # 61 x (576 x 2 + 132) = 78,324 B per token, against dense MLA's 61 x 1152 = 70,272
    assert kv_bytes_per_token(V32, BF16) == 61 * (LATENT * 2 + INDEX) == 78_324
    assert kv_bytes_per_token(V3, BF16) == 70_272
    # the indexer keys are FP8 whatever the latent's dtype; both are replicated on every TP rank
    fp8 = resolve_kv_dtype("fp8")
    assert kv_bytes_per_sequence(V32, fp8, 1000, tp=8) == 61 * 1000 * (LATENT + INDEX)


def test_a_decode_step_reads_the_top_2048_latents_and_every_index_key() -> None:
    # at 128k: 61 x (2048 x 1152 + 131072 x 132) = 1.199 GB per sequence, dense MLA 61 x 131072 x
    # 1152 = 9.21 GB
    ctx = 131_072
    sparse = kv_read_bytes_per_step(V32, BF16, ctx)
    assert sparse == 61 * (2048 * LATENT * 2 + ctx * INDEX)
    assert sparse == pytest.approx(1.199e9, rel=1e-3)
    assert kv_read_bytes_per_step(V3, BF16, ctx) == pytest.approx(9.21e9, rel=1e-3)
    # below 2048 tokens every latent is read anyway, and the index keys come on top
    dense = kv_read_bytes_per_step(V3, BF16, 1000)
    assert kv_read_bytes_per_step(V32, BF16, 1000) == dense + 61 * 1000 * INDEX


def test_attention_flops_stop_growing_at_the_top_k_but_the_indexer_scans_everything() -> None:
    # decode, absorbed MLA: 2 x (2 x 512 + 64) x 128 heads x min(context, 2048) x 61 layers, plus the
    # indexer's 64 heads x 128 dims x context dot products, FP8 counted at half the 16-bit time
    ctx = 65_536
    attn = 2 * (2 * 512 + 64) * 128 * 2048 * 61
    indexer = 2 * 64 * 128 * ctx * 61 / 2
    assert _attn_flops_per_token(V32, ctx) == pytest.approx(attn + indexer)
    assert _attn_flops_per_token(V3, ctx) == pytest.approx(2 * (2 * 512 + 64) * 128 * ctx * 61)
    # prefill of 8192 tokens: each query attends to at most 2048 earlier tokens: sum = 2048 x (8192 -
    # 1024) = 14.68M (query, key) pairs instead of 8192^2 / 2 = 33.55M; MLA prefills unabsorbed
    # (192 + 128 dims per head); the indexer still scores all 33.55M pairs
    pairs_sparse, pairs_dense = 2048 * (8192 - 1024), 8192 * 8192 / 2
    unabsorbed = 2 * 128 * (128 + 64 + 128) * 61
    assert _prefill_attention_flops(V32, 8192) == pytest.approx(
        unabsorbed * pairs_sparse + 2 * 64 * 128 * pairs_dense * 61 / 2
    )
    assert _prefill_attention_flops(V3, 8192) == pytest.approx(unabsorbed * pairs_dense)


def test_long_context_decode_is_cheaper_than_dense_mla_and_equal_when_short() -> None:
    from gpuscout.estimate.api import estimate

    kw = {"gpus": 8, "engine": "vllm", "context_out": 1000, "concurrency": 1}
    short_32 = estimate("deepseek-v3.2", "H200", context_in=1000, **kw)
    short_3 = estimate("deepseek-v3", "H200", context_in=1000, **kw)
    assert short_32.tpot_ms == pytest.approx(short_3.tpot_ms, rel=0.02)
    long_32 = estimate("deepseek-v3.2", "H200", context_in=120_000, **kw)
    long_3 = estimate("deepseek-v3", "H200", context_in=120_000, **kw)
    assert long_32.tpot_ms < 0.85 * long_3.tpot_ms
    assert long_32.ttft_ms < 0.6 * long_3.ttft_ms


def test_an_imported_config_carries_the_indexer() -> None:
    cfg = json.loads((REFERENCE / "hf_configs" / "deepseek-ai--DeepSeek-V3.json").read_text(encoding="utf-8"))
    dense = spec_from_hf_config(cfg)
    assert dense.index_topk == 0 and kv_read_bytes_per_step(dense, BF16, 10_000) == 61 * 10_000 * LATENT * 2
    sparse = spec_from_hf_config({**cfg, "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128})
    assert (sparse.index_topk, sparse.index_n_heads, sparse.index_head_dim) == (2048, 64, 128)
    assert kv_bytes_per_token(sparse, BF16) == kv_bytes_per_token(V32, BF16)


def test_vllm_caches_sparse_mla_in_its_own_fp8_format_by_default() -> None:
    from gpuscout.errors import InvalidInputError
    from gpuscout.estimate.api import estimate

    # vLLM turns "auto" and "fp8" into fp8_ds_mla for V3.2: 61 x (656 + 132) = 48,068 B per token
    vllm = estimate("deepseek-v3.2", "H200", gpus=8, engine="vllm")
    assert vllm.kv_dtype == "fp8_ds_mla" and vllm.memory is not None
    assert vllm.memory.kv_bytes_per_token == pytest.approx(61 * (656 + 132))
    assert estimate("deepseek-v3.2", "H200", gpus=8, engine="vllm", kv_dtype="fp8").kv_dtype == "fp8_ds_mla"
    assert estimate("deepseek-v3.2", "H200", gpus=8, engine="vllm", kv_dtype="bf16").kv_dtype == "bf16"
    # an engine without that format keeps its 16-bit default; dense MLA (V3) is untouched
    assert estimate("deepseek-v3.2", "H200", gpus=8, engine="sglang").kv_dtype == "bf16"
    assert estimate("deepseek-v3", "H200", gpus=8, engine="vllm").kv_dtype == "bf16"
    # the format belongs to sparse MLA: asked for elsewhere it is refused, naming the field
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", kv_dtype="fp8_ds_mla")
    assert err.value.field == "kv_dtype" and "fp8" in str(err.value)


def test_the_model_pages_name_the_sparse_attention() -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    result = CliRunner().invoke(app, ["models", "deepseek-v3.2"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "MLA + sparse top-2048" in result.output
    listing = CliRunner().invoke(app, ["models", "--family", "deepseek"], env={"COLUMNS": "160"})
    assert "MLA + sparse" in listing.output and listing.output.count("sparse") == 1
