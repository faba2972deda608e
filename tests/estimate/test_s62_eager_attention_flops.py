"""Eager attention executes the whole score square, and its backward is 2 forwards, not FlashAttention's 2.5.

``attention="eager"`` (scores materialised: Hugging Face ``attn_implementation="eager"``, SDPA's math
path, Megatron-LM before flash kernels) was timed at the FLOPs of a causal flash kernel: the causal mean
context ``(seq + 1) / 2`` and a backward of 2.5 forwards. A batched ``QK^T`` computes every score of the
``seq x seq`` square before the mask is added, and ``AV`` multiplies the whole (half-zero) probability
matrix; the backward reads the kept probabilities instead of recomputing ``QK^T``: ``dP = dO V^T``,
``dV = P^T dO``, ``dQ = dS K``, ``dK = dS^T Q``, 4 matmuls against the forward's 2. So eager attention
executes ``4 x q_dim x seq`` FLOPs per token and layer forward, ``x (1 + 2)`` over a step (``+ 1`` under
full checkpointing). Hand check, Llama-3.2-1B (16 layers, 32 heads x 64 = q_dim 2048) at seq 2048:
flash ``4 x 2048 x 1024.5 x 16 x 3.5`` = 469.9 MFLOP per token, eager ``4 x 2048 x 2048 x 16 x 3``
= 805.3 MFLOP: 1.71x, and the attention time follows it on an A100 (its flash kernel keeps the whole
fitted efficiency, so only the FLOPs differ).
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.training import estimate_training

SEQ = 2048
Q_DIM, LAYERS = 32 * 64, 16  # Llama-3.2-1B


def _est(attention: str, checkpointing: str) -> object:
    return estimate_training(
        "llama-3.2-1b",
        "A100-SXM4-80GB",
        method="pretrain",
        seq_len=SEQ,
        micro_batch=4,
        checkpointing=checkpointing,
        attention=attention,
    )


@pytest.mark.parametrize(
    ("checkpointing", "flash_passes", "eager_passes"), [("none", 3.5, 3.0), ("full", 4.5, 4.0)]
)
def test_eager_attention_flops_are_the_whole_square(
    checkpointing: str, flash_passes: float, eager_passes: float
) -> None:
    flash, eager = _est("flash", checkpointing), _est("eager", checkpointing)
    flash_attn = 4 * Q_DIM * (SEQ + 1) / 2 * LAYERS * flash_passes
    eager_attn = 4 * Q_DIM * SEQ * LAYERS * eager_passes
    # the weight GEMMs are the same; only the attention FLOPs differ
    assert eager.flops_per_token - flash.flops_per_token == pytest.approx(eager_attn - flash_attn)  # type: ignore[attr-defined]
    # the attention time follows the FLOPs (the same efficiency on an A100: FA2 is its current kernel)
    ratio = eager.step_breakdown_s["attention"] / flash.step_breakdown_s["attention"]  # type: ignore[attr-defined]
    assert ratio == pytest.approx(eager_attn / flash_attn)
    assert ratio > 1.7 if checkpointing == "none" else ratio > 1.75


def test_model_flops_do_not_depend_on_the_kernel() -> None:
    # MFU's numerator is the PaLM convention whatever kernel runs: eager only costs time
    flash, eager = _est("flash", "none"), _est("eager", "none")
    assert eager.mfu < flash.mfu  # type: ignore[attr-defined]
    assert eager.mfu * eager.step_time_s == pytest.approx(flash.mfu * flash.step_time_s)  # type: ignore[attr-defined]
