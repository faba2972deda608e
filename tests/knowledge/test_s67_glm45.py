"""GLM-4.5-Air, GLM-4.5 and GLM-4.6 (stop 67): curated rows and ``glm4_moe`` config import.

Read in transformers 5.25.0 ``models/glm4_moe``: q, k and v carry a bias when ``attention_bias`` is set and
o_proj never does; ``use_qk_norm`` adds a per-head RMSNorm to q and k; the shared expert is
``moe_intermediate_size x n_shared_experts`` wide; the first ``first_k_dense_replace`` layers are dense MLPs
of ``intermediate_size``. The sizes themselves are recalled (see the rows' sources).

Hand check, GLM-4.5-Air (46 layers, hidden 4096, 96 x 128 query heads, 8 KV heads, 128 experts of 1408,
top-8, one shared, the first layer dense of 10944, vocab 151,552):
  attention per layer  q 4096 x 12288 + k, v 4096 x 1024 each + o 12288 x 4096 = 109,051,904, + the q, k,
                       v biases 12288 + 2 x 1024 = 14,336
  one expert           3 x 4096 x 1408 = 17,301,504; router 128 x 4096
  45 MoE layers x (attention + 129 experts + router + 2 norms) + 1 dense layer (attention + 3 x 4096 x
  10944 + 2 norms) + embedding and head 2 x 151,552 x 4096 + final norm = 106.85B (the card: 106B)
"""

from __future__ import annotations

from typing import Any

import pytest

from gpuscout import estimate
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.hf_config import parse_hf_config
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params

H = 4096
ATTN = H * 12288 * 2 + H * 1024 * 2 + 12288 + 2 * 1024
EXPERT = 3 * H * 1408
EMBED = 151552 * H

AIR_CONFIG: dict[str, Any] = {
    "architectures": ["Glm4MoeForCausalLM"],
    "model_type": "glm4_moe",
    "_name_or_path": "zai-org/GLM-4.5-Air",
    "attention_bias": True,
    "first_k_dense_replace": 1,
    "head_dim": 128,
    "hidden_size": 4096,
    "intermediate_size": 10944,
    "max_position_embeddings": 131072,
    "moe_intermediate_size": 1408,
    "n_routed_experts": 128,
    "n_shared_experts": 1,
    "num_attention_heads": 96,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 46,
    "num_key_value_heads": 8,
    "num_nextn_predict_layers": 1,
    "partial_rotary_factor": 0.5,
    "rope_theta": 1000000,
    "tie_word_embeddings": False,
    "use_qk_norm": False,
    "vocab_size": 151552,
}


def test_air_total_by_hand() -> None:
    c = count_params(resolve_model("glm-4.5-air"))
    moe_layer = ATTN + 129 * EXPERT + 128 * H + 2 * H
    dense_layer = ATTN + 3 * H * 10944 + 2 * H
    assert c.total == 45 * moe_layer + dense_layer + 2 * EMBED + H
    assert c.total_b == pytest.approx(106.85, abs=0.01)
    # GLM's 12B activated: without the embedding table and the output head
    assert (c.active - c.embedding - c.lm_head) / 1e9 == pytest.approx(12.2, abs=0.05)


def test_air_config_imports_to_the_curated_row() -> None:
    spec = parse_hf_config(dict(AIR_CONFIG), name="air").spec
    curated = resolve_model("GLM-4.5-Air")
    assert spec.family == curated.family == "glm4_moe"
    assert spec.attention_bias == "qkv" and not spec.qk_norm
    assert (spec.moe_intermediate_size, spec.shared_experts, spec.first_dense_layers) == (1408, 1, 1)
    assert spec.fused_experts == curated.fused_experts == "converted"
    assert spec.mtp_layers == 1
    assert count_params(spec).total == count_params(curated).total


def test_glm45_config_with_qk_norm_imports_to_the_curated_row() -> None:
    config = {
        **AIR_CONFIG,
        "_name_or_path": "zai-org/GLM-4.5",
        "hidden_size": 5120,
        "intermediate_size": 12288,
        "moe_intermediate_size": 1536,
        "n_routed_experts": 160,
        "num_hidden_layers": 92,
        "first_k_dense_replace": 3,
        "use_qk_norm": True,
    }
    spec = parse_hf_config(config, name="glm").spec
    assert spec.qk_norm
    assert count_params(spec).total == count_params(resolve_model("glm-4.5")).total


def test_a_glm_config_without_its_expert_width_is_refused_by_name() -> None:
    config = {k: v for k, v in AIR_CONFIG.items() if k != "moe_intermediate_size"}
    with pytest.raises(InvalidInputError) as err:
        parse_hf_config(config, name="air")
    assert err.value.field == "moe_intermediate_size"


def test_glm46_is_glm45_with_a_longer_window() -> None:
    a, b = resolve_model("glm-4.5"), resolve_model("zai-org/GLM-4.6")
    assert count_params(a).total == count_params(b).total
    assert (a.max_position_embeddings, b.max_position_embeddings) == (131072, 202752)


def test_glm45_fp8_on_eight_h100_fits_and_bf16_does_not() -> None:
    # 353B: 706 GB in bf16 is more than 8 x 80 GB; 353 GB in FP8 fits
    assert not estimate("glm-4.5", "H100", gpus=8).fits
    fp8 = estimate("zai-org/GLM-4.5-FP8", "H100", gpus=8)
    assert fp8.precision.startswith("fp8") and fp8.fits and fp8.decode_tokens_per_s > 0
