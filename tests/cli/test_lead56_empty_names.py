"""An empty or blank model, GPU or engine name is said to be empty, with what is accepted, on every face:
not "unknown name ''; closest known: llama-2-7b, ..." (a name no one typed, closest to some), nor "expected
a GPU name or an Accelerator" (a Python type), nor silently the default engine."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.estimate.api import estimate
from gpuscout.estimate.diffusion import estimate_images
from gpuscout.estimate.transcription import estimate_transcription
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import resolve_model

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["estimate", "", "--gpu", "H100"], "model: is empty; known names include llama-"),
        (["estimate", "  ", "--gpu", "H100"], "model: is empty; known names include llama-"),
        (["vram", ""], "model: is empty; known names include llama-"),
        (["estimate", "llama-3.1-8b", "--gpu", ""], "--gpu: is empty; known names include B200"),
        (["estimate", "llama-3.1-8b", "--gpu", " "], "--gpu: is empty; known names include B200"),
        (
            ["estimate", "llama-3.1-8b", "--gpu", "H100", "--engine", ""],
            "--engine: is empty (accepted: llama.cpp",
        ),
        (
            ["estimate", "llama-3.1-8b", "--gpu", "H100", "--engine", " "],
            "--engine: is empty (accepted: llama.cpp",
        ),
        (["vram", "llama-3.1-8b", "--engine", ""], "--engine: is empty (accepted: llama.cpp"),
        (["images", "", "--gpu", "H100"], "model: is empty; known names include sdxl"),
        (["transcribe", "", "--gpu", "H100"], "model: is empty; known names include whisper"),
        (["transcribe", "whisper-large-v3", "--gpu", "H100", "--engine", ""], "--engine: is empty (accepted"),
    ],
)
def test_an_empty_name_is_said_to_be_empty_with_what_is_accepted(args: list[str], said: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert said in text
    for wrong in ("unknown name", "closest known", "Accelerator", "ModelSpec", "Traceback"):
        assert wrong not in text


@pytest.mark.parametrize("blank", ["", "   "])
def test_the_python_api_says_it_too(blank: str) -> None:
    for call, field in (
        (lambda: estimate(blank, "H100"), "model"),
        (lambda: estimate("llama-3.1-8b", blank), "gpu"),
        (lambda: estimate("llama-3.1-8b", "H100", engine=blank), "engine"),
        (lambda: resolve_gpu(blank), "gpu"),
        (lambda: resolve_model(blank), "model"),
        (lambda: estimate_images(blank, "H100"), "model"),
        (lambda: estimate_transcription(blank, "H100"), "model"),
    ):
        with pytest.raises(UnknownNameError) as err:
            call()
        assert err.value.field == field and err.value.empty
        assert err.value.message.startswith("is empty")
        assert "unknown" not in str(err.value) and "closest" not in str(err.value)


def test_a_python_object_of_the_wrong_type_still_names_what_is_taken() -> None:
    with pytest.raises(InvalidInputError, match="expected a GPU name"):
        estimate("llama-3.1-8b", 80)  # type: ignore[arg-type]
