"""Imported configs, from a renter pass (stop 59): compressed-tensors integer checkpoints (W4A16, W8A8)
were sized as BF16 (2.8x their memory), an unknown quant_method was taken as 16-bit without a word, a
Qwen3-MoE config without moe_intermediate_size took the dense width for every expert (233B for a 30B
model), and decoder_sparse_step was refused under the name mlp_only_layers."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpuscout import estimate
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.hf_config import native_precision, parse_hf_config, quantization_note
from gpuscout.knowledge.params import count_params
from tests.cli.test_s44_estimate_imported import LLAMA as IMPORTED_LLAMA

LLAMA: dict[str, Any] = dict(IMPORTED_LLAMA)  # Llama-3.1-8B's config.json fields


def _ct(weights: dict[str, Any], acts: dict[str, Any] | None) -> dict[str, Any]:
    group = {"targets": ["Linear"], "weights": weights, "input_activations": acts}
    return {"quant_method": "compressed-tensors", "config_groups": {"group_0": group}}


@pytest.mark.parametrize(
    ("weights", "acts", "native"),
    [
        ({"num_bits": 4, "type": "int", "group_size": 128}, None, "int4"),
        ({"num_bits": 8, "type": "int"}, {"num_bits": 8, "type": "int", "dynamic": True}, "w8a8"),
        ({"num_bits": 8, "type": "int"}, None, "int8"),
        ({"num_bits": 8, "type": "float"}, {"num_bits": 8, "type": "float"}, "fp8"),
    ],
)
def test_compressed_tensors_schemes_are_read(
    weights: dict[str, Any], acts: dict[str, Any] | None, native: str
) -> None:
    assert native_precision(_ct(weights, acts)) == native


def test_a_w4a16_checkpoint_is_sized_at_four_bits() -> None:
    config = {**LLAMA, "quantization_config": _ct({"num_bits": 4, "type": "int", "group_size": 128}, None)}
    spec = parse_hf_config(config, name="ct-w4").spec
    e = estimate(spec, "H100-SXM")
    assert e.memory.weights_gb < 6.5  # ~5.8 GB (4.25 bits + 16-bit embeddings and head), not 16 GB


def test_an_unread_quantization_is_said() -> None:
    config = {**LLAMA, "quantization_config": {"quant_method": "foobar", "bits": 3}}
    spec = parse_hf_config(config, name="foo").spec
    assert spec.native_precision == ""
    assert "quant_method 'foobar'" in spec.notes and "sized as 16-bit" in spec.notes
    assert quantization_note({"quant_method": "awq", "bits": 4}) == ""
    assert quantization_note(None) == ""


QWEN3_MOE: dict[str, Any] = {
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
}


def test_a_qwen3_moe_config_needs_its_expert_width() -> None:
    config = copy.deepcopy(QWEN3_MOE)
    assert parse_hf_config(config, name="q3").spec.moe_intermediate_size == 768
    del config["moe_intermediate_size"]
    with pytest.raises(InvalidInputError) as err:
        parse_hf_config(config, name="q3")
    assert err.value.field == "moe_intermediate_size"


def test_a_sparse_step_puts_moe_on_every_nth_layer() -> None:
    # transformers' Qwen3MoeDecoderLayer: the MoE block where (layer_idx + 1) % decoder_sparse_step == 0,
    # a dense MLP of intermediate_size elsewhere (read in transformers 5.25.0)
    every = parse_hf_config({**QWEN3_MOE, "mlp_only_layers": []}, name="q3").spec
    half = parse_hf_config({**QWEN3_MOE, "decoder_sparse_step": 2, "mlp_only_layers": []}, name="q3").spec
    layers = half.num_hidden_layers
    assert half.moe_layer_step == 2 and half.moe_layer_count == layers // 2
    assert [half.is_moe_layer(i) for i in range(4)] == [False, True, False, True]
    full, sparse = count_params(every), count_params(half)
    assert sparse.routed_experts * 2 == full.routed_experts
    assert sparse.dense_mlp == (layers - layers // 2) * 3 * half.hidden_size * half.intermediate_size


def test_dense_layers_at_listed_places_are_refused_under_their_own_name() -> None:
    with pytest.raises(InvalidInputError) as err:
        parse_hf_config({**QWEN3_MOE, "mlp_only_layers": [0, 5]}, name="q3")
    assert err.value.field == "mlp_only_layers"


def test_modelopt_integer_schemes_and_unread_schemes_of_read_methods() -> None:
    assert native_precision({"quant_method": "modelopt", "quant_algo": "W4A16_AWQ"}) == "int4"
    assert native_precision({"quant_method": "modelopt", "quant_algo": "W8A8_SQ_PER_CHANNEL"}) == "w8a8"
    two_bit = _ct({"num_bits": 2, "type": "int"}, None)
    note = quantization_note(two_bit)
    assert "holds a scheme gpuscout does not read" in note and "is not a format" not in note
