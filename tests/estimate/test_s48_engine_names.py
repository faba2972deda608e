"""An unknown engine name lists every engine accepted, besides the closest known names: in the Python
API's error, on the CLI (``gpuscout estimate --engine foo``) and in the web API's ``accepted``.

Regression: ``--engine foo`` said only "closest known: hf" and ``/api/v1/estimate?engine=foo`` accepted
"a known engine name (closest: hf)", leaving the user to guess vllm, sglang, tensorrt-llm...
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import gpuscout
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.estimate.engines import engine_names, resolve_engine

runner = CliRunner()


@pytest.mark.parametrize("name", ["foo", "vllmm", "deepspeed-mii"])
def test_the_error_lists_every_engine_and_the_closest(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_engine(name)
    exc = info.value
    assert exc.field == "engine" and exc.name == name
    assert exc.accepted is not None and all(e in exc.accepted for e in engine_names())
    text = str(exc)
    assert text.startswith(f"engine: unknown name {name!r}; closest known: {exc.suggestions[0]}")
    assert f"(accepted: {exc.accepted})" in text
    for engine in engine_names():  # each one the list names resolves
        assert resolve_engine(engine).name == engine


def test_the_estimate_raises_it_naming_the_field() -> None:
    with pytest.raises(InvalidInputError) as info:
        gpuscout.estimate("llama-3.1-8b", "H100-SXM", engine="foo")
    assert info.value.field == "engine" and all(e in str(info.value) for e in engine_names())


@pytest.mark.parametrize(
    "args",
    [
        ["estimate", "llama-3.1-8b", "--gpu", "L4", "--engine", "foo"],
        ["vram", "llama-3.1-8b", "--gpu", "L4", "--engine", "foo"],
    ],
)
def test_the_cli_lists_every_engine(args: list[str]) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    said = " ".join(res.stderr.split())
    assert "Traceback" not in said and "--engine: unknown name 'foo'; closest known:" in said
    assert "accepted: " in said and all(e in said for e in engine_names()), said
