"""Training memory: hand-checkable byte counts, sharding, checkpointing, bad input, monotonicity."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.memory import gib
from gpuscout.estimate.training_memory import (
    NF4_BITS,
    TrainingSetup,
    activation_elements_per_token_layer,
    lora_params,
    training_memory,
)
from gpuscout.knowledge.layout import model_layout as param_layout
from tests.estimate.training_specs import (
    LLAMA2_7B,
    LLAMA31_8B,
    LLAMA31_70B,
    MIXTRAL_8X7B,
    SDXL,
)

GIB = 2**30
H100 = 80 * GIB / 1e9  # capacity in GB of an "80 GB" card
BIG = 10_000.0  # a GPU large enough that nothing spills


def mem(spec=LLAMA31_8B, capacity=BIG, **kw):  # type: ignore[no-untyped-def]
    return training_memory(spec, TrainingSetup(**kw), capacity)


def test_param_layout_matches_official_totals() -> None:
    assert param_layout(LLAMA31_8B).total == pytest.approx(8.03e9, rel=0.005)
    assert param_layout(LLAMA31_70B).total == pytest.approx(70.55e9, rel=0.005)
    assert param_layout(LLAMA2_7B).total == pytest.approx(6.74e9, rel=0.005)
    mixtral = param_layout(MIXTRAL_8X7B)
    assert mixtral.total == pytest.approx(46.7e9, rel=0.01)
    assert mixtral.active == pytest.approx(12.9e9, rel=0.01)


def test_lora_params_use_gqa_shapes_and_all_experts() -> None:
    # PEFT reports 41,943,040 trainable params for Llama-3-8B, r=16, all linear layers
    assert lora_params(param_layout(LLAMA31_8B), 16, "all-linear") == 41_943_040
    # attention only, GQA: q,o are 4096x4096, k,v 4096x1024 -> 16*(8192*2 + 5120*2) per layer
    assert lora_params(param_layout(LLAMA31_8B), 16, "attn") == 32 * 16 * (8192 * 2 + 5120 * 2)
    # MHA Llama-2-7B attention: 4 matrices of 4096x4096
    assert lora_params(param_layout(LLAMA2_7B), 8, "attn") == 32 * 8 * 4 * 8192
    # Mixtral (transformers 5 + PEFT 0.21's conversion): every one of the 8 experts of 32 layers gets
    # adapters on its fused gate_up_proj (twice the rank) and down_proj, and the router one
    attn = lora_params(param_layout(MIXTRAL_8X7B), 8, "attn")
    all_linear = lora_params(param_layout(MIXTRAL_8X7B), 8, "all-linear")
    assert all_linear - attn == 32 * (8 * 16 * (4096 + 2 * 14336) + 8 * 8 * (14336 + 4096) + 8 * (4096 + 8))


@pytest.mark.parametrize(("optimizer", "bytes_per_param"), [("adamw", 16), ("adamw8bit", 10), ("bf16", 8)])
def test_full_finetune_bytes_per_param(optimizer: str, bytes_per_param: int) -> None:
    m = mem(method="full", optimizer=optimizer).breakdown
    n = param_layout(LLAMA31_8B).total
    states = (m.weights_gb + m.gradients_gb + m.optimizer_gb) * 1e9
    assert states == pytest.approx(bytes_per_param * n, rel=1e-9)


def test_full_finetune_of_8b_does_not_fit_one_80gb_card() -> None:
    m = mem(method="full", capacity=H100)
    assert 120 <= m.breakdown.weights_gb + m.breakdown.gradients_gb + m.breakdown.optimizer_gb <= 145
    assert not m.fits
    assert m.binding_constraint == "optimizer"


def test_zero_stages_shard_what_they_should() -> None:
    n = param_layout(LLAMA31_8B).total
    ddp = mem(method="full", world=8).breakdown
    z1 = mem(method="full", world=8, sharding="zero1").breakdown
    z2 = mem(method="full", world=8, sharding="zero2").breakdown
    z3 = mem(method="full", world=8, sharding="zero3").breakdown
    assert ddp.optimizer_gb * 1e9 == pytest.approx(12 * n)
    assert z1.optimizer_gb == pytest.approx(ddp.optimizer_gb / 8)
    assert z1.gradients_gb == pytest.approx(ddp.gradients_gb)
    assert z2.gradients_gb == pytest.approx(ddp.gradients_gb / 8)
    assert z2.weights_gb == pytest.approx(ddp.weights_gb)
    # ZeRO-3 shards the weights too, but holds a gathered working set: two layers, or the lm_head (its
    # own FSDP unit, 525M parameters: 2.4 layers) beside the prefetched layer, whichever is larger
    lay = param_layout(LLAMA31_8B)
    layer = (lay.linear_params + lay.norms) / 32 * 2
    end = max(lay.embedding, lay.lm_head) * 2
    assert z3.weights_gb * 1e9 == pytest.approx(2 * n / 8 + max(2 * layer, end + layer))
    assert mem(method="full", world=8, sharding="fsdp").breakdown == z3


def test_cpu_offload_moves_optimizer_and_with_zero3_the_params() -> None:
    z2 = mem(method="full", world=8, sharding="zero2", cpu_offload=True).breakdown
    assert z2.optimizer_gb == 0
    assert z2.gradients_gb > 0
    z3 = mem(method="full", world=8, sharding="zero3", cpu_offload=True).breakdown
    z3_plain = mem(method="full", world=8, sharding="zero3").breakdown
    assert z3.optimizer_gb == 0
    assert z3.weights_gb < z3_plain.weights_gb / 2


def test_qlora_base_is_nf4_with_bf16_embeddings() -> None:
    lay = param_layout(LLAMA31_8B)
    m = mem(method="qlora").breakdown
    expected = lay.linear_params * NF4_BITS / 8 + (lay.embedding + lay.lm_head + lay.norms) * 2
    assert m.weights_gb * 1e9 == pytest.approx(expected)
    assert abs(NF4_BITS - 4.127) < 1e-3
    assert m.gradients_gb == 0


def test_lora_adapters_cost_12_bytes_per_param_with_adamw() -> None:
    r = mem(method="lora", lora_rank=16)
    n = lora_params(param_layout(LLAMA31_8B), 16, "all-linear")
    assert r.trainable_params == n
    assert (r.breakdown.adapters_gb + r.breakdown.optimizer_gb) * 1e9 == pytest.approx(12 * n)


def test_activation_count_per_token_and_layer_is_hand_checkable() -> None:
    # Llama-3-8B: 4h + 2q + 2kv + 4I = 16384 + 8192 + 2048 + 57344 elements (full fine-tuning)
    assert activation_elements_per_token_layer(LLAMA31_8B, TrainingSetup(method="full")) == 83968


def test_checkpointing_cuts_activations() -> None:
    with_ckpt = mem(method="full", seq_len=4096).breakdown.activations_gb
    without = mem(method="full", seq_len=4096, checkpointing=False).breakdown.activations_gb
    assert without > 5 * with_ckpt
    # no checkpointing: 32 layers x 4096 tokens x 83968 elements x 2 B, plus logits 4096 x vocab x 4 B
    assert without * 1e9 == pytest.approx(32 * 4096 * 83968 * 2 + 4096 * 128256 * 4)


def test_paged_optimizer_spills_instead_of_failing() -> None:
    m = mem(
        method="full",
        optimizer="paged_adamw8bit",
        optimizer_in_backward=True,
        capacity=24 * GIB / 1e9,
        micro_batch=2,
    )
    assert m.fits
    assert m.spilled_gb > 5
    assert any("pages to CPU RAM" in w for w in m.warnings)
    assert m.breakdown.total_gb <= 24 * GIB / 1e9 + 1e-6


@pytest.mark.parametrize(
    ("field", "kw"),
    [
        ("method", {"method": "dpo"}),
        ("optimizer", {"optimizer": "lion"}),
        ("sharding", {"sharding": "zero4"}),
        ("lora_targets", {"lora_targets": "mlp-only"}),
        ("precision", {"precision": "int3"}),
        ("seq_len", {"seq_len": 0}),
        ("seq_len", {"seq_len": -5}),
        ("micro_batch", {"micro_batch": 2.5}),
        ("micro_batch", {"micro_batch": True}),
        ("lora_rank", {"lora_rank": 0}),
        ("precision", {"method": "full", "precision": "int8"}),
    ],
)
def test_bad_input_names_the_field(field: str, kw: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError) as err:
        mem(**kw)
    assert err.value.field == field


def test_non_llm_models_are_refused() -> None:
    with pytest.raises(InvalidInputError) as err:
        mem(spec=SDXL)
    assert err.value.field == "model"


_methods = st.sampled_from(["lora", "qlora", "full"])
_opts = st.sampled_from(["adamw", "adamw8bit", "paged_adamw8bit", "bf16"])


@settings(max_examples=60, deadline=None)
@given(
    method=_methods,
    optimizer=_opts,
    ckpt=st.booleans(),
    seq=st.integers(1, 65536),
    extra=st.integers(1, 8192),
    mb=st.integers(1, 16),
    capacity=st.sampled_from([25.8, 51.5, 85.9]),
)
def test_more_tokens_never_need_less_memory(
    method: str, optimizer: str, ckpt: bool, seq: int, extra: int, mb: int, capacity: float
) -> None:
    def total(s: int, b: int) -> float:
        return mem(
            method=method,
            optimizer=optimizer,
            checkpointing=ckpt,
            seq_len=s,
            micro_batch=b,
            capacity=capacity,
        ).breakdown.total_gb

    base = total(seq, mb)
    assert total(seq + extra, mb) >= base - 1e-9
    assert total(seq, mb + 1) >= base - 1e-9


@settings(max_examples=60, deadline=None)
@given(
    method=_methods,
    sharding=st.sampled_from(["zero3", "fsdp", "fsdp1"]),
    offload=st.booleans(),
    world=st.integers(1, 512),
    more=st.integers(1, 512),
)
def test_more_gpus_under_zero3_never_need_more_per_gpu(
    method: str, sharding: str, offload: bool, world: int, more: int
) -> None:
    def total(w: int) -> float:
        return mem(
            spec=LLAMA31_70B, method=method, sharding=sharding, cpu_offload=offload, world=w
        ).breakdown.total_gb

    assert total(world + more) <= total(world) + 1e-9


def test_tensor_and_pipeline_parallel_split_the_weights_and_activations() -> None:
    lay = param_layout(LLAMA31_70B)
    one = mem(spec=LLAMA31_70B, method="full", checkpointing=False, seq_len=4096).breakdown
    tp = mem(spec=LLAMA31_70B, method="full", checkpointing=False, seq_len=4096, world=8, tp=8).breakdown
    # TP 8 (no data parallel): every matrix, the embedding and the lm_head split 8 ways
    assert tp.weights_gb * 1e9 == pytest.approx(2 * lay.total / 8)
    assert tp.activations_gb == pytest.approx(one.activations_gb / 8)
    # PP 4 x TP 2: a stage holds 20 layers (plus the embedding or the lm_head); 1F1B keeps up to 4
    # micro-batches in flight, so the first stage's activations are those of 80 layers of one micro-batch
    pp = mem(
        spec=LLAMA31_70B, method="full", checkpointing=False, seq_len=4096, world=8, tp=2, pp=4, grad_accum=8
    ).breakdown
    body = lay.total - lay.embedding - lay.lm_head
    assert pp.weights_gb * 1e9 == pytest.approx(2 * (body / 8 + lay.embedding / 2))
    assert pp.activations_gb == pytest.approx(one.activations_gb / 2, rel=0.01)


def test_zero_shards_over_data_and_context_parallel_gpus() -> None:
    n = param_layout(LLAMA31_70B).total
    z1 = mem(spec=LLAMA31_70B, method="full", sharding="zero1", world=64, tp=8, cp=2).breakdown
    assert z1.optimizer_gb * 1e9 == pytest.approx(12 * n / 8 / 8)  # TP 8, then dp 4 x cp 2


def test_expert_parallel_shards_the_experts_without_tensor_parallel() -> None:
    lay = param_layout(MIXTRAL_8X7B)
    experts = sum(g.params for g in lay.groups if g.part == "routed_experts")
    rest = lay.total - experts
    ep = mem(spec=MIXTRAL_8X7B, method="full", sharding="none", world=8, ep=8).breakdown
    assert ep.weights_gb * 1e9 == pytest.approx(2 * (rest + experts / 8))


def test_selective_recompute_drops_the_elementwise_outputs() -> None:
    full = activation_elements_per_token_layer(LLAMA31_8B, TrainingSetup(method="full", checkpointing=False))
    sel = activation_elements_per_token_layer(
        LLAMA31_8B, TrainingSetup(method="full", checkpointing="selective")
    )
    assert full - sel == 2 * 4096 + 2 * 14336  # the two normed inputs, SiLU(gate) and the product
    s = mem(method="full", checkpointing="selective", seq_len=4096).breakdown.activations_gb
    assert mem(method="full", checkpointing="full", seq_len=4096).breakdown.activations_gb < s
    assert s < mem(method="full", checkpointing=False, seq_len=4096).breakdown.activations_gb


def test_eager_attention_keeps_the_probabilities() -> None:
    flash = activation_elements_per_token_layer(LLAMA31_8B, TrainingSetup(method="full", seq_len=2048))
    eager = activation_elements_per_token_layer(
        LLAMA31_8B, TrainingSetup(method="full", seq_len=2048, attention="eager")
    )
    assert eager - flash == 32 * 2048  # heads x seq bf16 probabilities per token and layer


def test_the_hugging_face_loss_keeps_three_times_the_logits() -> None:
    chunked = mem(method="lora", seq_len=4096).breakdown.activations_gb
    hf = mem(method="lora", seq_len=4096, loss="hf").breakdown.activations_gb
    assert (hf - chunked) * 1e9 == pytest.approx(4096 * 128256 * (12 - 4))


def _body_params(spec) -> float:  # type: ignore[no-untyped-def]
    lay = param_layout(spec)
    return float(lay.total - lay.embedding - lay.lm_head)


def test_fsdp1_gives_the_frozen_base_of_a_lora_block_a_gradient() -> None:
    # FSDP1 flattens each block: LoRA's frozen weights share the flat parameter and get gradients,
    # sharded like the parameters (plus one block unsharded while it is reduce-scattered)
    body = _body_params(LLAMA2_7B)
    layer = body / 32
    per_param = mem(spec=LLAMA2_7B, method="lora", world=2, sharding="fsdp").breakdown
    flat = mem(spec=LLAMA2_7B, method="lora", world=2, sharding="fsdp1").breakdown
    assert per_param.gradients_gb == 0
    assert flat.gradients_gb * 1e9 == pytest.approx(2 * (body / 2 + layer))
    assert flat.weights_gb == per_param.weights_gb
    # a quantised base has no weight gradient (bitsandbytes' 4-bit matmul returns none)
    assert mem(spec=LLAMA2_7B, method="qlora", world=2, sharding="fsdp1").breakdown.gradients_gb == 0


def test_no_sync_accumulation_holds_unsharded_gradients() -> None:
    n = param_layout(LLAMA31_8B).total
    synced = mem(method="full", world=8, sharding="fsdp", grad_accum=8).breakdown
    unsynced = mem(method="full", world=8, sharding="fsdp", grad_accum=8, no_sync_accumulation=True)
    assert unsynced.breakdown.gradients_gb * 1e9 == pytest.approx(2 * n)  # bf16, the whole model
    lay = param_layout(LLAMA31_8B)
    # synced: a shard, and the largest unit's gradient unsharded (the lm_head's, 525M parameters)
    end = max(lay.embedding, lay.lm_head, (lay.linear_params + lay.norms) / 32)
    assert synced.gradients_gb * 1e9 == pytest.approx(2 * (n / 8 + end))
    assert unsynced.breakdown.weights_gb == synced.weights_gb  # the parameters stay sharded
    assert "no_sync" in unsynced.assumptions["grad_sync"]
    # LoRA under FSDP1: the frozen block weights' gradients too, in full (Llama 2 7B: 13 GB in bf16)
    lora = mem(
        spec=LLAMA2_7B, method="lora", world=2, sharding="fsdp1", grad_accum=64, no_sync_accumulation=True
    )
    assert lora.breakdown.gradients_gb * 1e9 == pytest.approx(2 * _body_params(LLAMA2_7B))
    # one micro-batch per step: nothing to accumulate, nothing changes
    one = mem(method="full", world=8, sharding="fsdp", grad_accum=1, no_sync_accumulation=True)
    assert one.breakdown == mem(method="full", world=8, sharding="fsdp").breakdown


def test_synced_fsdp_accumulation_says_what_no_sync_would_add() -> None:
    res = mem(method="full", world=8, sharding="fsdp", grad_accum=8)
    n = param_layout(LLAMA31_8B).total
    extra = 2 * n / 1e9 - res.breakdown.gradients_gb  # the whole bf16 gradient less the shard held
    assert "sync_each_batch" in res.assumptions["grad_sync"]
    shown = float(res.assumptions["grad_sync"].split("would hold ")[1].split(" GiB")[0])
    assert shown == pytest.approx(gib(extra), abs=0.05)  # in GiB, as GPU memory is sold
    assert "grad_sync" not in mem(method="full", world=8, sharding="zero2", grad_accum=8).assumptions


def test_no_sync_accumulation_is_refused_where_deepspeed_has_none() -> None:
    for sharding in ("zero2", "zero3"):
        with pytest.raises(InvalidInputError) as err:
            mem(method="full", world=8, sharding=sharding, grad_accum=4, no_sync_accumulation=True)
        assert err.value.field == "no_sync_accumulation"
        assert "fsdp" in str(err.value)
    with pytest.raises(InvalidInputError) as err:
        mem(no_sync_accumulation="yes")
    assert err.value.field == "no_sync_accumulation"


def test_litgpt_fsdp_lora_table_is_reproduced_from_the_mechanism() -> None:
    # LitGPT's Oct-2023 multi-GPU LoRA table (2x / 4x A100 40GB, 1,304 tokens, micro-batch 1): FSDP1 per
    # block, per-block checkpointing, no_backward_sync over a 128-sequence minibatch. Peak allocated:
    # 7B on 2 GPUs 22.18 GB, 13B on 4 GPUs 35.57 GB; 13B on 2 GPUs out of memory.
    from gpuscout.estimate.training import estimate_training

    def run(model: str, gpus: int):  # type: ignore[no-untyped-def]
        return estimate_training(
            model, "A100 SXM 40GB", gpus=gpus, method="lora", seq_len=1304, micro_batch=1,
            grad_accum=128 // gpus, lora_rank=8, lora_targets="attn", attention="eager",
            sharding="fsdp1", checkpointing="full", no_sync_accumulation=True,
        )  # fmt: skip

    for model, gpus, measured in (("llama-2-7b", 2, 22.18), ("llama-2-13b", 4, 35.57)):
        m = run(model, gpus).memory
        assert m.total_gb - m.overhead_gb == pytest.approx(measured, rel=0.06)
    assert not run("llama-2-13b", 2).fits


def test_fsdp1_with_a_quantised_base_says_what_it_does_not_count() -> None:
    res = mem(spec=LLAMA2_7B, method="qlora", world=2, sharding="fsdp1")
    assert res.breakdown.gradients_gb == 0
    assert "quantised (NF4)" in res.assumptions["grads"]
    assert "not counted" in res.assumptions["grads"]


def test_sharding_aliases_name_the_same_thing() -> None:
    assert (
        mem(method="full", world=8, sharding="FSDP2").breakdown
        == mem(method="full", world=8, sharding="fsdp").breakdown
    )
    assert mem(method="full", world=8, sharding="ddp").breakdown == mem(method="full", world=8).breakdown
    assert (
        mem(method="full", world=8, sharding="ZeRO-3").breakdown
        == mem(method="full", world=8, sharding="zero3").breakdown
    )
