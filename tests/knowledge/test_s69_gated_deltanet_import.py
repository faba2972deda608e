"""Qwen3-Next and Qwen3.5 configs import (stop 69): their Gated DeltaNet fields are read, so a size with no
row is sized from its config.json, as the unknown-name error says. (The four Qwen3.5 checkpoints whose
config.json copies are in tests/fixtures/reference/hf_configs import equal to their rows:
tests/knowledge/test_hf_config.py.)

Configs below are transformers 5.25.0's class defaults (``Qwen3NextConfig``, documented as
Qwen/Qwen3-Next-80B-A3B-Instruct; ``Qwen3_5MoeTextConfig``, Qwen/Qwen3.5-35B-A3B), as a config.json
writes them: the import must give the rows' own architecture.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpuscout import estimate
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.knowledge.hf_config import spec_from_hf_config
from gpuscout.knowledge.models import all_models, resolve_model
from gpuscout.knowledge.params import count_params
from gpuscout.knowledge.unmodelled import unmodelled_name, unmodelled_type

_LINEAR = {
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
}
NEXT: dict[str, Any] = {
    "model_type": "qwen3_next",
    "_name_or_path": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "vocab_size": 151936,
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "max_position_embeddings": 262144,
    "tie_word_embeddings": False,
    "full_attention_interval": 4,
    "decoder_sparse_step": 1,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
    "num_experts_per_tok": 10,
    "num_experts": 512,
    "mlp_only_layers": [],
    **_LINEAR,
}
Q35 = {
    "model_type": "qwen3_5_moe",
    "text_config": {
        "model_type": "qwen3_5_moe_text",
        "vocab_size": 248320,
        "hidden_size": 2048,
        "num_hidden_layers": 40,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "max_position_embeddings": 262144,
        "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512,
        "num_experts_per_tok": 8,
        "num_experts": 256,
        "mamba_ssm_dtype": "float32",
        "layer_types": ["linear_attention"] * 3 * 10,  # rebuilt below: 3 linear, 1 full, 10 times
        **_LINEAR,
    },
    "vision_config": {"depth": 27, "hidden_size": 1152},
}
Q35["text_config"]["layer_types"] = (["linear_attention"] * 3 + ["full_attention"]) * 10


def test_a_qwen3_next_config_imports_as_the_row() -> None:
    spec = spec_from_hf_config(NEXT)
    row = resolve_model("qwen3-next-80b-a3b")
    assert spec.layer_types == row.layer_types and spec.linear_layers == 36
    assert spec.attention_output_gate and spec.shared_experts == 1 and spec.qk_norm
    assert count_params(spec).total == count_params(row).total
    assert spec.family == "qwen3_next"


def test_a_qwen3_5_moe_config_imports_as_the_row_with_its_state_dtype() -> None:
    spec = spec_from_hf_config(Q35)
    row = resolve_model("qwen3.5-35b-a3b")
    assert spec.family == "qwen3_5_moe" and spec.linear_state_dtype == "fp32"
    assert spec.layer_types == row.layer_types
    assert count_params(spec).total == count_params(row).total


def test_a_dense_qwen3_5_config_imports_and_runs_from_its_first_release() -> None:
    dense = {
        "model_type": "qwen3_5_text",
        "vocab_size": 248320,
        "hidden_size": 4096,
        "intermediate_size": 12288,
        "num_hidden_layers": 32,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "max_position_embeddings": 32768,
        **_LINEAR,
    }
    spec = spec_from_hf_config(dense, name="qwen3.5-dense-test")
    assert spec.family == "qwen3_5" and not spec.is_moe and spec.linear_layers == 24
    assert estimate(spec, "H100", engine="vllm 0.17.0").supported
    old = estimate(spec, "H100", engine="vllm 0.16.0")
    assert not old.supported and "predates" in old.unsupported_reason


def test_a_shared_expert_that_is_no_whole_number_of_experts_is_refused_by_name() -> None:
    odd = copy.deepcopy(NEXT)
    odd["shared_expert_intermediate_size"] = 700
    with pytest.raises(InvalidInputError) as err:
        spec_from_hf_config(odd)
    assert err.value.field == "shared_expert_intermediate_size"


@pytest.mark.parametrize("key", sorted(_LINEAR))
def test_a_missing_linear_attention_key_is_named(key: str) -> None:
    short = {k: v for k, v in NEXT.items() if k != key}
    with pytest.raises(InvalidInputError) as err:
        spec_from_hf_config(short)
    assert err.value.field == key


def test_their_model_types_are_no_longer_refused() -> None:
    for model_type in ("qwen3_next", "qwen3_5", "qwen3_5_moe", "qwen3_5_moe_text"):
        assert unmodelled_type(model_type) is None


@pytest.mark.parametrize("name", ["Qwen3.5-9B", "Qwen/Qwen3.5-2B", "qwen3.5"])
def test_a_qwen3_5_size_without_a_row_points_to_the_import(name: str) -> None:
    with pytest.raises(UnknownNameError) as err:
        resolve_model(name)
    text = str(err.value)
    assert "models Qwen3.5's architecture" in text and "gpuscout models import" in text
    assert "does not represent" not in text
    assert err.value.suggestions[0] == "qwen3.5-35b-a3b"  # its architecture's row leads


def test_the_rows_and_their_aliases_resolve() -> None:
    for name in ("Qwen/Qwen3-Next-80B-A3B-Thinking", "Qwen3-Next", "Qwen/Qwen3.5-35B-A3B", "Qwen3.5 35B A3B"):
        assert resolve_model(name).linear_layers > 0
    for spec in all_models():
        assert unmodelled_name(spec.name) is None


def test_the_qwen3_5_rows_have_their_published_sizes() -> None:
    """From the checkpoints' config.json (the names' sizes; active with the embedding and lm_head, Qwen's
    convention)."""
    for name, total, active in (
        ("qwen3.5-27b", 26.90, 26.90),
        ("qwen3.5-122b-a10b", 122.11, 9.77),
        ("qwen3.5-397b-a17b", 396.35, 17.35),
    ):
        count = count_params(resolve_model(name))
        assert (round(count.total / 1e9, 2), round(count.active / 1e9, 2)) == (total, active), name


def test_qwen3_6_resolves_to_qwen3_5_with_its_note() -> None:
    from gpuscout.knowledge.models import resolve_model_detail

    found = resolve_model_detail("Qwen/Qwen3.6-35B-A3B")
    assert found.model.name == "qwen3.5-35b-a3b" and "NVFP4 checkpoint" in found.note
    assert resolve_model("Qwen3.6-27B").name == "qwen3.5-27b"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"layer_types": [5] * 48}, "layer_types"),
        ({"layer_types": ["sliding_attention"] * 48}, "layer_types"),
        ({"full_attention_interval": 0}, "full_attention_interval"),
    ],
)
def test_a_malformed_layer_plan_is_refused_by_name(change: dict[str, Any], field: str) -> None:
    bad = {**copy.deepcopy(NEXT), **change}
    with pytest.raises(InvalidInputError) as err:
        spec_from_hf_config(bad)
    assert err.value.field == field
