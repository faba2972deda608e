"""`gpuscout transcribe`, renter review s46: "real-time factor 15.1x" read as the inverse of the usual ASR
meaning (RTF < 1 is faster than real time); the output now says "15.1x faster than real time (RTFx)" and
gives the RTF beside it. It states its engine, decoding (greedy / beam N) and chunk overlap, and takes
``--beam`` (default: the engine's own)."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.transcription import estimate_transcription

runner = CliRunner()
REVIEWED = [
    "transcribe",
    "whisper-large-v3",
    "--gpu",
    "A100-SXM4-80GB",
    "--batch",
    "24",
    "--audio-hours",
    "2.5",
]


def test_the_speed_cannot_be_read_as_a_real_time_factor() -> None:
    result = runner.invoke(app, REVIEWED)
    assert result.exit_code == 0, result.output
    est = estimate_transcription("whisper-large-v3", "A100-SXM4-80GB", audio_s=9000, batch=24)
    assert f"{est.realtime_factor:,.1f}x faster than real time (RTFx)" in result.output
    rtf = re.search(r"real-time factor \(RTF\)\s*│\s*([0-9.]+) wall-clock s per audio s", result.output)
    assert rtf is not None, result.output
    assert float(rtf.group(1)) == float(f"{est.rtf:.3g}") and float(rtf.group(1)) < 1  # 3 significant figures


def test_the_output_states_engine_decoding_and_overlap() -> None:
    result = runner.invoke(app, REVIEWED)
    out = " ".join(result.output.split())  # the notes wrap at 80 columns
    assert "transformers, fp16, batch 24, greedy" in out
    assert "decoding: greedy (transformers' default num_beams=1)" in out
    assert (
        "450 x 30 s chunks every 20 s (the pipeline's default stride, chunk_length_s / 6 = 5 s each side"
        in out
    )
    assert "log-mel features" in out and "host / encoder / decoder" in out


def test_faster_whisper_decodes_with_five_beams_unless_told() -> None:
    base = ["transcribe", "whisper-large-v3", "--gpu", "A100-SXM4-80GB", "--engine", "faster-whisper"]
    five = runner.invoke(app, base)
    assert five.exit_code == 0, five.output
    assert "batch 1, beam 5" in five.output and "beam search, 5 beams" in five.output
    one = runner.invoke(app, [*base, "--beam", "1", "--json"])
    assert one.exit_code == 0, one.output
    data = json.loads(one.output)
    assert data["beam"] == 1 and data["windows"] == 120
    assert (
        data["rtf"] * data["realtime_factor"] == 1.0 or abs(data["rtf"] * data["realtime_factor"] - 1) < 1e-9
    )


def test_a_bad_beam_is_named_by_its_option() -> None:
    for value, words in (("0", "0 is out of range"), ("abc", "'abc' is not a whole number")):
        result = runner.invoke(app, ["transcribe", "whisper-large-v3", "--gpu", "H100", "--beam", value])
        assert result.exit_code == 2, result.output
        assert f"error: --beam: {words} (accepted: 1..32)" in result.output
