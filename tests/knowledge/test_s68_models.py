"""Gemma 3 1B / 4B / 12B, Mistral Small 3.1 (and 3, 3.2) and MiniMax-M2 (stop 68): curated rows, config
import, first engine releases.

Hand checks (each layer: q, k, v, o; a gated MLP of three matrices; the norms; the embedding tied in Gemma):

Gemma 3 (4 norms a layer, QK norm of one head's width each, head_dim 256), non-embedding parameters against
the Gemma 3 report's Table 1 (698M / 3,209M / 10,759M / 25,600M):
  1B   26 x (1152 x 1024 x 2 + 1152 x 256 x 2 + 3 x 1152 x 6912 + 2 x 256 + 4 x 1152) + 1152
       = 697,896,064
  4B   34 x (2560 x 2048 x 2 + 2560 x 1024 x 2 + 3 x 2560 x 10240 + 2 x 256 + 4 x 2560) + 2560
       = 3,209,010,688
  12B  48 x (3840 x 4096 x 2 + 3840 x 2048 x 2 + 3 x 3840 x 15360 + 2 x 256 + 4 x 3840) + 3840
       = 10,759,155,456
Mistral Small 3.1: 40 x (5120 x 4096 x 2 + 5120 x 1024 x 2 + 3 x 5120 x 32768 + 2 x 5120) + 2 x 131072 x 5120
  + 5120 = 23,572,403,200 (the announced 24B counts the ~0.4B Pixtral encoder too)
MiniMax-M2: 62 x (3072 x 6144 x 2 + 3072 x 1024 x 2 + 2 x 128 + 256 x 3 x 3072 x 1536 + 256 x 3072 + 2 x 3072)
  + 2 x 200064 x 3072 + 3072 = 228,689,320,448; active 62 x (attention + 8 experts + router + norms) =
  9.80B without the embedding table and the output head (the card: 230B / 10B)
"""

from __future__ import annotations

from typing import Any

import pytest

from gpuscout import estimate
from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.fused_experts import CONVERTED, SKIPPED
from gpuscout.knowledge.hf_config import parse_hf_config
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params


def _body(name: str) -> int:
    c = count_params(resolve_model(name))
    return c.total - c.embedding - c.lm_head


@pytest.mark.parametrize(
    ("name", "body", "report_m"),
    [
        ("gemma-3-1b", 697_896_064, 698),
        ("gemma-3-4b", 3_209_010_688, 3_209),
        ("gemma-3-12b", 10_759_155_456, 10_759),
        ("gemma-3-27b", None, 25_600),
    ],
)
def test_gemma3_non_embedding_parameters_are_the_reports(name: str, body: int | None, report_m: int) -> None:
    got = _body(name)
    if body is not None:
        assert got == body
    assert round(got / 1e6) == pytest.approx(report_m, abs=1)


def test_gemma3_small_sizes_keep_the_five_local_to_one_global_pattern() -> None:
    one, four = resolve_model("gemma-3-1b"), resolve_model("gemma-3-4b")
    assert (one.sliding_window, one.sliding_layers, one.max_position_embeddings) == (512, 22, 32_768)
    assert (four.sliding_window, four.sliding_layers, four.max_position_embeddings) == (1024, 29, 131_072)
    assert one.layer_types[:6] == ("sliding",) * 5 + ("full",)
    assert one.tie_word_embeddings and one.qk_norm and one.norms_per_layer == 4
    # the 1B's embedding: 262,144 x 1,152, the report's 302M
    assert count_params(one).embedding == 262_144 * 1152


def test_mistral_small_counts_and_names() -> None:
    spec = resolve_model("mistral-small-3.1-24b")
    c = count_params(spec)
    assert c.total == 23_572_403_200
    assert not spec.tie_word_embeddings and spec.sliding_window is None
    for name in ("Mistral Small 3.1", "mistralai/Mistral-Small-3.2-24B-Instruct-2506", "Mistral-Small-3.2"):
        assert resolve_model(name).name == "mistral-small-3.1-24b"
    three = resolve_model("mistralai/Mistral-Small-24B-Instruct-2501")
    assert three.name == "mistral-small-24b-instruct-2501"
    assert three.max_position_embeddings == 32_768 and count_params(three).total == c.total
    with pytest.raises(UnknownNameError) as err:
        resolve_model("mistral-small")
    assert {"mistral-small-3.1-24b", "mistral-small-4-119b"} <= set(err.value.suggestions[:4])


def test_minimax_m2_counts_by_hand() -> None:
    spec = resolve_model("MiniMaxAI/MiniMax-M2")
    c = count_params(spec)
    h = 3072
    attention = h * 6144 * 2 + h * 1024 * 2 + 2 * 128
    expert = 3 * h * 1536
    layer = attention + 256 * expert + 256 * h + 2 * h
    assert c.total == 62 * layer + 2 * 200_064 * h + h == 228_689_320_448
    active_body = 62 * (attention + 8 * expert + 256 * h + 2 * h)
    assert c.active - c.embedding - c.lm_head == active_body + h  # and the final norm
    # MiniMax's "10B active": no embedding table, no output head
    assert active_body / 1e9 == pytest.approx(9.80, abs=0.01)
    assert spec.native_precision == "fp8-block" and spec.fused_experts == CONVERTED
    moe = (spec.num_experts, spec.experts_per_token, spec.shared_experts, spec.first_dense_layers)
    assert moe == (256, 8, 0, 0)


MINIMAX_CONFIG: dict[str, Any] = {
    "architectures": ["MiniMaxM2ForCausalLM"],
    "model_type": "minimax_m2",
    "_name_or_path": "MiniMaxAI/MiniMax-M2",
    "head_dim": 128,
    "hidden_size": 3072,
    "intermediate_size": 1536,
    "max_position_embeddings": 196608,
    "num_attention_heads": 48,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 62,
    "num_key_value_heads": 8,
    "num_local_experts": 256,
    "rotary_dim": 64,
    "rope_theta": 5000000,
    "tie_word_embeddings": False,
    "vocab_size": 200064,
    "quantization_config": {
        "quant_method": "fp8",
        "fmt": "float8_e4m3fn",
        "activation_scheme": "dynamic",
        "weight_block_size": [128, 128],
    },
}


def test_a_minimax_m2_config_imports_to_the_curated_row() -> None:
    spec = parse_hf_config(dict(MINIMAX_CONFIG)).spec
    curated = resolve_model("minimax-m2")
    assert spec.family == curated.family == "minimax_m2"
    assert spec.qk_norm and spec.moe_intermediate_size == 1536 and spec.shared_experts == 0
    assert spec.native_precision == "fp8-block" and spec.fused_experts == CONVERTED
    assert count_params(spec).total == count_params(curated).total


def test_a_mistral3_wrapper_config_imports_its_text_model() -> None:
    config = {
        "architectures": ["Mistral3ForConditionalGeneration"],
        "model_type": "mistral3",
        "_name_or_path": "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        "text_config": {
            "model_type": "mistral",
            "head_dim": 128,
            "hidden_size": 5120,
            "intermediate_size": 32768,
            "max_position_embeddings": 131072,
            "num_attention_heads": 32,
            "num_hidden_layers": 40,
            "num_key_value_heads": 8,
            "rope_theta": 1000000000.0,
            "sliding_window": None,
            "vocab_size": 131072,
        },
        "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "num_hidden_layers": 24},
    }
    spec = parse_hf_config(config).spec
    assert count_params(spec).total == count_params(resolve_model("mistral-small-3.1-24b")).total
    assert spec.max_position_embeddings == 131_072


def test_a_gemma3_text_config_is_judged_as_gemma3() -> None:
    config = {
        "model_type": "gemma3_text",
        "_name_or_path": "google/gemma-3-1b-it",
        "hidden_size": 1152,
        "intermediate_size": 6912,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 256,
        "num_hidden_layers": 26,
        "sliding_window": 512,
        "max_position_embeddings": 32768,
        "vocab_size": 262144,
    }
    spec = parse_hf_config(config).spec
    assert spec.family == "gemma3"
    assert count_params(spec).total == count_params(resolve_model("gemma-3-1b")).total
    # the architecture rules of Gemma 3 apply to it: vLLM 0.8.0 is the first release that loads it
    assert not estimate(spec, "A100", engine="vllm 0.7.3").supported
    assert estimate(spec, "A100", engine="vllm 0.8.0").supported


@pytest.mark.parametrize(
    ("engine", "runs"),
    [
        ("vllm 0.11.0", False),
        ("vllm 0.11.1", True),
        ("sglang 0.5.4", False),
        ("sglang 0.5.4.post1", True),
        ("llama.cpp 2024", False),
        ("vllm", True),
    ],
)
def test_minimax_m2_first_releases(engine: str, runs: bool) -> None:
    est = estimate("minimax-m2", "H200", gpus=4, engine=engine)
    assert est.supported is runs
    if not runs:
        assert "predates" in est.unsupported_reason and not est.decode_tokens_per_s


def test_minimax_m2_is_sized_in_its_fp8_by_default() -> None:
    est = estimate("minimax-m2", "H200", gpus=2)
    assert est.precision == "fp8-block" and est.fits
    # 228.7B weights at 8 bits plus the block scales, split over two GPUs
    assert est.memory.weights_gb == pytest.approx(228.69 / 2, rel=0.03)


# Mistral Small 4 (read in transformers 5.25.0's Mistral4Config defaults, documented as its checkpoint):
# DeepSeek-V3's MLA and MoE at 36 layers of hidden 4096. Per layer: q_a 4096 x 1024 + q_a_layernorm 1024
# + q_b 1024 x 32 x 128 + kv_a 4096 x (256 + 64) + kv_a_layernorm 256 + kv_b 256 x 32 x (64 + 128)
# + o 32 x 128 x 4096 = 28,050,688; 129 experts (128 routed, 1 shared) x 3 x 4096 x 2048;
# router 128 x 4096; 2 norms.
MISTRAL4_CONFIG: dict[str, Any] = {
    "architectures": ["Mistral4ForCausalLM"],
    "model_type": "mistral4",
    "_name_or_path": "mistralai/Mistral-Small-4-119B-2603",
    "vocab_size": 131072,
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 36,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "n_shared_experts": 1,
    "n_routed_experts": 128,
    "kv_lora_rank": 256,
    "q_lora_rank": 1024,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 64,
    "v_head_dim": 128,
    "num_experts_per_tok": 4,
    "first_k_dense_replace": 0,
    "max_position_embeddings": 1048576,
    "tie_word_embeddings": False,
    "rope_parameters": {
        "type": "yarn",
        "rope_theta": 10000.0,
        "factor": 128.0,
        "original_max_position_embeddings": 8192,
    },
}


def test_mistral_small_4_counts_by_hand() -> None:
    spec = resolve_model("Mistral Small 4")
    h = 4096
    attention = h * 1024 + 1024 + 1024 * 32 * 128 + h * 320 + 256 + 256 * 32 * 192 + 32 * 128 * h
    assert attention == 28_050_688
    layer = attention + 129 * 3 * h * 2048 + 128 * h + 2 * h
    c = count_params(spec)
    assert c.total == 36 * layer + 2 * 131_072 * h + h
    assert round(c.total / 1e9) == 119  # the checkpoint's name: 119B
    assert spec.is_mla and spec.fused_experts == SKIPPED
    est = estimate(spec, "H200", engine="vllm", precision="fp8", context_in=4000, context_out=1000)
    assert est.memory.kv_bytes_per_token == 36 * (256 + 64) * 2  # MLA: the latent and the RoPE key, bf16


def test_a_mistral4_config_imports_to_the_curated_row() -> None:
    parsed = parse_hf_config(dict(MISTRAL4_CONFIG))
    curated = resolve_model("mistral-small-4-119b")
    assert parsed.spec.family == curated.family == "mistral4"
    assert count_params(parsed.spec).total == count_params(curated).total
    assert parsed.spec.max_position_embeddings == curated.max_position_embeddings == 1_048_576
    assert parsed.spec.fused_experts == SKIPPED


@pytest.mark.parametrize(
    ("engine", "runs"),
    [
        ("vllm 0.11.2", False),
        ("vllm 0.12.0", True),
        ("hf-transformers 5.3.0", False),
        ("hf-transformers 5.4.0", True),
    ],
)
def test_mistral_small_4_first_releases(engine: str, runs: bool) -> None:
    assert estimate("mistral-small-4-119b", "H100", gpus=4, engine=engine).supported is runs


# GLM-5 (read in transformers 5.25.0's GlmMoeDsaConfig defaults, documented as zai-org/GLM-5): DeepSeek-V3.2's
# sparse MLA. Per layer: q_a 6144 x 2048 + 2048 + q_b 2048 x 64 x 256 + kv_a 6144 x 576 + 512
# + kv_b 512 x 64 x (192 + 256) + o 64 x 256 x 6144 = 165,022,208; the lightning indexer wq_b 2048 x 32 x 128
# + wk 6144 x 128 + k_norm 2 x 128 + weights_proj 6144 x 32 = 9,371,904.
def test_glm5_counts_by_hand_with_its_indexers() -> None:
    spec = resolve_model("zai-org/GLM-5")
    h = 6144
    attention = h * 2048 + 2048 + 2048 * 64 * 256 + h * 576 + 512 + 512 * 64 * 448 + 64 * 256 * h
    indexer = 2048 * 32 * 128 + h * 128 + 2 * 128 + h * 32
    assert (attention, indexer) == (165_022_208, 9_371_904)
    moe = attention + indexer + 257 * 3 * h * 2048 + 256 * h + 2 * h
    dense = attention + indexer + 3 * h * 12288 + 2 * h
    c = count_params(spec)
    assert c.total == 75 * moe + 3 * dense + 2 * 154_880 * h + h
    assert c.total / 1e9 == pytest.approx(743.9, abs=0.05)  # announced: 744B (recalled)
    assert spec.fused_experts == CONVERTED and spec.index_topk == 2048


def test_deepseek_v32_counts_its_indexers_too() -> None:
    v3, v32 = count_params(resolve_model("deepseek-v3")), count_params(resolve_model("deepseek-v3.2"))
    per_layer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64  # wq_b, wk, k_norm, weights_proj
    assert v32.total - v3.total == 61 * per_layer


@pytest.mark.parametrize(
    ("engine", "runs"),
    [
        ("vllm 0.14.1", False),
        ("vllm 0.16.0", True),
        ("hf-transformers 5.1.0", False),
        ("hf-transformers 5.2.0", True),
    ],
)
def test_glm5_first_releases(engine: str, runs: bool) -> None:
    assert estimate("glm-5", "H200", gpus=8, engine=engine, precision="fp8").supported is runs
