"""Whisper's matmul rate says what it is: bf16 on a GPU without bf16 (T4) warns, as ``images`` does (the
rate's note was dropped); faster-whisper's int8 runs CTranslate2's int8 GEMMs at the INT8 tensor rate where
the table has one (it was timed at the 16-bit rate), and says it takes the 16-bit rate where not."""

from __future__ import annotations

import pytest

from gpuscout.estimate.transcription import COMPUTE_EFFICIENCY, estimate_transcription
from gpuscout.knowledge.accelerators import resolve_gpu


def test_bf16_on_a_t4_warns_that_it_runs_as_fp16() -> None:
    est = estimate_transcription("whisper-large-v3", "T4", precision="bf16")
    assert any("T4 has no BF16 support" in w for w in est.warnings), est.warnings
    # fp16 on the T4, and bf16 on a part that has it, say nothing of the kind
    assert not any("BF16" in w for w in estimate_transcription("whisper-large-v3", "T4").warnings)
    assert not any(
        "BF16" in w for w in estimate_transcription("whisper-large-v3", "A100", precision="bf16").warnings
    )


def _encoder_rate(est_gpu: str, **kw: str) -> float:
    """The matmul peak the estimate used, read back from its words ("40% of 130 TOPS")."""
    est = estimate_transcription("whisper-large-v3", est_gpu, **kw)
    words = est.assumptions["engine"]
    return float(words.split(f"{COMPUTE_EFFICIENCY:.0%} of ")[1].split()[0])


def test_faster_whisper_int8_runs_at_the_int8_tensor_rate() -> None:
    t4 = resolve_gpu("T4")
    assert t4.int8_tops == 130.0
    assert _encoder_rate("T4", precision="int8", engine="faster-whisper") == 130.0
    est = estimate_transcription(
        "whisper-large-v3", "T4", precision="int8", engine="faster-whisper", batch=16
    )
    fp16 = estimate_transcription(
        "whisper-large-v3", "T4", precision="fp16", engine="faster-whisper", batch=16
    )
    assert "TOPS" in est.assumptions["engine"]
    assert "INT8 tensor rate" in est.assumptions["matmuls"]
    # the encoder (compute-bound: 2 x params x 1500 frames per window) runs at twice the rate
    assert est.seconds < fp16.seconds
    # transformers runs int8 as bitsandbytes LLM.int8(): the 16-bit work, slowed (test_s60_whisper_llm_int8)
    assert _encoder_rate("T4", precision="int8", engine="transformers") == 65.0


def test_int8_without_an_int8_rate_says_it_takes_the_16_bit_one() -> None:
    assert resolve_gpu("A10G").int8_tops is None
    est = estimate_transcription("whisper-large-v3", "A10G", precision="int8", engine="faster-whisper")
    assert _encoder_rate("A10G", precision="int8", engine="faster-whisper") == pytest.approx(70.0)
    assert "16-bit rate" in est.assumptions["matmuls"] and "assumption" in est.assumptions["matmuls"]
