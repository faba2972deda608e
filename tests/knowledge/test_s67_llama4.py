"""Llama 4 Scout and Maverick (stop 67): curated rows and config.json import.

Their shape, read in transformers 5.25.0 ``models/llama4`` (Maverick's own values recalled): 48 layers of
hidden 5120, 40 query / 8 KV heads of 128, vocab 202,048, untied; routed experts of width 8192 (top-1) and
one shared expert of that width on each MoE layer; Scout has 16 experts on every layer, Maverick 128 on
every 2nd layer with dense MLPs of width 16,384 between. Chunked attention (8,192-token chunks) on 3 layers
of 4, a full-attention layer every 4th.

Hand check (parameters, no norms: they add 0.0005B):
  attention per layer  q 5120x5120 + k, v 5120x1024 each + o 5120x5120 = 62,914,560
  one expert           3 x 5120 x 8192 = 125,829,120 (the shared expert too); router 5120 x experts
  dense MLP            3 x 5120 x 16384 = 251,658,240
  embedding, lm_head   202,048 x 5120 = 1,034,485,760 each
  Scout     48 x (62.9M + 17 x 125.8M + 5120 x 16) + 2 x 1.034B = 107.77B; active 48 x (62.9M + 2 x 125.8M)
            + 2.07B = 17.17B (Meta: 17B active, 109B with the vision encoder)
  Maverick  24 x (62.9M + 129 x 125.8M + 5120 x 128) + 24 x (62.9M + 251.7M) + 2.07B = 400.71B; active
            24 x (62.9M + 2 x 125.8M) + 24 x (62.9M + 251.7M) + 2.07B = 17.18B (Meta: 400B, 17B)
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gpuscout import estimate
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.kv_cache import kv_bytes_per_sequence
from gpuscout.estimate.memory import layer_bytes, model_consts
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.knowledge.hf_config import parse_hf_config
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params

ATTN = 5120 * 5120 * 2 + 5120 * 1024 * 2
EXPERT = 3 * 5120 * 8192
DENSE = 3 * 5120 * 16384
EMBED = 202048 * 5120
NORMS = 2 * 5120  # two RMSNorm weights per layer

SCOUT_CONFIG: dict[str, Any] = {
    "architectures": ["Llama4ForConditionalGeneration"],
    "model_type": "llama4",
    "text_config": {
        "model_type": "llama4_text",
        "attention_chunk_size": 8192,
        "head_dim": 128,
        "hidden_size": 5120,
        "interleave_moe_layer_step": 1,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "max_position_embeddings": 10485760,
        "num_attention_heads": 40,
        "num_experts_per_tok": 1,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "num_local_experts": 16,
        "rope_scaling": {
            "factor": 16.0,
            "high_freq_factor": 1.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
        "tie_word_embeddings": False,
        "use_qk_norm": True,
        "vocab_size": 202048,
    },
    "vision_config": {"hidden_size": 1408, "num_hidden_layers": 34},
}


def _maverick_config() -> dict[str, Any]:
    config = copy.deepcopy(SCOUT_CONFIG)
    config["text_config"].update(
        num_local_experts=128, interleave_moe_layer_step=2, max_position_embeddings=1048576
    )
    return config


def test_scout_total_and_active_by_hand() -> None:
    c = count_params(resolve_model("llama-4-scout"))
    layer = ATTN + 17 * EXPERT + 5120 * 16 + NORMS
    assert c.total == 48 * layer + 2 * EMBED + 5120
    assert c.active == 48 * (ATTN + 2 * EXPERT + 5120 * 16 + NORMS) + 2 * EMBED + 5120
    assert round(c.total / 1e9, 2) == 107.77 and round(c.active / 1e9, 2) == 17.17


def test_maverick_alternates_dense_and_moe_layers() -> None:
    spec = resolve_model("llama 4 maverick")
    assert spec.name == "llama-4-maverick"
    assert spec.moe_layer_count == 24
    assert [spec.is_moe_layer(i) for i in range(4)] == [False, True, False, True]
    c = count_params(spec)
    moe_layer = ATTN + 129 * EXPERT + 5120 * 128 + NORMS
    dense_layer = ATTN + DENSE + NORMS
    assert c.total == 24 * moe_layer + 24 * dense_layer + 2 * EMBED + 5120
    assert c.dense_mlp == 24 * DENSE
    assert round(c.total / 1e9, 2) == 400.71


def test_maverick_layer_sizes_alternate_for_a_layer_split() -> None:
    # a pipeline / layer split sizes each GPU's layers in order: dense and MoE layers alternate
    sizes = layer_bytes(resolve_precision("bf16"), model_consts(resolve_model("llama-4-maverick")))
    assert len(sizes) == 48
    assert (
        sizes[1] > 40 * sizes[0]
        and sizes[2] == pytest.approx(sizes[0])
        and sizes[3] == pytest.approx(sizes[1])
    )


def test_batch_one_reads_the_active_expert_of_each_moe_layer_only() -> None:
    c = model_consts(resolve_model("llama-4-maverick"))
    assert c.moe_layers == 24 and c.num_experts == 128
    assert c.expert_params == pytest.approx(EXPERT)
    # one token: one routed expert per MoE layer, on top of everything always active
    assert c.body_read(1) == pytest.approx(c.dense_body + 24 * EXPERT)
    # 512 tokens at top-1 of 128: nearly every expert (1 - (127/128)^512 = 98.2 %)
    assert c.expected_experts_read(512) == pytest.approx(128 * (1 - (127 / 128) ** 512))


def test_chunked_layers_keep_one_chunk_of_kv() -> None:
    spec = resolve_model("llama-4-scout")
    assert spec.sliding_window == 8192 and spec.sliding_layers == 36 and spec.chunked_attention
    assert [spec.layer_kind(i) for i in range(4)] == ["sliding", "sliding", "sliding", "full"]
    bf16 = resolve_kv_dtype("bf16")
    per_layer_token = 2 * 8 * 128 * 2  # K and V, 8 KV heads of 128, 2 bytes
    held = 12 * 100_000 + 36 * 8192
    assert kv_bytes_per_sequence(spec, bf16, 100_000) == pytest.approx(per_layer_token * held)


def test_imported_scout_config_matches_the_curated_row() -> None:
    spec = parse_hf_config(json.loads(json.dumps(SCOUT_CONFIG)), name="scout").spec
    curated = resolve_model("llama-4-scout")
    assert spec.family == "llama4"
    assert (spec.intermediate_size, spec.moe_intermediate_size, spec.shared_experts) == (16384, 8192, 1)
    assert spec.sliding_window == 8192 and spec.layer_types == curated.layer_types
    assert spec.chunked_attention
    assert spec.fused_experts == curated.fused_experts == "skipped"
    assert count_params(spec).total == count_params(curated).total


def test_imported_maverick_config_matches_the_curated_row() -> None:
    spec = parse_hf_config(_maverick_config(), name="maverick").spec
    assert spec.moe_layer_step == 2
    assert count_params(spec).total == count_params(resolve_model("llama-4-maverick")).total


def test_an_explicit_no_rope_list_sets_the_full_attention_layers() -> None:
    config = copy.deepcopy(SCOUT_CONFIG)
    config["text_config"]["no_rope_layers"] = [0 if i in (0, 47) else 1 for i in range(48)]
    spec = parse_hf_config(config, name="scout").spec
    assert spec.layer_kind(0) == spec.layer_kind(47) == "full" and spec.sliding_layers == 46


def test_moe_layers_other_than_the_step_are_refused_by_name() -> None:
    config = _maverick_config()
    config["text_config"]["moe_layers"] = [0, 1, 2]
    with pytest.raises(InvalidInputError) as err:
        parse_hf_config(config, name="maverick")
    assert err.value.field == "moe_layers"
    config["text_config"]["moe_layers"] = list(range(1, 48, 2))
    assert parse_hf_config(config, name="maverick").spec.moe_layer_count == 24


def test_a_vllm_release_before_llama_4_refuses_it() -> None:
    old = estimate("llama-4-scout", "H100", gpus=4, engine="vllm 0.8.0")
    assert not old.supported and "predates" in old.unsupported_reason
    assert estimate("llama-4-scout", "H100", gpus=4, engine="vllm 0.8.3").supported


def test_scout_in_bf16_needs_more_than_one_h100_and_fits_four() -> None:
    assert not estimate("llama-4-scout", "H100").fits  # 216 GB of weights
    four = estimate("llama-4-scout", "H100", gpus=4)
    assert four.fits and four.decode_tokens_per_s > 0
    assert four.memory.weights_gb == pytest.approx(
        count_params(resolve_model("llama-4-scout")).total * 2 / 4 / 1e9, rel=0.01
    )


def test_the_estimate_and_the_model_table_call_the_local_layers_chunked() -> None:
    from gpuscout.cli.knowledge_cmds import _attention_label, _dense_layers_words

    est = estimate("llama-4-scout", "H100", gpus=4, context_in=20_000, context_out=500)
    assert "chunked-attention layers keep one 8,192-token chunk at most" in est.assumptions["kv_allocation"]
    assert "sliding" not in est.assumptions["kv_allocation"].split("(")[0]
    maverick = resolve_model("llama-4-maverick")
    assert _attention_label(maverick) == "GQA + chunked 8192 (36/48)"
    assert _dense_layers_words(maverick) == "MoE on every 2nd layer (24 of 48), the others dense"
    assert _dense_layers_words(resolve_model("deepseek-v3")) == "3 leading dense layers"
    assert _dense_layers_words(resolve_model("kimi-k2")) == "1 leading dense layer"
    gemma = resolve_model("gemma-3-27b")
    assert _attention_label(gemma) == "GQA + SWA 1024 (52/62)"
    on_gemma = estimate(gemma, "H100", context_in=20_000, context_out=500)
    assert "sliding-window layers keep their last 1,024 tokens" in on_gemma.assumptions["kv_allocation"]
