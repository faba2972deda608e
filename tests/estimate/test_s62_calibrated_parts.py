"""A speed is calibrated only where the calibration set covers the GPU's generation and every figure the
estimate leans on for its engine (and era): one decision with the ``uncalibrated`` assumption.

Regression: ``recommend serve deepseek-v3 -c 32`` labelled 8x H200 under vLLM ``speed_calibrated`` (no
warning; the picks line named it as the calibrated alternative to a B200) while the same row's
assumptions said "uncalibrated: moe_layer_overhead_us, fp8-block bandwidth and compute efficiency: not
calibrated"; gpt-oss-120b's MXFP4 experts (dequantised on an RTX 3090) likewise. The label read only
the GPU's generation (``calibration_coverage.speed_calibrated``).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.offer import Interconnect
from gpuscout.estimate.api import estimate
from tests.advise.helpers import offer

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def test_deepseek_v3_on_8x_h200_under_vllm_is_not_labelled_calibrated() -> None:
    e = estimate("deepseek-v3", "H200", gpus=8, precision="fp8-block", batch=32)
    assert "fp8-block" in e.assumptions["uncalibrated"]  # the row's own assumptions
    assert not e.speed_calibrated
    # its MoE layers' constants are measured kernel times (stop 72), its block-FP8 GEMMs are not
    assert e.uncalibrated == ("fp8-block kernels",)
    said = [w for w in e.warnings if "not calibrated for" in w]
    assert said == [
        "speed not calibrated for vLLM (V1 engine)'s fp8-block kernels: no calibration row "
        "covers them (priors, or the engine's nearest fitted figure; see the uncalibrated assumption)"
    ]


def test_todays_vllm_moe_layers_are_measured_not_priors() -> None:
    """vLLM V1's MoE streaming share and per-layer cost come from its kernel tables
    (tests/estimate/test_s72_vllm_moe_kernels.py): a bf16 MoE model on an H100 is calibrated, and the MoE
    assumption says where its figures come from."""
    e = estimate("qwen3-30b-a3b", "H100", precision="bf16")
    assert e.speed_calibrated and not e.uncalibrated
    assert "vLLM 0.24.0's fused-MoE kernel times" in e.assumptions["moe"]
    # the V0 era's figures are fitted on its rows: no source named
    old = estimate("mixtral-8x7b", "H100", gpus=2, engine="vllm 0.6.3").assumptions["moe"]
    assert "expert weight reads at 0.52" in old and "kernel times" not in old


@pytest.mark.parametrize(
    ("model", "gpu", "kw"),
    [
        ("deepseek-v3", "H200", {"gpus": 8, "precision": "fp8-block", "batch": 1}),
        ("deepseek-r1", "H200", {"gpus": 8, "precision": "fp8-block", "batch": 4, "context_in": 3200}),
        ("gpt-oss-120b", "RTX3090", {"gpus": 4}),
        ("llama-3.1-8b", "H100", {"precision": "fp8"}),  # vLLM's FP8 efficiencies are not fitted
    ],
)
def test_an_estimate_listing_uncalibrated_parts_is_not_calibrated(model: str, gpu: str, kw: dict) -> None:
    e = estimate(model, gpu, **kw)
    assert "uncalibrated" in e.assumptions and e.uncalibrated
    assert not e.speed_calibrated


@pytest.mark.parametrize(
    ("model", "gpu", "kw"),
    [
        ("llama-3.1-8b", "H100", {"precision": "bf16"}),
        ("llama-3.1-8b", "L40S", {"precision": "bf16"}),
        ("llama-3.1-8b", "RTX4090", {"precision": "awq"}),
        ("llama-3.1-70b", "A100-SXM4-80GB", {"precision": "bf16", "gpus": 2}),
        ("llama-3.1-70b", "A100-SXM4-80GB", {"precision": "awq"}),
        ("llama-3.1-8b", "RTX4090", {"engine": "llama.cpp", "precision": "q4_k_m"}),
        ("llama-3.1-8b", "H100", {"engine": "sglang", "precision": "bf16"}),
        ("deepseek-v3", "H200", {"gpus": 8, "precision": "fp8-block", "engine": "sglang", "batch": 32}),
        # its MoE compute share, a prior until stop 76, is its measured kernels' too
        ("qwen3-30b-a3b", "H100", {"precision": "bf16", "engine": "tensorrt-llm"}),
    ],
)
def test_a_covered_case_stays_calibrated(model: str, gpu: str, kw: dict) -> None:
    e = estimate(model, gpu, **kw)
    assert "uncalibrated" not in e.assumptions and e.uncalibrated == ()
    assert e.speed_calibrated and not [w for w in e.warnings if "calibrat" in w]


def test_the_pick_says_what_is_uncalibrated_on_a_measured_gpu() -> None:
    # 8x H200 (a measured generation) is the only offer: its pick's caveat names the FP8 part
    nvlink = Interconnect.NVLINK
    offers = [offer("p", "H200-SXM", 8, 20.0, memory=141.0, instance="8x-H200", interconnect=nvlink)]
    w = Workload.from_dict({"kind": "serve", "model": "deepseek-v3", "concurrency": 32})
    answer = advise(w, offers, now=NOW, top=None)
    assert answer.rows and answer.rows[0].estimate is not None
    assert not answer.rows[0].estimate.speed_calibrated
    assert answer.uncalibrated_picks[0].text == (
        "speed uncalibrated for H200-SXM serving: fp8-block kernels; no calibrated row"
    )
