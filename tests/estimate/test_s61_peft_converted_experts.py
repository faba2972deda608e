"""LoRA "all-linear" on MoE models under today's transformers (5.x) and PEFT (0.21) (stop 61).

Read in the wheels (see ``gpuscout.knowledge.fused_experts``): transformers 5 fuses the experts of Mixtral,
Qwen2-MoE, Qwen3-MoE and DeepSeek-V3/V3.2 into 3-D ``gate_up_proj`` / ``down_proj`` parameters and makes
their routers bare weights. PEFT 0.21.2 converts "all-linear" for the model types transformers maps to
"mixtral" / "qwen2_moe" (not qwen2_moe itself, not gpt_oss): the router weight, ``gate_up_proj`` at twice
the rank and ``down_proj`` become ``target_parameters``, and the names gate_proj / up_proj / down_proj leave
``target_modules`` (DeepSeek's dense MLPs and shared expert lose their adapters). gpuscout counted every
expert's gate, up and down at the rank and no router: Mixtral-8x7B r16 240,123,904 (transformers 4.x, with
its nn.Linear router, gave 242,225,152; 5.x with PEFT 0.21.2 gives 359,665,664).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuscout.estimate.training import estimate_training
from gpuscout.estimate.training_memory import lora_params
from gpuscout.knowledge.fused_experts import CONVERTED, LINEAR, SKIPPED
from gpuscout.knowledge.hf_config import spec_from_hf_config
from gpuscout.knowledge.layout import model_layout
from gpuscout.knowledge.models import resolve_model

CONFIGS = Path(__file__).parents[1] / "fixtures" / "reference" / "hf_configs"

# Mixtral-8x7B: 32 layers, hidden 4096, expert FFN 14336, 8 experts, 32 heads / 8 KV heads of 128
ATTN_PER_LAYER = 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096))  # q, k, v, o at rank 16
ROUTER_PER_LAYER = 16 * (4096 + 8)  # gate.weight: 8 x 4096, a 2-D ParamWrapper
GATE_UP_PER_LAYER = 8 * 32 * (4096 + 2 * 14336)  # 8 experts x rank 32 (rank_pattern) x (in + out)
DOWN_PER_LAYER = 8 * 16 * (14336 + 4096)


def test_mixtral_8x7b_all_linear_is_peft_s_converted_target_set() -> None:
    assert ATTN_PER_LAYER == 425_984
    assert ROUTER_PER_LAYER == 65_664
    assert GATE_UP_PER_LAYER == 8_388_608
    assert DOWN_PER_LAYER == 2_359_296
    expected = 32 * (ATTN_PER_LAYER + ROUTER_PER_LAYER + GATE_UP_PER_LAYER + DOWN_PER_LAYER)
    assert expected == 359_665_664
    layout = model_layout(resolve_model("mixtral-8x7b"))
    assert layout.fused_experts == CONVERTED
    assert lora_params(layout, 16, "all-linear") == expected
    assert lora_params(layout, 16, "attn") == 32 * ATTN_PER_LAYER  # 13,631,488: unchanged
    est = estimate_training("mixtral-8x7b", "H100-SXM", gpus=4, method="qlora", seq_len=2048)
    assert est.trainable_params == expected


def test_deepseek_v3_dense_mlps_and_shared_expert_lose_their_adapters() -> None:
    layout = model_layout(resolve_model("deepseek-v3"))
    attn = lora_params(layout, 16, "attn")
    # 58 MoE layers of 256 experts, hidden 7168, expert FFN 2048; the router 256 x 7168
    router = 58 * 16 * (7168 + 256)
    gate_up = 58 * 256 * 32 * (7168 + 2 * 2048)
    down = 58 * 256 * 16 * (2048 + 7168)
    assert lora_params(layout, 16, "all-linear") == attn + router + gate_up + down == 7_645_254_656


def test_qwen2_moe_is_not_converted_its_shared_expert_is_adapted() -> None:
    layout = model_layout(resolve_model("qwen2-57b-a14b"))
    assert layout.fused_experts == SKIPPED
    # 28 layers, hidden 3584, one fused shared expert of 8 x 2560 = 20480: gate, up and down at rank 16
    shared = 28 * 3 * 16 * (3584 + 20480)
    assert lora_params(layout, 16, "all-linear") == lora_params(layout, 16, "attn") + shared == 42_434_560


def test_kimi_k2_remote_code_keeps_linear_experts() -> None:
    spec = resolve_model("kimi-k2")
    layout = model_layout(spec)
    assert spec.fused_experts == LINEAR
    experts = [g for g in layout.linear if g.part == "routed_experts"]
    shared = [g for g in layout.linear if g.part in ("shared_experts", "dense_mlp")]
    assert experts and all(g.module for g in experts)
    assert lora_params(layout, 16, "all-linear") == lora_params(layout, 16, "attn") + sum(
        16 * (g.in_features + g.out_features) * g.count for g in experts + shared
    )


@pytest.mark.parametrize(
    ("config", "rule"),
    [
        ("mistralai--Mixtral-8x7B-v0.1.json", CONVERTED),
        ("Qwen--Qwen3-30B-A3B.json", CONVERTED),
        ("deepseek-ai--DeepSeek-V3.json", CONVERTED),
        ("openai--gpt-oss-20b.json", SKIPPED),
        ("meta-llama--Meta-Llama-3.1-8B.json", LINEAR),
    ],
)
def test_imported_configs_take_the_rule_of_their_model_type(config: str, rule: str) -> None:
    spec = spec_from_hf_config(json.loads((CONFIGS / config).read_text()), name="my-model")
    assert spec.fused_experts == rule
    curated = {
        "mistralai--Mixtral-8x7B-v0.1.json": "mixtral-8x7b",
        "Qwen--Qwen3-30B-A3B.json": "qwen3-30b-a3b",
    }.get(config)
    if curated:
        assert lora_params(model_layout(spec), 16, "all-linear") == lora_params(
            model_layout(resolve_model(curated)), 16, "all-linear"
        )


def test_the_adapter_note_says_what_all_linear_made_of_the_experts() -> None:
    def note(model: str) -> str:
        return estimate_training(model, "H100-SXM", gpus=4, method="qlora").assumptions["adapters"]

    assert "gate_up_proj at twice the rank" in note("mixtral-8x7b")
    assert "all-linear leaves alone" in note("gpt-oss-20b")
    assert "expert" not in note("llama-3.1-8b")
