"""`gpuscout transcribe`: a bad input is named by the option typed (``--engine``), as `gpuscout estimate`'s
errors are, never by the Python field behind it (``engine``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()
BASE = ["transcribe", "whisper-large-v3"]


@pytest.mark.parametrize(
    ("args", "flag", "words"),
    [
        (["--gpu", "H100", "--engine", "whisperx"], "--engine", "transformers, faster-whisper"),
        (["--gpu", "H100", "--precision", "fp8"], "--precision", "fp16, bf16, fp32, int8"),
        (["--gpu", "H10x"], "--gpu", "H100-SXM"),
    ],
)
def test_an_error_names_the_option(args: list[str], flag: str, words: str) -> None:
    result = runner.invoke(app, [*BASE, *args])
    assert result.exit_code == 2, result.output
    assert f"error: {flag}: " in result.output and words in result.output
    assert "Traceback" not in result.output


def test_the_model_argument_keeps_its_name() -> None:
    """The model is an argument, not an option: its error still reads ``model:``, as estimate's does."""
    result = runner.invoke(app, ["transcribe", "whisperx", "--gpu", "H100"])
    assert result.exit_code == 2 and "error: model: unknown name 'whisperx'" in result.output


def test_a_good_run_is_unchanged() -> None:
    result = runner.invoke(app, [*BASE, "--gpu", "L4", "--engine", "faster-whisper", "--precision", "int8"])
    assert result.exit_code == 0, result.output
    assert "real-time factor" in result.output
