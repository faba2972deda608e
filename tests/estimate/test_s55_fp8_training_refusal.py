"""FP8 training refused on a GPU without FP8 tensor cores offers the 16-bit precision the GPU computes in:
fp16 where it has no bfloat16 (V100, T4: the tool says so elsewhere), bf16 where it has."""

from __future__ import annotations

import pytest

from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.precision import has_bf16
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.accelerators import resolve_gpu


@pytest.mark.parametrize(("gpu", "sixteen"), [("V100", "fp16"), ("T4", "fp16"), ("A100", "bf16")])
def test_fp8_training_refusal_offers_the_gpus_own_16_bit_precision(gpu: str, sixteen: str) -> None:
    assert has_bf16(resolve_gpu(gpu)) == (sixteen == "bf16")  # the rule the refusal follows
    with pytest.raises(ConfigurationRejected) as refused:
        estimate_training("llama-3.2-1b", gpu, method="full", precision="fp8")
    assert refused.value.field == "gpu"
    assert refused.value.accepted == f"precision {sixteen} on this GPU, or a GPU with FP8 tensor cores"


@pytest.mark.parametrize("gpu", ["V100", "P100"])
def test_int8_lora_refusal_offers_fp16_below_bf16(gpu: str) -> None:
    """LLM.int8() needs compute capability 7.5+; below it no GPU has bf16 either (8.0+): fp16 is what runs."""
    assert not has_bf16(resolve_gpu(gpu))
    with pytest.raises(ConfigurationRejected) as refused:
        estimate_training("llama-3.1-8b", gpu, method="lora", precision="int8")
    assert refused.value.accepted is not None
    assert "precision fp16" in refused.value.accepted and "precision bf16" not in refused.value.accepted
