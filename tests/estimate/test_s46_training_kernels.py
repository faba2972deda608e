"""The flash-attention kernel of a training step: an Ampere-era kernel (FlashAttention-2, mma.sync) keeps half
the attention efficiency where the full tensor rate needs the warpgroup MMA (Hopper, datacenter Blackwell);
the current kernel (FlashAttention-3 / cuDNN there) all of it, and is what a user who does not say gets."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.parallel import collective_link
from gpuscout.estimate.training import TrainingEstimate, estimate_training
from gpuscout.estimate.training_kernels import (
    ATTENTION_KERNELS,
    attention_kernel_note,
    attention_kernel_share,
)
from gpuscout.estimate.training_memory import TrainingSetup, validate_setup
from gpuscout.estimate.training_speed import (
    CALIBRATION,
    FA_BACKWARD,
    Fabric,
    SpeedInputs,
    StepTime,
    attention_flops_per_token,
    step_time,
)
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.layout import model_layout
from gpuscout.knowledge.models import resolve_model

SEQ = 8192


def _step(gpu: str, kernel: str, attention: str = "flash") -> StepTime:
    """One full-training micro-step of Llama-3-8B (seq 8192, micro-batch 1, no recompute) on one GPU."""
    spec, acc = resolve_model("llama-3-8b"), resolve_gpu(gpu)
    setup = validate_setup(
        TrainingSetup(method="full", seq_len=SEQ, checkpointing="none", attention=attention)
    )
    inputs = SpeedInputs(
        acc=acc,
        fabric=Fabric(collective_link(acc, 1), 1, 1, 50.0),
        mm_tflops=acc.bf16_tflops or 0.0,
        attn_tflops=acc.bf16_tflops or 0.0,
        precision_class="16bit",
        stored_bytes=0.0,
        grad_accum=1,
        opt_bytes=16 * 8e9,
        trainable=8e9,
        param_bytes=2.0,
        spilled_gb=0.0,
        nodes=1,
        attention_kernel=kernel,
    )
    return step_time(spec, model_layout(spec), setup, inputs, CALIBRATION)


def test_attention_seconds_on_h100_by_kernel_by_hand() -> None:
    # Llama-3-8B: 32 layers x 4 x 32 heads x 128 x mean causal context (8192 + 1) / 2 = 2.148 GFLOP per token
    # forward, x (1 + 2.5) with the FlashAttention backward, x 8192 tokens = 61.6 TFLOP per micro-step;
    # at 0.25 x 989.5 TFLOPS (current kernel) 0.249 s, at half that share (FA2's mma.sync) 0.498 s
    spec = resolve_model("llama-3-8b")
    per_token = 32 * 4 * 32 * 128 * (SEQ + 1) / 2
    assert attention_flops_per_token(spec, SEQ) == pytest.approx(per_token)
    flops = SEQ * per_token * (1 + FA_BACKWARD)
    eff, peak = CALIBRATION.attention_efficiency, 989.5e12
    current, fa2 = _step("H100-SXM", "current"), _step("H100-SXM", "fa2")
    assert current.attention_s == pytest.approx(flops / (eff * peak))
    assert fa2.attention_s == pytest.approx(flops / (0.5 * eff * peak))
    assert fa2.attention_s == pytest.approx(2 * current.attention_s)
    # everything else is the same kernel-independent work
    assert (fa2.gemm_s, fa2.memory_s) == (current.gemm_s, current.memory_s)
    share_current = current.attention_s / current.total_s
    share_fa2 = fa2.attention_s / fa2.total_s
    assert share_fa2 == pytest.approx(2 * share_current / (1 + share_current))  # t_a doubles in t_a + rest
    assert share_current < share_fa2


@pytest.mark.parametrize("gpu", ["A100-SXM-80GB", "L40S", "RTX-5090", "MI300X"])
def test_fa2_costs_nothing_where_mma_sync_is_the_full_rate_path(gpu: str) -> None:
    # Ampere, Ada, GeForce Blackwell (sm_120) run mma.sync at their full rate: FA2 is their current kernel
    assert _step(gpu, "fa2").attention_s == pytest.approx(_step(gpu, "current").attention_s)
    assert attention_kernel_share(resolve_gpu(gpu), "fa2") == 1.0


@pytest.mark.parametrize("gpu", ["H100-SXM", "H200-SXM", "B200"])
def test_fa2_keeps_half_on_warpgroup_mma_parts(gpu: str) -> None:
    acc = resolve_gpu(gpu)
    assert attention_kernel_share(acc, "fa2") == 0.5
    assert attention_kernel_share(acc, "current") == 1.0
    assert "FlashAttention-2" in attention_kernel_note(acc, "fa2")
    assert "FlashAttention-3" in attention_kernel_note(acc, "current")


def test_eager_attention_is_not_a_flash_kernel() -> None:
    eager_current, eager_fa2 = _step("H100-SXM", "current", "eager"), _step("H100-SXM", "fa2", "eager")
    assert eager_fa2.attention_s == eager_current.attention_s
    assert "attention_kernel" not in eager_current.notes


def test_unknown_kernel_names_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match="current, fa2"):
        attention_kernel_share(resolve_gpu("H100-SXM"), "fa9")
    assert ATTENTION_KERNELS == ("current", "fa2")


def test_the_default_estimate_assumes_the_current_kernel_and_says_so() -> None:
    est = estimate_training("llama-3-8b", "H100-SXM", method="full", seq_len=SEQ, checkpointing="none")
    assert "FlashAttention-3 / cuDNN" in est.assumptions["speed_attention_kernel"]
    a100 = estimate_training("llama-3-8b", "A100-SXM-80GB", method="full", seq_len=SEQ, checkpointing="none")
    assert "FlashAttention-2" in a100.assumptions["speed_attention_kernel"]


def test_estimate_training_takes_the_kernel() -> None:
    def est(kernel: str) -> TrainingEstimate:
        return estimate_training(
            "llama-3-8b",
            "H100-SXM",
            method="full",
            seq_len=SEQ,
            checkpointing="none",
            attention_kernel=kernel,
        )

    current, fa2 = est("current"), est("fa2")
    assert fa2.step_breakdown_s["attention"] == pytest.approx(2 * current.step_breakdown_s["attention"])
    assert fa2.tokens_per_s < current.tokens_per_s
    assert "mma.sync" in fa2.assumptions["speed_attention_kernel"]
    assert f"attention at {CALIBRATION.attention_efficiency / 2:.0%}" in fa2.assumptions["efficiency"]
    with pytest.raises(InvalidInputError) as err:
        est("fa9")
    assert "attention_kernel" in str(err.value) and "current, fa2" in str(err.value)
