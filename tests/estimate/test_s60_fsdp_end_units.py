"""ZeRO-3 / FSDP gather the embedding and the lm_head too, not only decoder layers.

Llama-3.1-8B's untied lm_head (128256 x 4096 = 525M parameters) is 2.4 decoder layers (218M). With each
decoder layer, the embedding and the lm_head wrapped as FSDP units of their own (torchtune's
custom_sharded_layers, torchtitan), the lm_head's backward holds the gathered lm_head, its unsharded
gradient and the prefetched last layer: the working set is max(2L, E + L) parameters and max(L, E)
gradients. Every expected figure is worked out here from the config numbers.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.training_memory import TrainingSetup, training_memory
from gpuscout.knowledge.model_types import ModelSpec
from tests.estimate.training_specs import LLAMA2_7B, LLAMA31_8B

BIG = 10_000.0  # GB: nothing spills
H, VOCAB, LAYERS, MLP, KV = 4096, 128256, 32, 14336, 8 * 128
LAYER = 2 * H * H + 2 * H * KV + 3 * H * MLP + 2 * H  # q, o, k, v, gate/up/down, two norms: 218.1M
END = VOCAB * H  # the embedding, and the untied lm_head: 525.3M
TOTAL = LAYERS * LAYER + 2 * END + H  # + the final norm


def mem(spec: ModelSpec, **kw: object):  # type: ignore[no-untyped-def]
    return training_memory(spec, TrainingSetup(**kw), BIG)  # type: ignore[arg-type]


def test_the_config_numbers_are_the_layout() -> None:
    assert abs(LAYER - 218.1e6) < 0.1e6
    assert abs(END / LAYER - 2.41) < 0.01
    assert mem(LLAMA31_8B, method="full").total_params == TOTAL


def test_full_fsdp_gathers_the_lm_head_beside_a_layer() -> None:
    m = mem(LLAMA31_8B, method="full", world=8, sharding="fsdp").breakdown
    # bf16 weights: the shard, plus the lm_head and the prefetched layer (not two layers)
    assert m.weights_gb * 1e9 == pytest.approx(2 * (TOTAL / 8 + END + LAYER))
    # bf16 gradients: the shard, plus the lm_head's unsharded gradient (not one layer's)
    assert m.gradients_gb * 1e9 == pytest.approx(2 * (TOTAL / 8 + END))


def test_cpu_offload_still_gathers_the_lm_head_on_the_gpu() -> None:
    m = mem(LLAMA31_8B, method="full", world=8, sharding="zero3", cpu_offload=True).breakdown
    assert m.weights_gb * 1e9 == pytest.approx(2 * (END + LAYER))
    assert m.gradients_gb * 1e9 == pytest.approx(2 * END)


def test_a_model_whose_layers_outweigh_its_ends_keeps_two_layers() -> None:
    # Llama 2 7B: a 32000-entry vocabulary (131M) under a 202M layer: two layers and one layer's gradient
    h, layer = 4096, 2 * 4096 * 4096 * 2 + 3 * 4096 * 11008 + 2 * 4096
    total = 32 * layer + 2 * 32000 * h + h
    m = mem(LLAMA2_7B, method="full", world=8, sharding="fsdp").breakdown
    assert m.weights_gb * 1e9 == pytest.approx(2 * (total / 8 + 2 * layer))
    assert m.gradients_gb * 1e9 == pytest.approx(2 * (total / 8 + layer))


def test_lora_fsdp_gathers_the_frozen_lm_head() -> None:
    # bf16 base, no gradient for the frozen lm_head: its gathered copy beside the prefetched layer
    m = mem(LLAMA31_8B, method="lora", world=8, sharding="fsdp").breakdown
    assert m.weights_gb * 1e9 == pytest.approx(2 * (TOTAL / 8 + END + LAYER))
    assert m.gradients_gb == 0


def test_the_root_wrapped_layout_is_said_with_its_extra() -> None:
    m = mem(LLAMA31_8B, method="full", world=8, sharding="fsdp")
    # root unit: embedding + lm_head gathered through the backward pass, two layers, the lm_head's and one
    # layer's gradient; less the separately wrapped peak
    extra = 2 * (2 * END + 2 * LAYER) + 2 * (END + LAYER) - (2 * (END + LAYER) + 2 * END)
    assert f"{extra / 2**30:.1f} GiB more" in m.assumptions["fsdp_units"]
    assert "Accelerate" in m.assumptions["fsdp_units"]


def test_the_reviewers_8_x_rtx4090_case() -> None:
    out = CliRunner().invoke(
        app,
        ["vram", "llama-3.1-8b", "--task", "full", "--context", "4096", "--gpus", "8", "--gpu", "RTX4090"],
        terminal_width=200,
    )
    assert out.exit_code == 0, out.output
    total = next(line for line in out.output.splitlines() if "total" in line)
    assert float(total.split("│")[2]) == pytest.approx(22.1, abs=0.05)  # 20.90 GiB before
