"""LoRA "all-linear" on gpt-oss adapts no expert (stop 60).

PEFT's ``target_modules="all-linear"`` wraps every ``nn.Linear`` but the output layer. gpt-oss's experts
are fused 3-D ``nn.Parameter`` s of one module in transformers (``GptOssExperts.gate_up_proj`` /
``down_proj``) and its router a bare weight used through ``F.linear``: neither is an ``nn.Linear``, so
all-linear is the attention q/k/v/o only (OpenAI's fine-tuning cookbook adds experts with
``target_parameters``). gpuscout counted 220.3M rank-16 adapter parameters for gpt-oss-20b (every expert
adapted). Mixtral's, Qwen3-MoE's and DeepSeek-V3's experts are fused in transformers 5 too, but PEFT converts
all-linear for them (test_s61_peft_converted_experts); Kimi-K2's remote code keeps nn.Linear experts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuscout.estimate.training import estimate_training
from gpuscout.estimate.training_memory import lora_io, lora_params
from gpuscout.knowledge.hf_config import spec_from_hf_config
from gpuscout.knowledge.layout import model_layout
from gpuscout.knowledge.models import resolve_model

CONFIGS = Path(__file__).parents[1] / "fixtures" / "reference" / "hf_configs"


def _attention_lora(hidden: int, heads: int, kv_heads: int, head_dim: int, rank: int) -> int:
    """rank x (in + out) of q, k, v and o in one layer."""
    q, kv = heads * head_dim, kv_heads * head_dim
    return rank * ((hidden + q) + 2 * (hidden + kv) + (q + hidden))


@pytest.mark.parametrize(("model", "layers"), [("gpt-oss-20b", 24), ("gpt-oss-120b", 36)])
def test_all_linear_on_gpt_oss_is_attention_only(model: str, layers: int) -> None:
    layout = model_layout(resolve_model(model))
    per_layer = _attention_lora(2880, 64, 8, 64, 16)
    assert per_layer == 331_776
    assert lora_params(layout, 16, "all-linear") == layers * per_layer  # 20b: 7,962,624; 120b: 11,943,936
    assert lora_params(layout, 16, "all-linear") == lora_params(layout, 16, "attn")
    # OpenAI's cookbook (recalled): r=8 all-linear plus experts of layers 7, 15, 23 through target_parameters
    # printed 15,040,512 trainable parameters; its all-linear part is the attention alone
    experts_3_layers = 3 * 8 * 32 * ((2880 + 2 * 2880) + (2880 + 2880))
    if model == "gpt-oss-20b":
        assert lora_params(layout, 8, "all-linear") + experts_3_layers == 15_040_512


def test_training_estimate_and_its_flops_use_the_same_count() -> None:
    est = estimate_training("gpt-oss-20b", "H100-SXM", method="lora", seq_len=4096)
    assert est.trainable_params == 24 * 331_776
    layout = model_layout(resolve_model("gpt-oss-20b"))
    ins, outs = lora_io(layout, "all-linear")
    assert (ins, outs) == lora_io(layout, "attn")  # the adapter FLOPs: no expert chain either


@pytest.mark.parametrize("model", ["kimi-k2"])
def test_moe_models_with_linear_experts_keep_them_adapted(model: str) -> None:
    layout = model_layout(resolve_model(model))
    experts = [g for g in layout.linear if g.part == "routed_experts"]
    assert experts and all(g.module for g in experts)
    assert (
        lora_params(layout, 16, "all-linear")
        > lora_params(layout, 16, "attn")
        + sum(16 * (g.in_features + g.out_features) * g.count for g in experts)
        - 1
    )


def test_imported_gpt_oss_config_has_fused_experts() -> None:
    config = json.loads((CONFIGS / "openai--gpt-oss-20b.json").read_text())
    spec = spec_from_hf_config(config, name="my-gpt-oss")
    layout = model_layout(spec)
    assert spec.fused_experts
    assert lora_params(layout, 16, "all-linear") == 24 * 331_776
