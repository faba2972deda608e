"""`gpuscout transcribe`: the Whisper estimate (estimate/transcription.py) reached from the command line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.transcription import estimate_transcription

runner = CliRunner()


def test_json_is_the_estimate() -> None:
    result = runner.invoke(
        app,
        ["transcribe", "whisper-large-v3", "--gpu", "H100", "--audio-hours", "2", "--batch", "8", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    expected = estimate_transcription("whisper-large-v3", "H100", audio_s=7200.0, batch=8)
    assert data["realtime_factor"] == expected.realtime_factor and data["seconds"] == expected.seconds
    assert data["fits"] and data["gpu"] == "H100-SXM" and data["warnings"]  # flagged as a prior


def test_table_states_speed_assumptions_and_warnings() -> None:
    result = runner.invoke(
        app, ["transcribe", "whisper-large-v3", "--gpu", "L4", "--engine", "faster-whisper"]
    )
    assert result.exit_code == 0, result.output
    # the speed's caveat says what it is calibrated on (stop 62: one constant fitted on recalled README
    # figures; it said "uncalibrated", no longer true of faster-whisper)
    for part in ("real-time factor", "memory", "windows", "fitted on 4 recalled", "priors"):
        assert part in " ".join(result.output.split())


def test_a_language_model_is_refused_naming_the_field() -> None:
    result = runner.invoke(app, ["transcribe", "llama-3.1-8b", "--gpu", "H100"])
    assert result.exit_code == 2 and "model" in result.output and "Whisper" in result.output


def test_the_python_api_exposes_it() -> None:
    import gpuscout

    assert gpuscout.estimate_transcription is estimate_transcription
