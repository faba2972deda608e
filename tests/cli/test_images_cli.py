"""`gpuscout images`: the diffusion estimate (estimate/diffusion.py) reached from the command line, and every
estimator pointing a model of another kind to the command that answers it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.diffusion import estimate_images

runner = CliRunner()
LM, IMAGE, SPEECH = "a language model", "an image (diffusion) model", "a speech-to-text model"


def test_json_is_the_estimate() -> None:
    args = ["images", "flux.1-dev", "--gpu", "L40S", "--steps", "20", "--width", "768", "--height", "1024"]
    result = runner.invoke(app, [*args, "--batch", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    expected = estimate_images("flux.1-dev", "L40S", steps=20, width=768, height=1024, batch=2)
    assert data["seconds_per_image"] == expected.seconds_per_image
    assert data["memory_gb"] == expected.memory_gb and data["fits"] is expected.fits
    assert (data["gpu"], data["steps"], data["width"], data["height"], data["batch"]) == (
        "L40S",
        20,
        768,
        1024,
        2,
    )


def test_table_states_speed_memory_total_and_assumptions() -> None:
    result = runner.invoke(
        app, ["images", "sdxl", "--gpu", "H100", "--images", "1000"], env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    one = estimate_images("sdxl", "H100")
    for part in ("seconds per image", "images per hour", "time for 1,000 images", "efficiency", "steps"):
        assert part in result.output
    assert f"{one.seconds_per_image:,.2f} s" in result.output  # the estimate's own figure
    assert f"{one.images_per_s * 3600:,.0f}" in result.output


def test_a_pipeline_too_big_for_the_card_says_so_and_how_to_offload() -> None:
    result = runner.invoke(app, ["images", "flux.1-dev", "--gpu", "RTX 4090"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "no (weights)" in result.output and "--cpu-offload" in result.output
    offloaded = runner.invoke(
        app, ["images", "flux.1-dev", "--gpu", "RTX 4090", "--cpu-offload", "--json"], env={"COLUMNS": "200"}
    )
    data = json.loads(offloaded.output)
    assert data["memory"]["weights_gb"] < 25 and "cpu_offload" in data["assumptions"]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["images", "flux.1-dev", "--gpu", "H100", "--width", "10"], "width"),
        (["images", "flux.1-dev", "--gpu", "H100", "--precision", "q4"], "precision"),
        (["images", "flux.1-dev", "--gpu", "H1000"], "gpu"),
        (["images", "flux.1-dev", "--gpu", "H100", "--batch", "0"], "batch"),
    ],
)
def test_bad_input_names_the_field(args: list[str], field: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and field in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "kind", "pointer"),
    [
        # a language model given to the image and speech estimators
        (["images", "llama-3.1-8b", "--gpu", "H100"], LM, "gpuscout estimate llama-3.1-8b"),
        (
            ["transcribe", "llama-3.1-8b", "--gpu", "H100"],
            "a language model",
            "gpuscout estimate llama-3.1-8b",
        ),
        # an image model given to the LLM estimators, the FAQ and the advisor's serving
        (
            ["estimate", "flux.1-dev", "--gpu", "H100"],
            "an image (diffusion) model",
            "gpuscout images flux.1-dev",
        ),
        (["vram", "flux.1-dev"], IMAGE, "gpuscout images flux.1-dev"),
        # and to the training estimators (it said "a diffusion model without a decoder-LLM shape")
        (["vram", "flux.1-dev", "--task", "lora"], IMAGE, "gpuscout images flux.1-dev"),
        (["recommend", "finetune", "flux.1-dev", "--dataset-tokens", "1e6"], IMAGE, "gpuscout images"),
        (
            ["faq", "flux.1-dev"],
            "an image (diffusion) model",
            "gpuscout recommend batch flux.1-dev --images N",
        ),
        (["transcribe", "flux.1-dev", "--gpu", "H100"], IMAGE, "gpuscout images"),
        # a speech model: never sent to the image pipeline or to `--images`
        (["estimate", "whisper-large-v3", "--gpu", "H100"], SPEECH, "gpuscout transcribe"),
        (["faq", "whisper-large-v3"], SPEECH, "gpuscout transcribe whisper-large-v3"),
        (["images", "whisper-large-v3", "--gpu", "H100"], SPEECH, "gpuscout transcribe"),
        (["recommend", "serve", "whisper-large-v3", "--concurrency", "4"], "a speech-to-text", "transcribe"),
    ],
)
def test_a_model_of_another_kind_is_sent_to_the_command_that_answers_it(
    args: list[str], kind: str, pointer: str
) -> None:
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert "model" in result.output and kind in result.output and pointer in result.output
    assert "diffusion for images" not in result.output and "a audio" not in result.output
    if any("whisper" in arg for arg in args):
        assert "--images" not in result.output  # speech is not priced as an image batch


def test_the_python_api_exposes_it() -> None:
    import gpuscout

    assert gpuscout.estimate_images is estimate_images
    assert "estimate_images" in gpuscout.__all__
