"""``gpuscout estimate / vram / diagnose``: an error names the option typed, not the Python field.

Regression: ``gpuscout estimate llama-3.1-8b --gpu L4 --prompt -5`` answered "error: context_in: -5 is
out of range"; ``gpuscout recommend`` names its ``--prompt``. Where an option has several names
(``--context-in`` / ``--prompt``, ``--concurrency`` / ``--users`` / ``-c``) the one typed is named, and
the fields the message names read as options too. A newer engine version's warning is printed.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()
ESTIMATE = ["estimate", "llama-3.1-8b", "--gpu", "L4"]


def _error(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len(res.stderr.strip().splitlines()) == 1, res.stderr
    return res.stderr.strip()


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--prompt", "-5"], "error: --prompt: -5 is out of range (accepted: 0..10000000)"),
        (["--context-in", "-5"], "error: --context-in: -5 is out of range (accepted: 0..10000000)"),
        (["--output", "0", "--prompt", "0"], "error: --output: --prompt + --output must be at least 1 token"),
        (
            ["--context-out", "0", "--context-in", "0"],
            "error: --context-out: --context-in + --context-out must be at least 1 token",
        ),
        (["--gpus", "0"], "error: --gpus: 0 is out of range (accepted: 1..64)"),
        (["--users", "0"], "error: --users: 0 is out of range"),
        (["-c", "0"], "error: -c: 0 is out of range"),
        (["--rps", "0"], "error: --rps: 0.0 is out of range"),
        (["--request-rate", "0"], "error: --request-rate: 0.0 is out of range"),
        (["--num-requests", "0", "--rps", "1"], "error: --num-requests: 0 is out of range"),
        (
            ["--batch", "0"],
            "error: --batch: 0 is out of range (accepted: 1..1000000)",
        ),  # as --users (stop 62)
        (
            ["--batch", "2", "--users", "3"],
            "error: --users: give one of --batch, --users or --request-rate, not --batch and --users",
        ),
        (["--kv-dtype", "q4_0"], "error: --kv-dtype: vLLM (V1 engine) has no q4_0 KV cache"),
        (["--parallel", "foo"], "error: --parallel: unknown parallel mode 'foo'"),
        (["--precision", "int3"], "error: --precision: unknown precision 'int3'"),
        (["--engine", "vlm-x"], "error: --engine: unknown name 'vlm-x'"),
        (
            ["--engine", "vllm --max-model-len 100", "--prompt", "10", "--output", "100"],
            "error: --engine: --max-model-len 100 is shorter than the 110-token context asked "
            "(--prompt + --output: 10 + 100)",
        ),
        (
            ["--prompt", "200000", "--output", "100"],
            "error: --prompt: 200,000 prompt + 100 output tokens = 200,100 exceed",
        ),
    ],
)
def test_estimate_errors_name_the_option_typed(options: list[str], said: str) -> None:
    text = _error([*ESTIMATE, *options])
    assert text.startswith(said), text
    for field in ("context_in", "context_out", "request_rate", "num_requests", "kv_dtype"):
        assert field not in text.replace("--kv-cache-dtype", "")


def test_the_accepted_part_reads_as_options_too() -> None:
    text = _error([*ESTIMATE, "--prompt", "200000", "--output", "100"])
    assert text.endswith("(accepted: --prompt + --output <= 131072)")
    assert "(max_position_embeddings)" in text  # the model's config field, not an option: as it was


def test_an_unknown_gpu_names_the_option_and_the_model_argument_stays_model() -> None:
    assert _error(["estimate", "llama-3.1-8b", "--gpu", "L44"]).startswith("error: --gpu: unknown name 'L44'")
    assert _error(["estimate", "flux.1-dev", "--gpu", "L4"]).startswith(
        "error: model: flux.1-dev is an image"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["vram", "llama-3.1-8b", "--context", "200000"], "error: --context: 200,000 tokens exceed"),
        (["vram", "llama-3.1-8b", "--gpus", "0"], "error: --gpus: 0 is out of range"),
        (["vram", "llama-3.1-8b", "--task", "lora", "--batch", "0"], "error: --batch: 0 is out of range"),
        (
            ["vram", "llama-3.1-8b", "--task", "lora", "--context", "20000000"],
            "error: --context: 20000000 is out of range",
        ),
        (["vram", "llama-3.1-8b", "--kv-dtype", "q4_0"], "error: --kv-dtype: vLLM (V1 engine) has no q4_0"),
        (
            ["diagnose", "llama-3.1-8b", "--gpu", "L4", "--measured-tps", "0"],
            "error: --measured-tps: must be a positive tokens/s figure",
        ),
        (
            ["diagnose", "llama-3.1-8b", "--gpu", "L4", "--measured-tps", "10", "--context", "0"],
            "error: --context: 0 is out of range",
        ),
    ],
)
def test_vram_and_diagnose_errors_name_their_options(args: list[str], said: str) -> None:
    text = _error(args)
    assert text.startswith(said), text
    assert "--context: context:" not in text  # the field once, as its option


NEWER = "vLLM 99.0 is newer than the newest version gpuscout has a profile for (0.33): timed as 0.33"


def test_a_newer_engine_version_is_a_printed_warning() -> None:
    res = runner.invoke(app, [*ESTIMATE, "--engine", "vllm 99.0", "--json"])
    assert res.exit_code == 0, res.output
    assert NEWER in json.loads(res.stdout)["warnings"]
    res = runner.invoke(app, [*ESTIMATE, "--engine", "vllm 99.0"])
    assert res.exit_code == 0 and f"warning: {NEWER}" in " ".join(res.stdout.split())
    refused = ["estimate", "llama-3.1-8b", "--gpu", "V100", "--precision", "fp8", "--engine", "vllm 99.0"]
    res = runner.invoke(app, refused)
    out = " ".join(res.stdout.split())  # as wrapped to the terminal
    assert res.exit_code == 0 and "not supported:" in out and f"warning: {NEWER}" in out
