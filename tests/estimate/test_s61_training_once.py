"""A training estimate works out its setup's FLOPs and validates its setup once (it reported the FLOPs
and timed the step from two computations of them, and checked the setup twice), and the per-model
figures it reads many times (LoRA's adapted matrices, attention FLOPs) are computed once per model."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate import training, training_memory, training_speed
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.layout import ModelLayout, model_layout
from gpuscout.knowledge.models import resolve_model


def _counted(monkeypatch: pytest.MonkeyPatch, calls: Counter[str], module: Any, name: str) -> None:
    real = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)


@pytest.mark.parametrize("method", ["lora", "qlora", "full"])
def test_one_estimate_computes_its_flops_and_checks_its_setup_once(
    monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    calls: Counter[str] = Counter()
    for module in (training, training_speed):
        _counted(monkeypatch, calls, module, "training_flops")
    for module in (training, training_memory):
        _counted(monkeypatch, calls, module, "validate_setup")
    gpus = 8 if method == "full" else 1
    e = estimate_training(
        resolve_model("llama-3.1-8b"), resolve_gpu("H100-SXM"), gpus=gpus, method=method, seq_len=2048
    )
    assert e.tokens_per_s > 0
    assert calls == {"training_flops": 1, "validate_setup": 1}


def test_a_layout_keeps_its_derived_figures_and_hashes_as_its_fields() -> None:
    spec = resolve_model("mixtral-8x7b")
    layout = model_layout(spec)
    again = ModelLayout(layout.groups, layout.mtp, layout.fused_experts)  # built anew: equal, same hash
    assert again == layout and hash(again) == hash(layout)
    assert again.linear == tuple(
        g for g in layout.groups if g.matrix and g.part not in ("embedding", "lm_head")
    )
    assert ModelLayout(layout.groups[:-1]) != layout
    # LoRA's adapted matrices: computed once per layout and target set, the same answer either way
    first = training_memory.lora_groups(layout, "all-linear")
    assert training_memory.lora_groups(again, "all-linear") is first
    assert training_memory.lora_groups(layout, "attn") != first
    with pytest.raises(InvalidInputError, match="unknown target set"):
        training_memory.lora_groups(layout, "nonsense")
