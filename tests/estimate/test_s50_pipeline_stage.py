"""Pipeline parallelism sizes each GPU on the fullest stage of whole layers: ceil(layers / pp).

A stage holds whole decoder layers: Llama-3.1-70B's 80 layers on PP 3 are split 27, 27, 26, so the GPU
that must fit holds 27 layers (not 80 / 3 = 26.67), plus the embedding or lm_head of the first / last
stage. Every expected figure is worked out here from the model's config numbers (hidden size, MLP width,
head counts, vocabulary), not read back from the estimator.
"""

from __future__ import annotations

import math

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.training import estimate_training
from gpuscout.estimate.training_memory import (
    TrainingSetup,
    activation_bytes,
    held_params,
    training_memory,
)
from gpuscout.knowledge.model_types import ModelSpec
from tests.estimate.training_specs import LLAMA31_8B, LLAMA31_70B, MIXTRAL_8X7B

BIG = 10_000.0  # GB: a GPU large enough that nothing spills


def mem(spec: ModelSpec, **kw: object):  # type: ignore[no-untyped-def]
    return training_memory(spec, TrainingSetup(**kw), BIG)  # type: ignore[arg-type]


def _kv(spec: ModelSpec) -> int:
    return spec.num_key_value_heads * spec.head_dim


def body_params(spec: ModelSpec) -> int:
    """Decoder layers of a dense Llama (q, k, v, o; gate, up, down; two RMSNorms) plus the final norm."""
    h, inter = spec.hidden_size, spec.intermediate_size
    per_layer = 2 * h * h + 2 * h * _kv(spec) + 3 * h * inter + 2 * h
    return spec.num_hidden_layers * per_layer + h


def embedding_params(spec: ModelSpec) -> int:
    return spec.vocab_size * spec.hidden_size  # untied: the lm_head is as large


def test_config_numbers_are_the_models() -> None:
    # the figures below use these: Llama-3.1-70B 80 layers, 8B 32 (Meta's config.json)
    assert (LLAMA31_70B.num_hidden_layers, LLAMA31_70B.hidden_size, LLAMA31_70B.intermediate_size) == (
        80,
        8192,
        28672,
    )
    assert body_params(LLAMA31_70B) + 2 * embedding_params(LLAMA31_70B) == 70_553_706_496
    assert LLAMA31_8B.num_hidden_layers == 32


@pytest.mark.parametrize("method", ["full", "pretrain"])
def test_70b_on_pp3_holds_27_whole_layers_of_weights_grads_and_optimizer(method: str) -> None:
    # PP 3 on 3 GPUs, no data parallel: the fullest stage holds 27 of the 80 layers and one end
    held = body_params(LLAMA31_70B) * 27 / 80 + embedding_params(LLAMA31_70B)
    assert math.ceil(80 / 3) == 27
    m = mem(LLAMA31_70B, method=method, world=3, pp=3, grad_accum=8).breakdown
    assert m.weights_gb * 1e9 == pytest.approx(2 * held)  # bf16 weights
    assert m.gradients_gb * 1e9 == pytest.approx(2 * held)  # bf16 gradients
    assert m.optimizer_gb * 1e9 == pytest.approx(12 * held)  # fp32 master + Adam m, v
    # 80 layers on PP 4 split evenly: 20 a stage, as before
    even = mem(LLAMA31_70B, method=method, world=4, pp=4, grad_accum=8).breakdown
    assert even.weights_gb * 1e9 == pytest.approx(
        2 * (body_params(LLAMA31_70B) / 4 + embedding_params(LLAMA31_70B))
    )


def test_held_params_is_the_fullest_stage() -> None:
    held = held_params(LLAMA31_70B, TrainingSetup(method="full", world=6, tp=2, pp=3))
    assert held.dense == pytest.approx(
        (body_params(LLAMA31_70B) * 27 / 80 + embedding_params(LLAMA31_70B)) / 2
    )


def test_zero3_shards_and_gathers_the_fullest_stage() -> None:
    # PP 3 x DP 2 under ZeRO-3: the stage's 27 layers and its end sharded over 2, plus the gathered working
    # set: the larger of two whole layers and the end unit beside one layer (one layer = the body / 80;
    # the 1.05B embedding outweighs a 0.86B layer)
    body, emb = body_params(LLAMA31_70B), embedding_params(LLAMA31_70B)
    m = mem(LLAMA31_70B, method="full", sharding="zero3", world=6, pp=3, grad_accum=8).breakdown
    shard = (body * 27 / 80 + emb) / 2
    layer = body / 80
    assert m.weights_gb * 1e9 == pytest.approx(2 * shard + 2 * max(2 * layer, emb + layer))
    assert m.optimizer_gb * 1e9 == pytest.approx(12 * shard)


def test_lora_fsdp_on_pp3_shards_the_stage_and_gathers_two_layers() -> None:
    # bf16 LoRA base: every weight 2 B; FSDP over DP 2 shards the stage, and gathers two whole layers or
    # the embedding beside one layer, whichever is larger (the embedding here)
    body, emb = body_params(LLAMA31_70B), embedding_params(LLAMA31_70B)
    m = mem(LLAMA31_70B, method="lora", sharding="fsdp", world=6, pp=3, grad_accum=8).breakdown
    layer = body / 80
    assert m.weights_gb * 1e9 == pytest.approx(
        2 * (body * 27 / 80 + emb) / 2 + 2 * max(2 * layer, emb + layer)
    )


def test_8b_lora_on_pp5_holds_the_adapters_of_7_layers() -> None:
    # 32 layers on PP 5: 7, 7, 6, 6, 6. Rank-16 adapters on every linear layer of a layer:
    # r (in + out) for q, k, v, o, gate, up, down; 16-bit adapter weight 2 + grad 2 B
    spec = LLAMA31_8B
    h, inter, kv, r = spec.hidden_size, spec.intermediate_size, _kv(spec), 16
    per_layer = r * ((h + h) + 2 * (h + kv) + (h + h) + 2 * (h + inter) + (inter + h))
    assert math.ceil(32 / 5) == 7
    m = mem(spec, method="lora", lora_rank=r, world=5, pp=5, grad_accum=8).breakdown
    assert m.adapters_gb * 1e9 == pytest.approx(4 * per_layer * 7)
    assert m.optimizer_gb * 1e9 == pytest.approx(8 * per_layer * 7)  # fp32 Adam m, v
    assert m.weights_gb * 1e9 == pytest.approx(2 * (body_params(spec) * 7 / 32 + embedding_params(spec)))


def test_moe_experts_follow_the_whole_layer_split() -> None:
    # Mixtral 8x7B: 32 layers on PP 3 -> 11 on the fullest stage; its 8 experts of 3 h x I matrices each
    spec = MIXTRAL_8X7B
    h, inter = spec.hidden_size, spec.moe_intermediate_size
    experts = spec.num_hidden_layers * spec.num_experts * 3 * h * inter
    per_layer_rest = 2 * h * h + 2 * h * _kv(spec) + h * spec.num_experts + 2 * h  # attention, router, norms
    rest = spec.num_hidden_layers * per_layer_rest + h
    emb = embedding_params(spec)
    held = held_params(spec, TrainingSetup(method="full", world=3, pp=3))
    assert held.experts == pytest.approx(experts * 11 / 32)
    assert held.dense == pytest.approx(rest * 11 / 32 + emb)


def test_activations_of_the_first_stage_keep_27_layers_per_micro_batch_in_flight() -> None:
    # no checkpointing: the logits (bf16 + grad, chunked loss: vocab x 4 B a token) plus the layer set of
    # every kept layer; 1F1B keeps 3 micro-batches in flight on the first stage of PP 3, so 3 x 27 layers
    kw = {"method": "full", "checkpointing": False, "seq_len": 4096, "grad_accum": 8}
    logits = 4096 * LLAMA31_70B.vocab_size * 4
    one = activation_bytes(LLAMA31_70B, TrainingSetup(**kw))  # type: ignore[arg-type]
    per_layer = (one - logits) / 80
    pp3 = activation_bytes(LLAMA31_70B, TrainingSetup(world=3, pp=3, **kw))  # type: ignore[arg-type]
    assert pp3 == pytest.approx(logits + per_layer * 27 * 3)
    m = mem(LLAMA31_70B, world=3, pp=3, **kw).breakdown
    assert m.activations_gb * 1e9 == pytest.approx(logits + per_layer * 27 * 3)


def test_the_assumption_line_names_the_fullest_stage() -> None:
    note = mem(LLAMA31_70B, method="full", world=3, pp=3).assumptions["model_parallel"]
    assert "27 layers on the fullest stage of 3" in note
    assert "fullest stage" not in mem(LLAMA31_70B, method="full", world=8, tp=8).assumptions["model_parallel"]


@pytest.mark.parametrize("pp", [33, 64])
def test_a_pp_above_the_layer_count_is_refused_naming_pp(pp: int) -> None:
    for call in (
        lambda: mem(LLAMA31_8B, method="full", world=pp, pp=pp),
        lambda: held_params(LLAMA31_8B, TrainingSetup(method="full", world=pp, pp=pp)),
        lambda: activation_bytes(LLAMA31_8B, TrainingSetup(method="full", world=pp, pp=pp)),
    ):
        with pytest.raises(InvalidInputError) as err:
            call()
        assert err.value.field == "pp"
        assert err.value.accepted == "1..32"
        assert f"pipeline parallel {pp} leaves a stage without a layer" in str(err.value)


def test_one_layer_per_stage_is_accepted() -> None:
    m = mem(LLAMA31_8B, method="full", world=32, pp=32).breakdown
    assert m.weights_gb * 1e9 == pytest.approx(
        2 * (body_params(LLAMA31_8B) / 32 + embedding_params(LLAMA31_8B))
    )


def test_estimate_training_sizes_the_fullest_stage() -> None:
    est = estimate_training(LLAMA31_70B, "H200", gpus=3, method="full", pp=3, grad_accum=8, sharding="none")
    held = body_params(LLAMA31_70B) * 27 / 80 + embedding_params(LLAMA31_70B)
    assert est.memory.weights_gb * 1e9 == pytest.approx(2 * held)
    assert "27 layers on the fullest stage of 3" in est.assumptions["model_parallel"]
