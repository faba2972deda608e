"""SGLang's releases of December 2024 - February 2025 (0.4.0-0.4.3), the first to run DeepSeek-V3/R1, are
an era of their own: their MoE layers cost several times those of 0.4.6 and later. The era is read from
the patch version in the engine name; a bare ``major.minor`` keeps meaning the eras it meant before."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine

TODAY = resolve_engine("sglang")
EARLY = resolve_engine("sglang 0.4.3")


@pytest.mark.parametrize(
    ("name", "era"),
    [
        ("sglang", ""),
        ("sglang 0.4", ""),  # a minor version alone does not name the early patches
        ("SGLang 0.4.6.post1", "0.4.4-0.4.x"),  # its MoE figures are its rows' (stop 72)
        ("sglang 0.4.10", "0.4.4-0.4.x"),
        ("sglang 0.5.14", ""),
        ("sglang 0.4.0", "0.4.0-0.4.3"),
        ("SGLang 0.4.2.post4 ROCm", "0.4.0-0.4.3"),
        ("SGLang 0.4.3.post2 (--tp 8 --enable-dp-attention)", "0.4.0-0.4.3+dp-attention"),
        ("sglang 0.3.6", "0.3"),
        # the eras of other engines still match on major.minor when a patch is given
        ("vLLM 0.6.3", "v0"),
        ("vllm 0.6.3.post1", "v0"),
        ("vllm 0.8.5", ""),
        ("TGI 1.0.3", "1.x"),
        ("TGI 2.4.1", "2.x"),
    ],
)
def test_the_era_is_read_from_the_patch_version(name: str, era: str) -> None:
    assert resolve_engine(name).era == era


def test_the_early_era_changes_the_moe_constants_and_its_block_fp8_kernels_only() -> None:
    """Its MoE layers cost more, and its block-FP8 GEMMs (Triton, before DeepGEMM) ran at a share of
    today's figures; every other kernel family keeps today's efficiencies."""
    assert EARLY.moe_layer_overhead_us > 3 * TODAY.moe_layer_overhead_us
    scale = next(e for e in TODAY.eras if e.name == "0.4.0-0.4.3").kernel_scales["fp8-block"]
    assert 0.3 < scale < 1.0
    assert EARLY.bandwidth_eff("fp8-block") == pytest.approx(scale * TODAY.bandwidth_eff("fp8-block"))
    assert EARLY.compute_eff("fp8-block") == pytest.approx(scale * TODAY.compute_eff("fp8-block"))
    for cls in ("16bit", "fp8", "weight-only", "default"):
        assert EARLY.bandwidth_eff(cls) == TODAY.bandwidth_eff(cls), cls
        assert EARLY.compute_eff(cls) == TODAY.compute_eff(cls), cls
    assert EARLY.step_overhead_us == TODAY.step_overhead_us


def test_a_dense_model_runs_the_same_in_both() -> None:
    kw = dict(gpu="H100", precision="bf16", context_in=512, context_out=256)
    today = estimate("llama-3.1-8b", engine="sglang", **kw)  # type: ignore[arg-type]
    early = estimate("llama-3.1-8b", engine="sglang 0.4.3", **kw)  # type: ignore[arg-type]
    assert early.decode_tokens_per_s == today.decode_tokens_per_s
    assert early.prefill_tokens_per_s == today.prefill_tokens_per_s


def test_each_moe_layer_pays_the_era_cost() -> None:
    """Qwen3-30B-A3B (48 MoE layers) at batch 1: with the experts run at the same shares of bandwidth and
    compute, each token at the early era's MoE-layer cost takes 48 x the difference longer."""
    # host time in series with the GPU's (not blended with it), so the costs add up exactly
    base = dataclasses.replace(TODAY, cpu_overlap=False)
    early = dataclasses.replace(base, moe_layer_overhead_us=EARLY.moe_layer_overhead_us)
    kw = dict(gpu="H100", precision="bf16", context_in=0, context_out=128)
    today = estimate("qwen3-30b-a3b", engine=base, **kw)  # type: ignore[arg-type]
    past = estimate("qwen3-30b-a3b", engine=early, **kw)  # type: ignore[arg-type]
    extra_us = 1e6 / past.decode_tokens_per_s - 1e6 / today.decode_tokens_per_s
    per_layer_us = EARLY.moe_layer_overhead_us - TODAY.moe_layer_overhead_us
    assert extra_us == pytest.approx(48 * per_layer_us, rel=1e-6)
