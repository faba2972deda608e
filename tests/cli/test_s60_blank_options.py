"""A blank ``--precision`` or ``--parallel`` is an error naming the option, as the API's ``precision=`` and
``parallel=`` are (stop 60, faces pass): the CLI read ``--precision ''`` as the checkpoint's format and
``--parallel ''`` as the engine's own split, silently, where the API answered 422."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["estimate", "llama-3.1-8b", "--gpu", "H100", "--precision", ""], "--precision"),
        (["vram", "llama-3.1-8b", "--precision", " "], "--precision"),
        (["estimate", "llama-3.1-70b", "--gpu", "H100", "--gpus", "2", "--parallel", ""], "--parallel"),
        (["vram", "llama-3.1-70b", "--gpus", "2", "--parallel", ""], "--parallel"),
    ],
)
def test_a_blank_option_is_refused_naming_it(args: list[str], option: str) -> None:
    out = runner.invoke(app, args)
    assert out.exit_code == 2, out.output
    assert f"{option}:" in out.output and "Traceback" not in out.output
