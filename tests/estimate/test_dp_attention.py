"""Data-parallel attention (SGLang ``--enable-dp-attention``) and MLA's prefill form: hand-checkable
bytes and FLOPs.

Under data-parallel attention every GPU keeps the whole attention, embedding and lm_head and runs
attention for its own share of the sequences, whose cache only it holds; the MLP / MoE layers stay split
over all the GPUs (sglang 0.4.3.post2, models/deepseek_v2.py). DeepSeek-V3 on 8x H200 is the case it
exists for: its MLA latent cache is otherwise kept whole on every tensor-parallel rank."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.kv_cache import kv_read_bytes_per_step
from gpuscout.estimate.memory import attention_bytes, gpu_weight_bytes, model_consts, plan_memory
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision, weight_bytes
from gpuscout.estimate.throughput import Setup, _attn_flops_per_token, decode_step, prefill_compute_seconds
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model
from tests.estimate.setups import make_setup

SPEC = resolve_model("deepseek-v3")
FMT = resolve_precision("fp8-block")
KV = resolve_kv_dtype("bf16")
H200 = resolve_gpu("H200")
TP_NAME, DP_NAME = "sglang", "sglang --enable-dp-attention"
TP_ENGINE, DP_ENGINE = resolve_engine(TP_NAME), resolve_engine(DP_NAME)


def _setup(engine: str) -> Setup:
    """DeepSeek-V3 (block FP8, 16-bit cache) on 8x H200 under ``engine``, tensor parallel."""
    return make_setup("deepseek-v3", "H200", "fp8-block", engine, gpus=8, kv="bf16")


def test_the_launch_flag_names_the_variant() -> None:
    assert not TP_ENGINE.dp_attention
    assert DP_ENGINE.dp_attention
    # server_args.py: DP attention halves chunked_prefill_size (8192 -> 4096)
    assert DP_ENGINE.prefill_chunk_tokens == TP_ENGINE.prefill_chunk_tokens // 2 == 4096


def test_attention_embedding_and_head_are_whole_on_every_gpu() -> None:
    c = model_consts(SPEC)
    # 187.1 M attention parameters per layer x 61 layers, in FP8: ~11.4 GB
    attention = attention_bytes(FMT, c)
    assert attention == pytest.approx(c.attn_per_layer * 61 * FMT.body_bits(False) / 8)
    assert attention == pytest.approx(11.4e9, rel=0.01)
    ends = weight_bytes(FMT, 0.0, c.embedding, c.lm_head)  # embedding + lm_head (16-bit)
    tp = gpu_weight_bytes(SPEC, FMT, TP_ENGINE, gpus=8)
    dp = gpu_weight_bytes(SPEC, FMT, DP_ENGINE, gpus=8)
    # each GPU holds 7/8 of them more than its TP shard: ~13.2 GB
    assert dp - tp == pytest.approx((attention + ends) * 7 / 8)
    assert dp - tp == pytest.approx(13.2e9, rel=0.02)


def test_each_gpu_keeps_only_its_own_sequences_cache() -> None:
    tp = plan_memory(SPEC, H200, FMT, KV, TP_ENGINE, batch=64, context=4096, gpus=8)
    dp = plan_memory(SPEC, H200, FMT, KV, DP_ENGINE, batch=64, context=4096, gpus=8)
    # the MLA latent (576 values x 61 layers) is replicated on every TP rank; under DP attention a
    # sequence's cache lives on one of the 8 GPUs: 1/8 per GPU on average
    assert dp.kv_per_sequence == pytest.approx(tp.kv_per_sequence / 8)
    assert dp.kv_cache == pytest.approx(tp.kv_cache / 8)


def test_decode_reads_the_whole_attention_but_only_its_own_caches() -> None:
    tp_st, dp_st = _setup(TP_NAME), _setup(DP_NAME)
    assert tp_st.achieved_bandwidth == dp_st.achieved_bandwidth
    batch, context = 16, 4000
    tp, dp = decode_step(tp_st, batch, context), decode_step(dp_st, batch, context)
    c = model_consts(SPEC)
    head = weight_bytes(FMT, 0.0, 0.0, c.lm_head)
    more_weights = (attention_bytes(FMT, c) + head) * 7 / 8
    # 16 sequences on 8 ranks: each rank reads 2 latent caches where every TP rank reads all 16
    per_seq = kv_read_bytes_per_step(SPEC, KV, context, tp=1)
    less_kv = per_seq * (16 - 2)
    # sampling: 2 sequences' full-vocabulary logits per rank = 16 sequences' over 8 ranks: unchanged
    expected = (more_weights - less_kv) / tp_st.achieved_bandwidth
    assert dp.memory - tp.memory == pytest.approx(expected, rel=1e-9)


def test_one_prompt_runs_its_attention_on_one_gpu() -> None:
    tp_st, dp_st = _setup(TP_NAME), _setup(DP_NAME)
    tokens = 1000
    c = model_consts(SPEC)
    # attention projections (2 FLOPs per parameter and token) + causal scores and values, a prompt's
    # MLA being ordinary attention over up-projected keys (128 + 64 dims) and values (128):
    # 2 x 128 heads x 320 dims x 61 layers x 1000^2 / 2 token pairs
    projections = 2.0 * c.attn_per_layer * 61 * tokens
    scores = 2.0 * 128 * (128 + 64 + 128) * 61 * tokens**2 / 2
    # TP splits them over 8 GPUs; under DP attention the prompt's rank computes all of it: the projections
    # at the FP8 GEMM rate, the scores (bf16 cache) at the 16-bit attention rate, as TP's own scores
    assert dp_st.attn_flops < dp_st.achieved_flops
    excess = (projections / tp_st.achieved_flops + scores / tp_st.attn_flops) * (1 - 1 / 8)
    diff = prefill_compute_seconds(dp_st, tokens) - prefill_compute_seconds(tp_st, tokens)
    assert diff == pytest.approx(excess, rel=1e-9)
    # eight prompts, one per rank: the same per-GPU work as TP
    eight = prefill_compute_seconds(tp_st, tokens, 8)
    assert prefill_compute_seconds(dp_st, tokens, 8) == pytest.approx(eight)


def test_estimate_serves_many_more_long_sequences_with_it() -> None:
    kw: dict[str, object] = dict(gpu="H200", gpus=8, context_in=8000, context_out=1000, concurrency=256)
    tp = estimate("deepseek-v3", engine="sglang", **kw)  # type: ignore[arg-type]
    dp = estimate("deepseek-v3", engine="sglang --enable-dp-attention", **kw)  # type: ignore[arg-type]
    assert tp.supported and dp.supported
    # ~5x the sequences in the cache (8x less cache per GPU, 13 GB more weights on each)
    assert dp.max_batch > 4 * tp.max_batch
    assert "data-parallel attention" in dp.assumptions["parallel"]
    assert "data-parallel attention" not in tp.assumptions["parallel"]


def test_mla_decodes_in_the_absorbed_form_and_prefills_as_multi_head_attention() -> None:
    # decode: scores against the 512-value latent and its 64 rope values, values as the latent:
    # 2 x 128 heads x (2 x 512 + 64) x 61 layers per cached token
    assert _attn_flops_per_token(SPEC, 1000) == pytest.approx(2.0 * 128 * 1088 * 61 * 1000)
    # a prompt token: keys of 128 + 64 dims and values of 128 up-projected from the latent (vLLM 0.7.3
    # _forward_prefill_flash, SGLang forward_normal): 320 dims, 3.4x fewer FLOPs per cached token
    assert _attn_flops_per_token(SPEC, 1000, prefill=True) == pytest.approx(2.0 * 128 * 320 * 61 * 1000)
    # a dense GQA model is the same either way: K and V of head_dim each
    llama = resolve_model("llama-3.1-8b")
    assert _attn_flops_per_token(llama, 500, prefill=True) == _attn_flops_per_token(llama, 500)
