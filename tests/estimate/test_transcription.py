"""Whisper transcription: parameter split, batching, bad input (speed figures are uncalibrated priors)."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.transcription import estimate_transcription

FW = "faster-whisper"  # 30 s windows without overlap: an hour is 120 of them


def test_parameter_split_adds_up_to_the_model_card() -> None:
    est = estimate_transcription("whisper-large-v3", "A100")
    total = est.encoder_params + est.decoder_params
    assert total == pytest.approx(1.55e9, rel=0.01)
    assert est.encoder_params == pytest.approx(0.637e9, rel=0.01)
    assert est.memory.weights_gb == pytest.approx(total * 2 / 1e9)
    assert est.fits
    assert any("uncalibrated" in w for w in est.warnings)


def test_batching_windows_raises_the_realtime_factor() -> None:
    one = estimate_transcription("whisper-large-v3", "A100", batch=1)
    many = estimate_transcription("whisper-large-v3", "A100", batch=16)
    assert many.realtime_factor > 4 * one.realtime_factor
    assert many.memory.total_gb > one.memory.total_gb
    assert one.seconds == pytest.approx(3600 / one.realtime_factor)


def test_a_leaner_decode_loop_is_faster() -> None:
    hf = estimate_transcription("whisper-large-v3", "H100", engine="transformers")
    ct2 = estimate_transcription("whisper-large-v3", "H100", engine="faster-whisper")
    assert ct2.realtime_factor > hf.realtime_factor
    assert hf.bound == "overhead"


@pytest.mark.parametrize(
    ("field", "kw"),
    [
        ("audio_s", {"audio_s": 0}),
        ("batch", {"batch": 0}),
        ("engine", {"engine": "whisper.cpp"}),
        ("precision", {"precision": "q4_0"}),
        ("tokens_per_audio_s", {"tokens_per_audio_s": -1}),
    ],
)
def test_bad_input_names_the_field(field: str, kw: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate_transcription("whisper-large-v3", "A100", **kw)  # type: ignore[arg-type]
    assert err.value.field == field


def test_only_whisper_models() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate_transcription("llama-3.1-8b", "A100")
    assert err.value.field == "model"


def test_a_batch_larger_than_the_audio_runs_only_the_windows_there_are() -> None:
    # an hour of audio is 120 windows (faster-whisper: no overlap; transformers' 20 s strides make 180
    # chunks): a batch of 1024 was sized as 1024 windows in memory (367 GB)
    capped = estimate_transcription("whisper-large-v3", "T4", audio_s=3600, batch=1024, engine=FW)
    whole = estimate_transcription("whisper-large-v3", "T4", audio_s=3600, batch=120, engine=FW)
    assert capped.batch == 120
    assert capped.memory.total_gb == pytest.approx(whole.memory.total_gb)
    assert capped.seconds == pytest.approx(whole.seconds)
    assert "batch 1024 asked: only 120 windows" in capped.assumptions["windows"]
    assert "asked" not in whole.assumptions["windows"]


def test_fp32_whisper_runs_at_the_fp32_rate_not_tf32() -> None:
    # PyTorch leaves TF32 matmuls off by default: an A100's fp32 GEMMs run at 19.5 TFLOPS, not 156
    est = estimate_transcription("whisper-large-v3", "A100-SXM4-80GB", audio_s=3600, precision="fp32")
    assert "19.5 TFLOPS" in est.assumptions["engine"]


def test_the_last_partial_round_is_timed_at_its_own_size() -> None:
    # an hour is 120 windows (faster-whisper): at batch 119 the second round holds one window, not a
    # full batch of 119
    def seconds(batch: int) -> float:
        return estimate_transcription(
            "whisper-large-v3", "H100-SXM", audio_s=3600, batch=batch, engine=FW
        ).seconds

    # it was charged two full rounds (8.2 s against 4.1 s at batch 120); the lone window still decodes
    # its ~94 steps, each paying the engine's fixed per-step cost
    assert seconds(119) == pytest.approx(_round(119) + _round(1))
    assert seconds(119) < 1.6 * seconds(120)
    assert seconds(61) == pytest.approx(_round(61) + _round(59))


def _round(batch: int) -> float:
    """One round of ``batch`` windows: the estimate of exactly that many windows (30 s each)."""
    return estimate_transcription(
        "whisper-large-v3", "H100-SXM", audio_s=30 * batch, batch=batch, engine=FW
    ).seconds
