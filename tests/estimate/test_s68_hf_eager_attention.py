"""HF transformers runs Gemma 2 and gpt-oss with eager attention by default (stop 68; read in transformers
5.25.0: ``_supports_sdpa = False`` in their modeling files, and ``get_correct_attn_implementation`` falls back
from the default SDPA to eager). Every prompt's score matrix goes through memory, and one layer's is held at
once: 6 bytes a score (the bf16 scores and their fp32 softmax).

Hand check, Gemma 2 9B (16 heads) on one GPU, a 7,900-token prompt and 200 output tokens: the static batch
prefills its prompt in one pass, so the scores held are 16 x 7,900 x 8,100 x 6 B = 6.14 GB, on top of what
the FlashAttention-2 path holds. On a 24 GB A10G beside 18.5 GB of bf16 weights that does not fit; a
1,000-token prompt does.
"""

from __future__ import annotations

import pytest

from gpuscout import estimate


def _hf(model: str, gpu: str, prompt: int, engine: str = "hf-transformers"):  # type: ignore[no-untyped-def]
    return estimate(model, gpu, engine=engine, context_in=prompt, context_out=200)


def test_gemma2_eager_scores_are_held_by_hand() -> None:
    eager = _hf("gemma-2-9b", "A100-SXM4-80GB", 7900)
    fused = _hf("gemma-2-9b", "A100-SXM4-80GB", 7900, "hf-transformers flash-attention-2")
    held = 16 * 7900 * 8100 * 6.0 / 1e9
    assert eager.memory.activations_gb - fused.memory.activations_gb == pytest.approx(held, rel=0.01)
    assert any("runs gemma-2-9b's attention eagerly" in w and "softcapping" in w for w in eager.warnings)
    # the score matrix through memory makes the prompt slower than the fused kernel
    assert eager.ttft_ms > 1.3 * fused.ttft_ms


def test_a_long_gemma2_prompt_no_longer_fits_an_a10g() -> None:
    assert not _hf("gemma-2-9b", "A10G", 7900).fits
    assert _hf("gemma-2-9b", "A10G", 1000).fits


def test_gpt_oss_is_eager_too_and_other_models_and_engines_are_not() -> None:
    oss = _hf("gpt-oss-20b", "A100-SXM4-80GB", 8000)
    assert any("attention sinks" in w for w in oss.warnings)
    # 64 query heads: 64 x 8,000 x 8,200 x 6 B = 25.2 GB of scores held
    assert oss.memory.activations_gb > 25.0
    for model, engine in (
        ("llama-3.1-8b", "hf-transformers"),
        ("gemma-2-9b", "vllm"),
        ("gemma-2-9b", "hf-transformers 4.44"),
    ):
        est = _hf(model, "A100-SXM4-80GB", 4000, engine)
        assert not any("eagerly" in w for w in est.warnings), (model, engine)
        assert est.memory.activations_gb < 2.0


def test_a_training_estimate_with_flash_attention_says_what_hf_runs_for_them() -> None:
    from gpuscout.estimate.training import estimate_training

    said = estimate_training("gpt-oss-20b", "H100", method="lora", seq_len=4096)
    assert any("runs eager attention unless told otherwise" in w for w in said.warnings)
    eager = estimate_training("gpt-oss-20b", "H100", method="lora", seq_len=4096, attention="eager")
    assert not any("unless told otherwise" in w for w in eager.warnings)
    assert eager.memory.total_gb > said.memory.total_gb  # the kept scores of the recomputed layer
    plain = estimate_training("llama-3.1-8b", "H100", method="lora", seq_len=4096)
    assert not any("unless told otherwise" in w for w in plain.warnings)
