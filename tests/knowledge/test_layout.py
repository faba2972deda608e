"""The architecture walk: tensor shapes and counts, hand-checked against published architectures."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.layout import PARTS, model_layout
from gpuscout.knowledge.models import all_models, resolve_model


def _group(name: str, model: str):  # type: ignore[no-untyped-def]
    (g,) = [g for g in model_layout(resolve_model(model)).groups if g.name == name]
    return g


def test_gqa_shapes_of_llama_3_8b() -> None:
    q, k, o = _group("q_proj", "llama-3-8b"), _group("k_proj", "llama-3-8b"), _group("o_proj", "llama-3-8b")
    assert (q.in_features, q.out_features, q.count) == (4096, 4096, 32)
    assert (k.in_features, k.out_features) == (4096, 1024)  # 8 KV heads x 128
    assert (o.in_features, o.out_features) == (4096, 4096)
    assert _group("lm_head", "llama-3-8b").params == 128256 * 4096
    assert _group("layer_norms", "llama-3-8b").count == 64 and not _group("layer_norms", "llama-3-8b").matrix


def test_mixtral_tokens_pass_through_two_of_eight_experts() -> None:
    up = _group("expert.up_proj", "mixtral-8x7b")
    assert (up.in_features, up.out_features, up.count, up.active_count) == (4096, 14336, 32 * 8, 32 * 2)
    assert up.role == "mlp" and up.part == "routed_experts"
    router = _group("router", "mixtral-8x7b")
    assert (router.out_features, router.count, router.role) == (8, 32, "router")


def test_deepseek_v3_mla_and_the_separate_mtp_module() -> None:
    lay = model_layout(resolve_model("deepseek-v3"))
    names = {g.name for g in lay.groups}
    assert {"q_a_proj", "q_b_proj", "kv_a_proj", "kv_b_proj", "q_a_layernorm", "kv_a_layernorm"} <= names
    assert "k_proj" not in names
    assert _group("kv_a_proj", "deepseek-v3").out_features == 512 + 64
    shared = _group("shared.down_proj", "deepseek-v3")
    assert (shared.in_features, shared.count) == (2048, 58)  # one shared expert in the 58 MoE layers
    assert lay.mtp and all(
        g.name.startswith(("mtp.", "q_", "kv_", "o_", "layer", "expert", "shared", "router")) for g in lay.mtp
    )


def test_plain_mlp_with_biases_and_layernorm() -> None:
    lay = model_layout(resolve_model("mpt-7b"))
    names = {g.name for g in lay.groups}
    assert "gate_proj" not in names and "up_proj" in names
    gpt3 = {g.name: g for g in model_layout(resolve_model("gpt-3-175b")).groups}
    assert gpt3["up_proj.bias"].out_features == 49152 and gpt3["o_proj.bias"].out_features == 12288
    assert gpt3["layer_norms"].out_features == 2 * 12288  # LayerNorm: weight + bias


def test_linear_shapes_carry_the_weight_of_every_llm() -> None:
    for spec in all_models():
        if spec.kind != "llm":
            continue
        lay = model_layout(spec)
        assert {g.part for g in lay.groups} <= set(PARTS), spec.name
        assert lay.other < 0.01 * lay.total, spec.name  # biases, q/k norms, sinks are small
        assert lay.linear_active_params <= lay.linear_params
        assert lay.largest_matrix == max(g.size for g in lay.linear)


def test_non_decoder_models_and_broken_specs_are_refused() -> None:
    with pytest.raises(InvalidInputError) as err:
        model_layout(resolve_model("sdxl"))
    assert err.value.field == "model"
    with pytest.raises(InvalidInputError) as err:
        model_layout(dataclasses.replace(resolve_model("llama-3-8b"), mlp_type="swish"))
    assert err.value.field == "mlp_type"
