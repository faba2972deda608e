"""The attention kernel of a training step: how much of the fitted attention efficiency it keeps on a GPU.

The fitted ``attention_efficiency`` of :data:`gpuscout.estimate.training_speed.CALIBRATION` is that of a
FlashAttention kernel written for the GPU's tensor cores, the kernel a training stack picks today
(``"current"``, the default): FlashAttention-2 on Ampere, Ada and GeForce / workstation Blackwell (their
full-rate instruction is the warp-level ``mma.sync``); FlashAttention-3, or cuDNN's fused attention as
Transformer Engine runs it, on Hopper and datacenter Blackwell, whose full rate needs the asynchronous
warpgroup MMA (``wgmma`` + TMA, ``tcgen05``).

A kernel written for Ampere (``"fa2"``: FlashAttention 1 or 2, the Triton flash-attention kernels of
2023, PyTorch SDPA's flash backend, which is FlashAttention-2) issues ``mma.sync`` on every GPU. Where
the full rate needs the warpgroup MMA (:func:`gpuscout.estimate.throughput.has_warpgroup_mma`, compute
capability 9.0-11.x) it keeps :func:`gpuscout.estimate.throughput.legacy_mma_share` of the efficiency:
FlashAttention-2 reaches 50-73 % of an A100's peak in its forward pass (Dao 2023, arXiv:2307.08691) and
about 35 % of an H100's (Shah et al. 2024, "FlashAttention-3", arXiv:2407.08608, section 1), where
FlashAttention-3 (July 2024) reaches 75 % (same paper): about half the share. Elsewhere ``"fa2"`` is the
current kernel and keeps all of it. The rule is keyed on the tensor-core instruction set, never on a GPU
name: a GPU the calibration never saw gets its class's share.

Before Ampere (Volta sm_70, Turing sm_75) neither kernel runs: FlashAttention-2 needs sm_80 or later
(its README: "Ampere, Ada, or Hopper GPUs"; PyTorch's SDPA admits its flash backend from sm_80 on,
``check_flash_attention_hardware_support`` in aten/src/ATen/native/transformers/cuda/sdp_utils.cpp).
PyTorch SDPA runs its memory-efficient kernel there (the xFormers / CUTLASS one, admitted from sm_50),
which, like FlashAttention, never holds the score matrix, so memory is unchanged; it is timed at the
fitted attention efficiency (no calibration run measures Volta or Turing training, and no measurement
we know of sets the two kernels apart there), and the note says which kernel that is.

Which kernel a published run used is read from its stack and era (benchmarks/accuracy_training.py,
``ATTENTION_KERNELS``); a user who does not say gets ``"current"``.
"""

from __future__ import annotations

from gpuscout.estimate.support import FLASH_ATTENTION_2_MIN_CC
from gpuscout.estimate.throughput import has_warpgroup_mma, legacy_mma_share
from gpuscout.knowledge.accelerator_types import Accelerator

CURRENT = "current"
FA2 = "fa2"
ATTENTION_KERNELS = (CURRENT, FA2)


def attention_kernel_share(acc: Accelerator, kernel: str) -> float:
    """Share of the fitted attention efficiency ``kernel`` keeps on ``acc`` (see the module docstring)."""
    if kernel == FA2:
        return legacy_mma_share(acc)
    if kernel == CURRENT:
        return 1.0
    raise ValueError(f"unknown attention kernel {kernel!r}; accepted: {', '.join(ATTENTION_KERNELS)}")


def attention_kernel_note(acc: Accelerator, kernel: str) -> str:
    """What the estimate assumes of the attention kernel on ``acc``, in words."""
    if has_warpgroup_mma(acc):
        if kernel == FA2:
            return (
                f"FlashAttention-2-class kernel (Ampere mma.sync, no wgmma/TMA): "
                f"{legacy_mma_share(acc):.0%} of the fitted attention efficiency on {acc.name}"
            )
        return f"FlashAttention-3 / cuDNN-class kernel (warpgroup MMA) on {acc.name}"
    cc = acc.nvidia_cc
    if cc is None:
        return f"{acc.name}'s flash-attention kernel, at the fitted efficiency (fitted on NVIDIA runs)"
    if cc < FLASH_ATTENTION_2_MIN_CC:
        return (
            f"PyTorch SDPA's memory-efficient kernel: FlashAttention-2 needs sm80+, {acc.name} is "
            f"sm{cc[0]}{cc[1]} (no score matrix held, as with flash; at the fitted attention efficiency)"
        )
    return f"FlashAttention-2-class kernel (mma.sync is {acc.name}'s full-rate path)"
