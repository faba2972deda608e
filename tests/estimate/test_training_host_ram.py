"""Host RAM a training layout needs per node: offloaded state counted where it goes, hand-checkable.

Llama-3.1-70B has 70,553,706,496 parameters (the architecture walk). Full mixed-precision AdamW holds
16 B/param (bf16 weights 2 + bf16 gradients 2 + fp32 master 4 + Adam m, v 8); ZeRO-3 / FSDP CPU
offload keeps all of it in host RAM, ZeRO-1/2 offload the master and the Adam states (12 B/param).
A node then needs that for its GPUs, + 10 % pinned buffers, + 4 GB per training process, + 8 GB for
the OS.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.training import (
    HOST_OFFLOAD_BUFFER_SHARE,
    HOST_OS_GB,
    HOST_PER_GPU_PROCESS_GB,
    estimate_training,
)
from gpuscout.estimate.training_memory import TrainingSetup, lora_params, training_memory
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.layout import model_layout
from tests.estimate.training_specs import LLAMA31_8B, LLAMA31_70B

ADA = resolve_gpu("RTX6000-Ada")
H100 = resolve_gpu("H100 SXM 80GB")
P70 = 70_553_706_496  # Llama-3.1-70B parameters


def test_the_hand_checked_parameter_count() -> None:
    assert model_layout(LLAMA31_70B).total == P70


def test_a_70b_full_finetune_with_fsdp_offload_needs_1282_gb_of_ram_on_one_8_gpu_node() -> None:
    est = estimate_training(LLAMA31_70B, ADA, gpus=8, method="full", sharding="fsdp", cpu_offload=True)
    assert est.fits
    # 16 B x 70.55B = 1,128.9 GB offloaded; x 1.1 = 1,241.7; + 8 x 4 GB processes + 8 GB OS = 1,281.7 GB
    assert est.host_ram_gb_per_node == pytest.approx(1281.745, abs=0.01)
    assert est.host_ram_gb_per_node == pytest.approx(16 * P70 / 1e9 * 1.1 + 8 * 4 + 8)
    # the warning says the total, not the 12 B/param of the optimizer alone (847 GB)
    (warning,) = [w for w in est.warnings if "host RAM" in w]
    assert "~1,282 GB of RAM per node" in warning
    assert "parameters and gradients" in warning and "1,129 GB offloaded" in warning
    assert "1,282 GB of host RAM per node" in est.assumptions["host_ram"]


def test_zero2_offload_keeps_the_master_and_adam_states_in_ram() -> None:
    est = estimate_training(LLAMA31_70B, H100, gpus=8, method="full", sharding="zero2", cpu_offload=True)
    # 12 B x 70.55B = 846.6 GB; x 1.1 = 931.3; + 40 = 971.3 GB
    assert est.host_ram_gb_per_node == pytest.approx(12 * P70 / 1e9 * 1.1 + 40)
    assert any(
        "optimizer states and master weights offloaded to host RAM: ~971 GB" in w for w in est.warnings
    )


def test_more_nodes_share_the_offloaded_state() -> None:
    two = estimate_training(
        LLAMA31_70B, H100, gpus=8, nodes=2, method="full", sharding="fsdp", cpu_offload=True
    )
    # each node keeps the shards of its own 8 of the 16 GPUs: half the state
    assert two.host_ram_gb_per_node == pytest.approx(16 * P70 / 2 / 1e9 * 1.1 + 40)


def test_data_parallel_offload_keeps_a_copy_per_gpu() -> None:
    # without sharding every rank steps its own optimizer: 2 GPUs, 2 copies of 12 B/param
    n = model_layout(LLAMA31_8B).total
    est = estimate_training(LLAMA31_8B, H100, gpus=2, method="full", cpu_offload=True)
    assert est.host_ram_gb_per_node == pytest.approx(2 * 12 * n / 1e9 * 1.1 + 2 * 4 + 8)


def test_without_offload_a_node_needs_its_processes_and_the_os() -> None:
    est = estimate_training(LLAMA31_8B, H100, gpus=8, method="lora", sharding="fsdp")
    assert est.host_ram_gb_per_node == pytest.approx(HOST_OS_GB + 8 * HOST_PER_GPU_PROCESS_GB)
    assert not any("host RAM" in w for w in est.warnings)
    assert HOST_OFFLOAD_BUFFER_SHARE == 0.10


def test_training_memory_counts_what_offload_moves_off_each_gpu() -> None:
    def mem(**kw):  # type: ignore[no-untyped-def]
        return training_memory(LLAMA31_70B, TrainingSetup(method="full", world=8, **kw), 10_000.0)

    assert mem(sharding="fsdp").offloaded_gb == 0
    assert mem(sharding="fsdp", cpu_offload=True).offloaded_gb == pytest.approx(16 * P70 / 8 / 1e9)
    assert mem(sharding="zero2", cpu_offload=True).offloaded_gb == pytest.approx(12 * P70 / 8 / 1e9)
    # LoRA under FSDP offload: the frozen bf16 base shard goes to host RAM (and the adapters' states)
    lora = training_memory(
        LLAMA31_70B, TrainingSetup(method="lora", world=8, sharding="fsdp", cpu_offload=True), 10_000.0
    )
    adapters = lora_params(model_layout(LLAMA31_70B), 16, "all-linear")  # rank 16: ~207M
    assert lora.offloaded_gb == pytest.approx((2 * P70 + 8 * adapters) / 8 / 1e9)
