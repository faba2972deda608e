"""Attention on Volta and Turing (renter review 92, item 6).

``estimate_training("llama-3.1-8b", "V100", ...)`` said "FlashAttention-2-class kernel (mma.sync is V100's
full-rate path)": FlashAttention-2 needs sm80+ (PyTorch SDPA admits its flash backend from sm80 on), so on
Volta (sm70) and Turing (sm75) SDPA runs its memory-efficient kernel. The note now says so; the speed is
unchanged (the kernel holds no score matrix either, and no measurement sets the two apart there).
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.training import estimate_training
from gpuscout.estimate.training_kernels import (
    ATTENTION_KERNELS,
    attention_kernel_note,
    attention_kernel_share,
)
from gpuscout.knowledge.accelerators import resolve_gpu


@pytest.mark.parametrize(("gpu", "sm"), [("V100", "sm70"), ("T4", "sm75")])
@pytest.mark.parametrize("kernel", ATTENTION_KERNELS)
def test_pre_ampere_runs_sdpa_memory_efficient_kernel(gpu: str, sm: str, kernel: str) -> None:
    acc = resolve_gpu(gpu)
    note = attention_kernel_note(acc, kernel)
    assert note.startswith("PyTorch SDPA's memory-efficient kernel: FlashAttention-2 needs sm80+"), note
    assert f"{acc.name} is {sm}" in note
    assert "FlashAttention-2-class" not in note and "full-rate path" not in note
    # the speed is the fitted one, whatever kernel the user named
    assert attention_kernel_share(acc, kernel) == 1.0


def test_the_estimate_carries_the_note_and_keeps_its_speed() -> None:
    runs = {
        k: estimate_training("llama-3.1-8b", "V100", tokens=1e8, attention_kernel=k)
        for k in ATTENTION_KERNELS
    }
    for est in runs.values():
        assert "memory-efficient kernel" in est.assumptions["speed_attention_kernel"]
    assert runs["fa2"].step_breakdown_s["attention"] == runs["current"].step_breakdown_s["attention"]


@pytest.mark.parametrize("gpu", ["A100-SXM-80GB", "L40S", "RTX-5090"])
def test_ampere_and_later_mma_sync_parts_keep_flash_attention_2(gpu: str) -> None:
    note = attention_kernel_note(resolve_gpu(gpu), "current")
    assert note.startswith("FlashAttention-2-class kernel (mma.sync is")


@pytest.mark.parametrize("method", ["full", "lora", "qlora"])
def test_bf16_notes_read_as_what_runs_without_bf16(method: str) -> None:
    est = estimate_training("qwen2.5-0.5b", "V100", tokens=1e8, method=method)
    assert any("run as FP16" in w for w in est.warnings)
    said = {k: v for k, v in est.assumptions.items() if not k.startswith("speed_")}
    assert not [v for v in said.values() if "bf16" in v], said
    if method == "lora":
        assert est.assumptions["base"] == "fp16 linear layers, fp16 embeddings/norms"
    # a GPU with bf16 keeps its words
    assert (
        estimate_training("qwen2.5-0.5b", "A100-SXM-80GB", tokens=1e8, method="lora").assumptions["base"]
        == "bf16 linear layers, bf16 embeddings/norms"
    )
