"""A pipeline runs at the pace of its fullest stage of whole layers: ceil(layers / pp).

Assumptions the expected figures rest on (each worked out from the model's structure, none read back):

- A stage holds whole decoder layers. Llama-3.1-70B's 80 layers on PP 3 are split 27, 27, 26; in 1F1B
  every stage waits for its neighbours, so each micro-batch, and the (pp - 1) micro-batch times of the
  bubble, take as long as on a stage of 27 layers (not 80 / 3 = 26.67).
- Llama's decoder layers are all alike (full causal attention, same widths), so one micro-batch on a
  stage costs ``its layers x the per-layer cost + what the model charges to the timed stage whatever
  its layer count`` (the lm_head GEMM and the loss, the pipeline hand-off, the embedding / lm_head
  weights in the optimizer step): an affine function of the stage's layer count. Attention has no such
  end term: it is proportional to the layers.
- Hence: attention time on PP 3 is 27 / 20 of PP 4's; every other figure on PP 3 lies on the line
  through PP 2 (40 layers a stage) and PP 4 (20) at 27 layers; and a model of 79, 80 or 81 such layers
  (27 on the fullest stage of PP 3 each) trains at one pace on PP 3. The memory model spreads the final
  norm (8,192 parameters) over the layers, a difference of under 1e-7 between those three.

Setup: pre-training on nodes of 8 H200, TP 8 inside a node, PP across nodes, no data parallelism.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.training import TrainingEstimate, estimate_training
from gpuscout.estimate.training_speed import KERNELS_PER_LAYER, NORMS_PER_LAYER
from gpuscout.knowledge.model_types import ModelSpec
from tests.estimate.training_specs import LLAMA31_8B, LLAMA31_70B

STEP_PARTS = ("gemm", "attention", "memory_bound", "communication")


def pretrain(spec: ModelSpec, pp: int) -> TrainingEstimate:
    return estimate_training(
        spec,
        "H200-SXM",
        gpus=8,
        nodes=pp,
        method="pretrain",
        tp=8,
        pp=pp,
        grad_accum=16,
        seq_len=4096,
        sharding="zero1",
    )


def with_layers(spec: ModelSpec, layers: int) -> ModelSpec:
    return dataclasses.replace(spec, num_hidden_layers=layers)


def on_the_line(layers: float, at: tuple[float, float], other: tuple[float, float]) -> float:
    """The value at ``layers`` of the line through (layers, value) points ``at`` and ``other``."""
    (l1, v1), (l2, v2) = at, other
    return v1 + (layers - l1) * (v2 - v1) / (l2 - l1)


def test_attention_time_follows_the_fullest_stage_layer_count() -> None:
    assert LLAMA31_70B.num_hidden_layers == 80  # Meta's config.json; 27, 40 and 20 below are of 80
    pp3, pp4, pp2 = (pretrain(LLAMA31_70B, pp).step_breakdown_s["attention"] for pp in (3, 4, 2))
    assert pp3 / pp4 == pytest.approx(27 / 20)  # 26.67 / 20 before
    assert pp3 / pp2 == pytest.approx(27 / 40)


def test_pp3_step_lies_on_the_line_through_the_even_splits_at_27_layers() -> None:
    runs = {pp: pretrain(LLAMA31_70B, pp) for pp in (2, 3, 4)}
    stage = {2: 40, 4: 20}
    parts = {
        pp: {
            **{k: e.step_breakdown_s[k] for k in STEP_PARTS},
            "bubble_per_stage": e.step_breakdown_s["pipeline_bubble"] / (pp - 1),
        }
        for pp, e in runs.items()
    }
    expected = {k: on_the_line(27, (stage[2], parts[2][k]), (stage[4], parts[4][k])) for k in parts[2]}
    for k, value in expected.items():
        assert parts[3][k] == pytest.approx(value, rel=1e-9), k
    # the step: the parts plus 2 micro-batch times of bubble; the same tokens per step (dp 1)
    step = sum(expected[k] for k in STEP_PARTS) + 2 * expected["bubble_per_stage"]
    assert runs[3].tokens_per_step == runs[4].tokens_per_step == 16 * 4096
    assert runs[3].step_breakdown_s["host"] == 0.0
    assert runs[3].tokens_per_s == pytest.approx(runs[3].tokens_per_step / step, rel=1e-9)


@pytest.mark.parametrize(
    ("spec", "pp", "layer_counts"),
    [
        (LLAMA31_70B, 3, (79, 80, 81)),  # 27 on the fullest stage each: 27+26+26, 27+27+26, 27x3
        (LLAMA31_8B, 5, (31, 32, 35)),  # 7 each: 7+6x4, 7+7+6+6+6, 7x5
    ],
)
def test_models_with_the_same_fullest_stage_train_at_one_pace(
    spec: ModelSpec, pp: int, layer_counts: tuple[int, ...]
) -> None:
    assert len({math.ceil(n / pp) for n in layer_counts}) == 1
    runs = [pretrain(with_layers(spec, n), pp) for n in layer_counts]
    first = runs[0]
    for e in runs[1:]:
        assert e.tokens_per_s == pytest.approx(first.tokens_per_s)  # 1-13 % apart at layers / pp
        assert e.step_breakdown_s["pipeline_bubble"] == pytest.approx(
            first.step_breakdown_s["pipeline_bubble"]
        )


def test_host_bound_counts_are_those_of_the_fullest_stage() -> None:
    # ZeRO-3 on short sequences is host bound: per micro-step the host launches KERNELS_PER_LAYER
    # kernels a layer forward, twice that backward, once more recomputing (full checkpointing), for
    # 27 layers; and runs hooks on each module with weights: 7 linear layers (q, k, v, o, gate, up,
    # down) and 2 norms a layer, 27 layers, 27/80 of the final norm, the embedding and the lm_head.
    est = estimate_training(
        LLAMA31_70B, "H200-SXM", gpus=8, nodes=3, method="full", tp=8, pp=3, sharding="zero3"
    )
    launches = KERNELS_PER_LAYER * (1 + 2 + 1) * 27
    modules = (7 + NORMS_PER_LAYER) * 27 + 27 / 80 + 2
    assert f"host-bound: {launches:.0f} kernel launches" in est.assumptions["speed_launch"]
    assert f"release {modules:.0f} modules" in est.assumptions["speed_zero3_hooks"]


@pytest.mark.parametrize("pp", [33, 64])
def test_estimate_training_refuses_a_pp_above_the_layers_naming_pp(pp: int) -> None:
    with pytest.raises(ConfigurationRejected) as err:
        estimate_training(LLAMA31_8B, "H100", gpus=pp, method="full", pp=pp)
    assert err.value.field == "pp"  # the argument the caller set
    assert err.value.accepted == "1..32"
    said = f"pipeline parallel {pp} leaves a stage without a layer: llama-3.1-8b has 32 layers"
    assert said in str(err.value)
