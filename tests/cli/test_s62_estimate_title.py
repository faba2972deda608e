"""``estimate``'s title breaks between its phrases, never inside one: at 80 columns Rich wrapped it
between any words, leaving "512 in / 512" on one line and "out" on the next."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app, consoles, estimate_cmds, output  # noqa: F401 (loaded to patch)
from tests.cli.terminal_lines import terminal_output

runner = CliRunner()


def _terminal(monkeypatch: pytest.MonkeyPatch, width: int, *args: str) -> list[str]:
    return [line.strip() for line in terminal_output(monkeypatch, width, *args)]


@pytest.mark.parametrize(
    "args",
    [
        ["deepseek-r1", "--gpu", "H200-SXM", "--gpus", "8", "--precision", "fp8", "--engine", "sglang"],
        ["deepseek-r1-distill-llama-70b", "--gpu", "RTXPRO6000-Server", "--gpus", "2"],
    ],
)
def test_the_title_keeps_its_phrases_whole_at_80_columns(
    monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    lines = _terminal(monkeypatch, 80, "estimate", *args)
    assert "512 in / 512 out" in lines[:3]  # a phrase of its own, on its own line
    assert lines[0].endswith(",")  # the line before it ends between phrases


def test_a_setup_that_does_not_fit_says_its_title_by_phrases(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["estimate", "deepseek-r1-distill-llama-70b", "--gpu", "RTXPRO6000-Server", "--gpus", "1"]
    args += ["--context-in", "100000"]
    lines = _terminal(monkeypatch, 80, *args)
    title = lines[: next(i for i, line in enumerate(lines) if line.startswith("does not fit"))]
    assert all(line.endswith((",", ":")) for line in title[:-1]), title
    assert title[-1].endswith("out")
