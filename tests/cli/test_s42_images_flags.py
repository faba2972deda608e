"""`gpuscout images`: an input error names the option typed (``--width``), as `gpuscout estimate` names
``--prompt``, not the Python field behind it (``width``); and the table's title keeps to one line at
80 columns."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()
BASE = ["images", "flux.1-dev", "--gpu", "H100"]


@pytest.mark.parametrize(
    ("extra", "flag", "accepted"),
    [
        (["--width", "10"], "--width", "64..16384"),
        (["--height", "100000"], "--height", "64..16384"),
        (["--steps", "20000"], "--steps", "1..10000"),
        (["--batch", "0"], "--batch", "1..4096"),
        (["--precision", "q4"], "--precision", "bf16, fp16, fp32, fp8"),
    ],
)
def test_errors_name_the_option(extra: list[str], flag: str, accepted: str) -> None:
    result = runner.invoke(app, [*BASE, *extra])
    assert result.exit_code == 2, result.output
    assert f"error: {flag}: " in result.output and accepted in result.output
    assert "Traceback" not in result.output


def test_an_unknown_gpu_names_gpu_and_the_closest_names() -> None:
    result = runner.invoke(app, ["images", "sdxl", "--gpu", "H1000"])
    assert result.exit_code == 2
    assert "error: --gpu: unknown name 'H1000'" in result.output and "H100-SXM" in result.output


def test_the_model_argument_keeps_its_name() -> None:
    # a positional argument has no option to name
    result = runner.invoke(app, ["images", "sdxll", "--gpu", "H100"])
    assert result.exit_code == 2 and "error: model: unknown name 'sdxll'" in result.output


def test_title_is_one_line_at_80_columns() -> None:
    result = runner.invoke(app, ["images", "sdxl", "--gpu", "H100"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.strip() == "sdxl on H100-SXM: diffusers, bf16, 1024x1024, 30 steps, batch 1"
    assert max(len(line) for line in result.output.splitlines()) <= 80
