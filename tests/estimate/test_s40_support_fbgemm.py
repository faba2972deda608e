"""Meta's FBGEMM FP8 checkpoints (fp8-ffn) are judged by their own gates, not by the other FP8 formats':
transformers' FBGEMM FP8 raises unless CC >= 9.0, vLLM's fbgemm_fp8 needs CC 8.0 (reference matrix,
``tests/fixtures/reference/engine_support.csv``: "FBGEMM FP8" rows). A name of Meta's own FP8 checkpoint is
sized as that format, which keeps attention and the first and last layers in bf16.
"""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.support import can_run

HF_FBGEMM = "https://github.com/huggingface/transformers/blob/v5.24.0/src/transformers/quantizers/quantizer_fbgemm_fp8.py"
VLLM_FBGEMM = (
    "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/model_executor/layers/quantization/fbgemm_fp8.py"
)
META_405B_FP8 = "meta-llama/Llama-3.1-405B-Instruct-FP8"


@pytest.mark.parametrize("spelling", ["fp8-ffn", "fbgemm_fp8", "fbgemm-fp8"])
def test_transformers_refuses_fbgemm_fp8_below_hopper(spelling: str) -> None:
    """On an L40S (CC 8.9) transformers' FineGrained FP8 runs natively, but FBGEMM FP8 raises."""
    check = can_run("hf", spelling, "L40S")
    assert not check.supported
    assert check.verdict.tag == "sourced" and "9.0" in check.verdict.reason
    assert HF_FBGEMM in check.verdict.sources
    assert check.verdict.asked == "fp8 (FBGEMM)"
    assert can_run("hf", "fp8", "L40S").mode == "native"  # other FP8 checkpoints: unchanged


def test_transformers_runs_fbgemm_fp8_on_hopper() -> None:
    v = can_run("hf", "fp8-ffn", "H100").verdict
    assert v.mode == "native" and v.tag == "sourced" and "FBGEMM" in v.reason


@pytest.mark.parametrize("gpu", ["T4"])  # a V100 is refused by vLLM 0.34's Volta rule itself
def test_vllm_refuses_fbgemm_fp8_below_ampere(gpu: str) -> None:
    """vLLM's fbgemm_fp8 gate is CC 8.0, above FP8 Marlin's 7.5: a T4 runs other FP8 checkpoints
    weight-only, not this one."""
    check = can_run("vllm", "fp8-ffn", gpu)
    assert not check.supported
    assert check.verdict.reason.startswith("fbgemm_fp8")
    assert "8.0" in check.verdict.reason
    assert VLLM_FBGEMM in check.verdict.sources
    assert all(not (a.engine == "vllm" and a.precision == "fp8") for a in check.alternatives)
    assert can_run("vllm", "fp8", "T4").mode == "weight-only"  # other FP8 checkpoints: unchanged


@pytest.mark.parametrize(("gpu", "mode"), [("A100", "weight-only"), ("L40S", "native"), ("H100", "native")])
def test_vllm_runs_fbgemm_fp8_from_ampere_as_its_other_fp8(gpu: str, mode: str) -> None:
    assert can_run("vllm", "fp8-ffn", gpu).mode == mode == can_run("vllm", "fp8", gpu).mode


def test_estimate_refuses_meta_fp8_for_transformers_on_an_l40s() -> None:
    est = estimate(META_405B_FP8, "L40S", gpus=8, engine="hf")
    assert est.supported is False
    assert "FBGEMM" in est.unsupported_reason and "9.0" in est.unsupported_reason
    assert estimate(META_405B_FP8, "H100", gpus=8, engine="hf").supported is True


def test_meta_fp8_checkpoint_is_sized_with_bf16_attention() -> None:
    """The reviewer's case: Meta's 405B FP8 on 8 x H100 is fp8-ffn (about 487 GB of weights, attention and
    the first and last layers bf16), not all-linear fp8 (410 GB); a third party's all-linear FP8 of the same
    model stays fp8."""
    kw = {"gpus": 8, "batch": "max", "context_in": 2000, "context_out": 500}
    meta = estimate(META_405B_FP8, "H100", **kw)  # type: ignore[arg-type]
    asked = estimate("llama-3.1-405b", "H100", precision="fp8-ffn", **kw)  # type: ignore[arg-type]
    third = estimate("neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8", "H100", **kw)  # type: ignore[arg-type]
    assert meta.precision == "fp8-ffn" and third.precision == "fp8"
    assert meta.memory.weights_gb == pytest.approx(asked.memory.weights_gb)
    assert meta.memory.weights_gb * 8 == pytest.approx(487, rel=0.01)
    assert third.memory.weights_gb * 8 == pytest.approx(410, rel=0.01)
