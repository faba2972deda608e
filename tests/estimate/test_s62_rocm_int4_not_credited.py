"""A weight-only format on an AMD GPU is timed as its 16-bit checkpoint: no faster than bf16.

vLLM on ROCm runs AWQ through the Triton AWQ fallback and GPTQ / 8-bit GPTQ through Triton or HIP
kernels, not Marlin; no calibration row runs a weight-only format on an AMD GPU under vLLM, SGLang, TGI
or HF transformers, and no profile has an efficiency for a non-Marlin weight-only kernel to stand in. The
estimate timed those kernels at Marlin's fitted efficiency on a quarter of the bytes.

Regression: ``gpuscout estimate llama-3.1-8b --gpu MI300X --precision awq`` gave 531.4 tokens/s per
sequence, 2.6x the bf16 estimate on the same card (205) and faster than Marlin on an H100 (375); the
advisor ranked AMD offers on it.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate


@pytest.mark.parametrize(
    ("engine", "precision"),
    [("vllm", "awq"), ("vllm", "gptq"), ("vllm", "int8"), ("sglang", "awq"), ("tgi", "gptq")],
)
@pytest.mark.parametrize("batch", [1, 64])
def test_no_faster_than_bf16_on_mi300x(engine: str, precision: str, batch: int) -> None:
    bf16 = estimate("llama-3.1-8b", "MI300X", precision="bf16", engine=engine, batch=batch)
    quant = estimate("llama-3.1-8b", "MI300X", precision=precision, engine=engine, batch=batch)
    assert quant.fits and quant.batch == bf16.batch  # TGI's router admits 63 of 64 (max_waiting_tokens)
    assert quant.decode_tokens_per_s <= bf16.decode_tokens_per_s * 1.001
    assert quant.output_tokens_per_s_total <= bf16.output_tokens_per_s_total * 1.001
    assert quant.prefill_tokens_per_s <= bf16.prefill_tokens_per_s * 1.001
    # memory is still the format's: its weights take well under the bf16 checkpoint's
    assert quant.memory.weights_gb < 0.7 * bf16.memory.weights_gb
    assert quant.speed_calibrated is False
    (warning,) = [w for w in quant.warnings if "is not calibrated" in w]
    assert "byte saving not credited" in warning and "no faster than BF16" in warning
    assert "timed as BF16 weights" in quant.assumptions["compute_class"]


def test_the_reviewed_command() -> None:
    # the reviewer's numbers: 531.4 tokens/s for AWQ, 205 for bf16 on the same MI300X
    awq = estimate("llama-3.1-8b", "MI300X", precision="awq")
    bf16 = estimate("llama-3.1-8b", "MI300X", precision="bf16")
    assert awq.decode_tokens_per_s == pytest.approx(bf16.decode_tokens_per_s, rel=0.01)
    assert "on AMD GPUs" in awq.assumptions["uncalibrated"]


def test_marlin_on_nvidia_keeps_its_byte_saving() -> None:
    # the calibrated path is untouched: Marlin on an H100 reads a quarter of the bytes
    awq = estimate("llama-3.1-8b", "H100-SXM", precision="awq")
    bf16 = estimate("llama-3.1-8b", "H100-SXM", precision="bf16")
    assert awq.decode_tokens_per_s > 2.0 * bf16.decode_tokens_per_s
    assert awq.speed_calibrated is True
    assert not [w for w in awq.warnings if "byte saving" in w]
    assert awq.assumptions["compute_class"] == "weight-only"
