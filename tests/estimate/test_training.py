"""estimate_training: pinned fits verdicts, FLOP counts, speed physics, bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.estimate.training import TrainingEstimate, estimate_training
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.layout import model_layout as param_layout
from tests.estimate.training_specs import LLAMA2_70B, LLAMA31_8B, LLAMA31_70B

A6000 = resolve_gpu("RTX A6000 48GB")
L40S = resolve_gpu("L40S 48GB")
H100 = resolve_gpu("H100 SXM 80GB")
A100 = resolve_gpu("A100-SXM4-80GB")
RTX4090 = resolve_gpu("RTX 4090 24GB")


@pytest.mark.parametrize("gpu", [A6000, L40S])
@pytest.mark.parametrize(("model", "rank"), [(LLAMA2_70B, 16), (LLAMA2_70B, 64), (LLAMA31_70B, 16)])
def test_qlora_of_a_70b_model_fits_one_48gb_card(gpu, model, rank) -> None:  # type: ignore[no-untyped-def]
    est = estimate_training(model, gpu, method="qlora", seq_len=2048, micro_batch=1, lora_rank=rank)
    assert est.fits, est.memory
    assert est.binding_constraint == "fits"


@pytest.mark.parametrize("gpu", [A6000, H100])
def test_full_finetune_of_70b_does_not_fit_one_card(gpu) -> None:  # type: ignore[no-untyped-def]
    est = estimate_training(LLAMA31_70B, gpu, method="full")
    assert not est.fits
    assert est.binding_constraint == "weights"  # 141 GB of bf16 weights alone overflow


def test_full_finetune_of_70b_on_8x80gb_needs_fsdp_and_offload() -> None:
    # 16 B/param x 70.6B / 8 GPUs = 141 GB per GPU: ZeRO-3 alone cannot hold mixed-precision AdamW...
    sharded = estimate_training(LLAMA31_70B, H100, gpus=8, method="full", sharding="fsdp")
    assert not sharded.fits
    assert sharded.binding_constraint == "optimizer"
    # ...with the optimizer (and parameters) offloaded to CPU RAM it fits, as torchtune runs it
    offloaded = estimate_training(LLAMA31_70B, H100, gpus=8, method="full", sharding="zero3",
                                  cpu_offload=True)
    assert offloaded.fits
    # 8-bit AdamW with an fp32 master (10 B/param) still needs 88 GB of states per GPU: no
    assert not estimate_training(LLAMA31_70B, H100, gpus=8, method="full", sharding="fsdp",
                                 optimizer="adamw8bit").fits


def test_full_finetune_of_8b_needs_sharding_or_offload_on_80gb() -> None:
    single = estimate_training(LLAMA31_8B, H100, method="full")
    states = single.memory.weights_gb + single.memory.gradients_gb + single.memory.optimizer_gb
    assert 120 <= states <= 145
    assert not single.fits
    assert estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="zero3").fits
    assert estimate_training(LLAMA31_8B, H100, method="full", cpu_offload=True).fits


def test_lora_of_8b_fits_a_24gb_card_with_checkpointing() -> None:
    est = estimate_training(LLAMA31_8B, RTX4090, method="lora", seq_len=2048, micro_batch=1)
    assert est.fits
    # the same run without checkpointing at a long sequence does not
    long = estimate_training(LLAMA31_8B, RTX4090, method="lora", seq_len=8192, checkpointing=False)
    assert not long.fits
    assert long.binding_constraint == "activations"


def test_flops_follow_6nd_and_8nd() -> None:
    lay = param_layout(LLAMA31_8B)
    plain = estimate_training(LLAMA31_8B, H100, method="full", checkpointing=False)
    ckpt = estimate_training(LLAMA31_8B, H100, method="full", checkpointing=True)
    head = LLAMA31_8B.vocab_size * LLAMA31_8B.hidden_size
    # 6 x (linear + lm_head) plus the attention scores: 3 x 4 x q_dim x mean context x layers
    attention = 3 * 4 * 4096 * (2048 + 1) / 2 * 32
    assert plain.flops_per_token == pytest.approx(6 * (lay.linear_params + head) + attention)
    assert ckpt.flops_per_token == pytest.approx(plain.flops_per_token * 8 / 6)


def test_lora_skips_weight_gradients() -> None:
    full = estimate_training(LLAMA31_8B, H100, method="full", checkpointing=False)
    lora = estimate_training(LLAMA31_8B, H100, method="lora", checkpointing=False)
    assert 0.64 <= lora.flops_per_token / full.flops_per_token <= 0.70  # ~4ND vs 6ND


def test_time_is_tokens_over_throughput() -> None:
    est = estimate_training(LLAMA31_8B, H100, method="lora", tokens=50e6, epochs=3)
    assert est.time_s == pytest.approx(150e6 / est.tokens_per_s)
    assert estimate_training(LLAMA31_8B, H100, method="lora").time_s is None


def test_h100_trains_faster_than_a100_and_mfu_is_realistic() -> None:
    h = estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="fsdp", micro_batch=4)
    a = estimate_training(LLAMA31_8B, A100, method="full", gpus=8, sharding="fsdp", micro_batch=4)
    assert h.tokens_per_s > 2 * a.tokens_per_s
    for est in (h, a):
        assert 0.2 <= est.mfu <= 0.45


def test_more_gpus_scale_sublinearly_and_pcie_and_network_cost_more() -> None:
    one = estimate_training(LLAMA31_8B, H100, method="lora")
    eight = estimate_training(LLAMA31_8B, H100, method="lora", gpus=8)
    assert 4 * one.tokens_per_s < eight.tokens_per_s <= 8 * one.tokens_per_s
    nvlink = estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="fsdp")
    two_nodes = estimate_training(LLAMA31_8B, H100, method="full", gpus=4, nodes=2, sharding="fsdp",
                                  internode_gbps=12.5)
    assert two_nodes.tokens_per_s < nvlink.tokens_per_s
    assert "communication" in two_nodes.assumptions
    pcie = estimate_training(LLAMA31_8B, RTX4090, method="qlora", gpus=4)
    assert any("PCIe" in w for w in pcie.warnings)


def test_fp8_is_flagged_on_a100_and_faster_on_h100() -> None:
    a = estimate_training(LLAMA31_8B, A100, method="full", gpus=8, sharding="fsdp", precision="fp8")
    assert any("FP8" in w for w in a.warnings)
    h_fp8 = estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="fsdp", precision="fp8")
    h_bf16 = estimate_training(LLAMA31_8B, H100, method="full", gpus=8, sharding="fsdp")
    assert not any("FP8" in w for w in h_fp8.warnings)
    assert h_fp8.tokens_per_s > h_bf16.tokens_per_s


def test_result_carries_assumptions() -> None:
    est = estimate_training(LLAMA31_8B, H100, method="full")
    assert isinstance(est, TrainingEstimate)
    for key in ("bytes_per_param", "activations", "overhead", "efficiency", "flops", "capacity"):
        assert key in est.assumptions
    assert est.memory.capacity_gb == pytest.approx(80 * 2**30 / 1e9, rel=0.01)


@pytest.mark.parametrize(
    ("field", "kw"),
    [
        ("gpus", {"gpus": 0}),
        ("nodes", {"nodes": -1}),
        ("grad_accum", {"grad_accum": 0}),
        ("tokens", {"tokens": -5}),
        ("epochs", {"epochs": 0}),
        ("internode_gbps", {"internode_gbps": 0}),
        ("cpu_offload", {"cpu_offload": "yes"}),
        ("method", {"method": "rlhf"}),
        ("seq_len", {"seq_len": 0}),
        ("lora_rank", {"lora_rank": 4096}),
    ],
)
def test_bad_input_names_the_field(field: str, kw: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate_training(LLAMA31_8B, H100, **kw)  # type: ignore[arg-type]
    assert err.value.field == field


def test_unknown_gpu_name_lists_close_names() -> None:
    with pytest.raises(UnknownNameError) as err:
        estimate_training(LLAMA31_8B, "H10O SXM")
    assert err.value.field == "gpu"
    assert err.value.suggestions


@settings(max_examples=40, deadline=None)
@given(method=st.sampled_from(["lora", "qlora", "full"]), tokens=st.floats(1e3, 1e12),
       factor=st.floats(1.0, 100.0), gpus=st.sampled_from([1, 2, 8]))
def test_more_tokens_never_take_less_time(method: str, tokens: float, factor: float, gpus: int) -> None:
    a = estimate_training(LLAMA31_8B, H100, method=method, gpus=gpus, tokens=tokens)
    b = estimate_training(LLAMA31_8B, H100, method=method, gpus=gpus, tokens=tokens * factor)
    assert a.time_s is not None and b.time_s is not None
    assert b.time_s >= a.time_s


def test_names_resolve_through_knowledge() -> None:
    est = estimate_training("Llama 3.1 8B", "H100", method="lora")
    assert est.model == "llama-3.1-8b"
    assert est.gpu == "H100-SXM"
    with pytest.raises(UnknownNameError) as err:
        estimate_training("llama-9-8b", "H100")
    assert err.value.field == "model"
