"""HF transformers 5.x runs an MoE layer's experts as grouped GEMMs (its default experts implementation on
CUDA SM80+); 4.x visited them one by one in a Python loop, the cost the calibration rows (4.38.2, 4.51.3)
fit per expert and layer. A version in the engine's name picks the era; no version is today's release."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine

LOOP = resolve_engine("transformers 4.51").expert_loop_us


@pytest.mark.parametrize(
    ("text", "era"),
    [
        ("transformers", ""),
        ("hf 5.17", ""),
        ("transformers 4.51", "4.x"),
        ("HF transformers 4.38.2 (generate, flash-attention 2.5.6)", "4.x+flash-attention-2"),
        ("AutoAWQ 0.1.6", ""),  # AutoAWQ's own version is not a transformers release
    ],
)
def test_the_era_is_read_from_the_version(text: str, era: str) -> None:
    assert resolve_engine(text).era == era


def test_todays_release_has_no_expert_loop_and_says_its_expert_streaming_is_a_prior() -> None:
    """5.x's grouped-GEMM experts: their compute share is fitted (benchmarks/gpu_measure.py's Qwen3-30B-A3B
    prefill rows on an H200), their weight streaming is not (decode there is host-bound)."""
    assert resolve_engine("transformers").expert_loop_us == 0.0
    assert LOOP > 0.0
    e = estimate("qwen3-30b-a3b", "H200", engine="transformers", batch=1, context_in=128, context_out=256)
    assert "moe_efficiency" in e.assumptions["uncalibrated"]
    assert "moe_compute_efficiency" not in e.assumptions["uncalibrated"]


def test_the_4x_loop_costs_every_expert_of_every_layer() -> None:
    """Qwen3-30B-A3B: 48 MoE layers x 128 experts x the fitted cost per visit, on the host, every token;
    today's release pays none of it (its routing and grouped GEMMs are launched with the layer). Both on
    the FlashAttention-2 path (4.x's, and the variant of today's), so that the loop is the difference."""
    kw = dict(batch=1, context_in=128, context_out=256)
    old = estimate("qwen3-30b-a3b", "H200", engine="transformers 4.51", **kw)
    new = estimate("qwen3-30b-a3b", "H200", engine="transformers flash-attention", **kw)
    loop_s = 48 * 128 * LOOP * 1e-6
    assert 1.0 / old.decode_tokens_per_s > loop_s
    assert 1.0 / old.decode_tokens_per_s - 1.0 / new.decode_tokens_per_s == pytest.approx(loop_s, rel=0.05)
    # a dense model is the same in both
    dense_old = estimate("llama-3.1-8b", "H200", engine="transformers 4.51", **kw)
    dense_new = estimate("llama-3.1-8b", "H200", engine="transformers flash-attention", **kw)
    assert dense_old.decode_tokens_per_s == pytest.approx(dense_new.decode_tokens_per_s)
