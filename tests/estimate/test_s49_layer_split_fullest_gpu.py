"""A whole-layer split (llama.cpp's --split-mode layer, pipeline parallel) is sized on its fullest GPU.

The average GPU hid a one-layer imbalance: DeepSeek-R1 Q4_K_M on 4 x RTX PRO 6000 (96 GiB) was "95 of 96
GiB per GPU", but llama.cpp puts 16 of R1's ~6.4 GiB MoE layers on one GPU, not 58 / 4 = 14.5.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.kv_cache import kv_bytes_per_sequence
from gpuscout.estimate.memory import (
    MemoryPlan,
    body_bytes,
    gpu_weight_bytes,
    layer_bytes,
    max_batch,
    model_consts,
    plan_memory,
    split_layers,
)
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision, weight_bytes
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model

R1 = resolve_model("deepseek-r1")
Q4_K_M = resolve_precision("q4_k_m")
LLAMA_CPP = resolve_engine("llama.cpp")
F16 = resolve_kv_dtype("fp16")


def r1_moe_layer_params() -> int:
    """One MoE decoder layer of DeepSeek-R1, tensor by tensor from its config (config.json names)."""
    s = R1
    h, heads = s.hidden_size, s.num_attention_heads
    attention = (
        h * s.q_lora_rank  # q_a_proj
        + s.q_lora_rank  # q_a_layernorm
        + s.q_lora_rank * heads * (s.qk_nope_head_dim + s.qk_rope_head_dim)  # q_b_proj
        + h * (s.kv_lora_rank + s.qk_rope_head_dim)  # kv_a_proj_with_mqa
        + s.kv_lora_rank  # kv_a_layernorm
        + s.kv_lora_rank * heads * (s.qk_nope_head_dim + s.v_head_dim)  # kv_b_proj
        + heads * s.v_head_dim * h  # o_proj
    )
    norms = 2 * h  # input_layernorm, post_attention_layernorm (RMSNorm)
    expert = 3 * h * s.moe_intermediate_size  # gate, up, down
    routed = s.num_experts * expert
    shared = s.shared_experts * expert
    router = h * s.num_experts + (s.num_experts if s.router_bias else 0)
    return attention + norms + routed + shared + router


def test_r1_q4_k_m_on_4_gpus_fullest_gpu_holds_16_moe_layers() -> None:
    # llama.cpp: 61 layers + the output layer over 4 equal GPUs, layer il on the GPU whose share holds
    # il / 62: 0-15, 16-30, 31-46, 47-60 + output; the third GPU holds 16 MoE layers (31-46)
    assert (R1.num_hidden_layers, R1.first_dense_layers) == (61, 3)
    assert split_layers(61, 4, LLAMA_CPP) == (16, 15, 16, 14)
    by_hand = 16 * r1_moe_layer_params() * Q4_K_M.bits_per_weight / 8.0
    assert by_hand / 2**30 == pytest.approx(102.9, abs=0.05)  # 16 x 6.43 GiB
    fullest = gpu_weight_bytes(R1, Q4_K_M, LLAMA_CPP, gpus=4, parallel="layer")
    assert fullest == pytest.approx(by_hand, rel=1e-9)
    plan = plan_memory(
        R1, resolve_gpu("H200"), Q4_K_M, F16, LLAMA_CPP, batch=1, context=4096, gpus=4, parallel="layer"
    )
    assert plan.weights == pytest.approx(by_hand, rel=1e-9)
    # its cache: 16 of the 61 layers' (MLA latent, the same in every layer)
    whole = kv_bytes_per_sequence(R1, F16, 4096, block_tokens=LLAMA_CPP.kv_block_tokens)
    assert plan.kv_per_sequence == pytest.approx(whole * 16 / 61, rel=1e-12)
    # one layer's worth above what the average GPU held: GPU-held weights (the embedding is in host RAM) / 4
    c = model_consts(R1)
    average = (body_bytes(Q4_K_M, c) + weight_bytes(Q4_K_M, 0.0, 0.0, c.lm_head)) / 4
    assert 0.9 < (plan.weights - average) / (by_hand / 16) < 1.6


def test_r1_q4_k_m_on_4_rtx_pro_6000_no_longer_fits() -> None:
    # what the advisor picked: 4 x 96 GiB for 4 users of 1,280 tokens
    need = memory_needed(
        "deepseek-r1", "RTXPRO6000-Server", gpus=4, precision="q4_k_m", batch=4, context=1280
    )
    assert need.engine == "llama.cpp"
    m = need.memory
    c = model_consts(R1)
    average = (body_bytes(Q4_K_M, c) + weight_bytes(Q4_K_M, 0.0, 0.0, c.lm_head)) / 4 / 1e9
    # the average GPU fits, the fullest does not
    assert m.total_gb - m.weights_gb + average <= m.usable_gb
    assert m.total_gb > m.usable_gb
    assert not need.fits and need.binding_constraint == "weights" and need.max_batch == 0
    # on 140 GiB H200s it fits, planned on the same fullest GPU
    h200 = memory_needed("deepseek-r1", "H200", gpus=4, precision="q4_k_m", batch=4, context=1280)
    assert h200.fits and h200.memory.weights_gb == pytest.approx(m.weights_gb)


def test_even_split_moves_only_by_the_ends() -> None:
    # 80 layers on 4 pipeline ranks (vLLM get_pp_indices): 20 each, no layer imbalance; the cache of each
    # GPU is a quarter of the whole, as before; the weights only by the ends: the last rank holds the
    # lm_head (and the final norm) where the average spread lm_head and embedding over all four
    spec, fmt, eng = resolve_model("llama-3.1-70b"), resolve_precision("bf16"), resolve_engine("vllm")
    assert split_layers(80, 4, eng) == (20, 20, 20, 20)
    plan = plan_memory(
        spec, resolve_gpu("H100 SXM"), fmt, F16, eng, batch=1, context=4096, gpus=4, parallel="layer"
    )
    quarter = kv_bytes_per_sequence(spec, F16, 4096, block_tokens=eng.kv_block_tokens) / 4
    assert plan.kv_per_sequence == pytest.approx(quarter, rel=1e-12)
    assert all(p.kv_per_sequence == pytest.approx(quarter, rel=1e-12) for p in plan.other_gpus)
    c = model_consts(spec)
    embedding = weight_bytes(fmt, 0.0, c.embedding, 0.0)
    lm_head = weight_bytes(fmt, 0.0, 0.0, c.lm_head)
    average = (body_bytes(fmt, c) + embedding + lm_head) / 4
    final_norm = spec.hidden_size * 2.0
    assert plan.weights == pytest.approx(average - (embedding + lm_head) / 4 + lm_head + final_norm * 3 / 4)


def test_max_batch_is_the_least_any_gpu_holds() -> None:
    # qwen2.5-7b on 2 x RTX 3060, llama.cpp: 15 layers on the first GPU, 13 + the output head on the
    # second. One sequence: the second holds more (its 0.5 GB head); many: the first, whose two more
    # layers keep more cache, runs out first
    spec = resolve_model("qwen2.5-7b")
    acc = resolve_gpu("RTX 3060")
    assert split_layers(28, 2, LLAMA_CPP) == (15, 13)

    def plan(n: int) -> MemoryPlan:
        return plan_memory(spec, acc, Q4_K_M, F16, LLAMA_CPP, batch=n, context=8192, gpus=2, parallel="layer")

    one = plan(1)
    most = max_batch(one)
    at_most, past = plan(most), plan(most + 1)
    assert at_most.fits and not past.fits
    assert at_most.weights < one.weights  # a different GPU binds there
    assert at_most.kv_per_sequence > one.kv_per_sequence


def test_sliding_window_cache_follows_the_full_layers() -> None:
    # gemma-3-27b: 62 layers, every sixth full attention, the rest keep 1,024 tokens; past the window each
    # GPU's cache is its full layers' (and windows'), not its share of the layer count
    spec = resolve_model("gemma-3-27b")
    eng = resolve_engine("llama.cpp")
    plan = plan_memory(
        spec, resolve_gpu("H100 SXM"), Q4_K_M, F16, eng, batch=1, context=65536, gpus=2, parallel="layer"
    )
    per_gpu = [p.kv_per_sequence for p in (plan, *plan.other_gpus)]
    whole = kv_bytes_per_sequence(spec, F16, 65536, block_tokens=eng.kv_block_tokens)
    assert sum(per_gpu) == pytest.approx(whole, rel=1e-12)
    first = split_layers(62, 2, eng)[0]  # 32 and 30 + the output head
    full = [i for i, t in enumerate(spec.layer_types) if t == "full"]
    full_first = sum(1 for i in full if i < first)
    window = spec.sliding_window or 0
    expect_first = (full_first * 65536 + (first - full_first) * window) / (
        len(full) * 65536 + (62 - len(full)) * window
    )
    assert sorted(per_gpu) == pytest.approx(
        sorted([whole * expect_first, whole * (1 - expect_first)]), rel=1e-9
    )
    assert expect_first != pytest.approx(first / 62, rel=1e-3)  # not the layer count's share


@pytest.mark.parametrize(
    ("model", "precision"),
    [
        ("deepseek-r1", "q4_k_m"),
        ("llama-3.1-405b", "fp8-ffn"),
        ("gpt-oss-120b", "mxfp4-moe"),
        ("gemma-3-27b", "bf16"),
    ],
)
def test_the_layers_add_up_to_the_body(model: str, precision: str) -> None:
    # per-layer sizes (dense vs MoE layers, bf16 attention and wide first/last layers, bf16 dense parts of
    # an experts-only format) with the final norm are the body the single-GPU figure counts
    spec, fmt = resolve_model(model), resolve_precision(precision)
    c = model_consts(spec)
    sizes = layer_bytes(fmt, c)
    assert len(sizes) == spec.num_hidden_layers
    total = sum(sizes) + c.final_norm * fmt.body_bits(False) / 8.0
    assert total == pytest.approx(body_bytes(fmt, c), rel=1e-12)
