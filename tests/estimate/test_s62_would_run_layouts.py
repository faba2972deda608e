"""What a refused tensor-parallel split proposes instead: replicas first where the model fits one GPU,
tensor parallelism within one node, degrees past a node only where nothing else holds the model.

Regression: ``gpuscout estimate llama-3.1-8b --gpu H100 --gpus 64`` proposed, first, "tensor parallel
over 32 x H100-SXM (2.2 GiB per GPU)" for an 8B model that fits one GPU: four nodes of tensor parallelism
for a model nobody serves split at all.
"""

from __future__ import annotations

import re

from gpuscout.estimate.api import estimate
from gpuscout.estimate.parallel import NODE_GPUS, node_gpus, tp_head_conflict
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model


def _tp_degrees(would: str) -> list[int]:
    return [int(n) for n in re.findall(r"tensor parallel over (\d+) x", would)]


def test_an_8b_model_on_64_h100s_gets_replicas_first_and_no_tp_past_a_node() -> None:
    est = estimate("llama-3.1-8b", "H100", gpus=64)
    assert not est.supported and "tensor parallel size 64" in est.unsupported_reason
    would = est.assumptions["alternatives"]
    assert would.startswith("64 replicas of one H100-SXM (--parallel replicas")
    assert _tp_degrees(would) == [8]  # the nearest degree below 64 within the node, which the heads take
    assert tp_head_conflict(resolve_model("llama-3.1-8b"), "vllm", 8) == ""


def test_replicas_come_first_within_a_node_too() -> None:
    # 6 x H100: 32 heads do not divide by 6; the 8B fits one GPU
    would = estimate("llama-3.1-8b", "H100", gpus=6).assumptions["alternatives"]
    assert would.startswith("6 replicas of one H100-SXM")
    assert _tp_degrees(would) == [4, 8]


def test_a_model_that_needs_several_gpus_keeps_tp_first() -> None:
    # 70B bf16 does not fit one H100: the nearest degrees (2, 4) and the pipeline, no replicas
    would = estimate("llama-3.1-70b", "H100", gpus=3).assumptions["alternatives"]
    assert would.startswith("tensor parallel over 2 x H100-SXM") and "replicas" not in would
    assert _tp_degrees(would) == [2, 4]


def test_degrees_past_a_node_only_where_nothing_else_holds_the_model() -> None:
    # vLLM: 405B bf16 on 24 x H100 (128 heads do not divide by 24): TP 8 does not hold it, so the pipeline
    # over the 24 GPUs, not TP 16 / 32 across nodes
    vllm = estimate("llama-3.1-405b", "H100", gpus=24).assumptions["alternatives"]
    assert _tp_degrees(vllm) == [] and "pipeline parallel over 24 x H100-SXM" in vllm
    # TGI has no pipeline split: the degrees past the node are all that starts
    tgi = estimate("llama-3.1-405b", "H100", gpus=24, engine="tgi").assumptions["alternatives"]
    assert _tp_degrees(tgi) == [16, 32]


def test_node_sizes() -> None:
    assert node_gpus(resolve_gpu("H100-SXM")) == NODE_GPUS == 8
    assert node_gpus(resolve_gpu("MI300X")) == 8
    assert node_gpus(resolve_gpu("L4")) == 8  # a PCIe box
    assert node_gpus(resolve_gpu("A100-SXM4-80GB")) == 16  # the HGX A100 16-GPU board's one fabric
