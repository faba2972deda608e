"""``gpuscout gpus`` says every name whole, as ``models`` does.

Sent to a pipe, ``gpus`` printed on the 80 columns of a console that is no terminal, where Rich folded
the names it squeezed: ``gpus | grep RTXPRO6000-Server`` found nothing (the row read "RTXPRO6000-Ser",
its end "ver" on the next line); ``models`` and ``offers`` print a pipe at full width. In a terminal too
narrow for a name, the name column was cut with no mark ("qwen3-coder-480b-a3" for
"qwen3-coder-480b-a35b"); it now ends in an ellipsis.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.cli.knowledge_cmds import select_gpus
from gpuscout.knowledge.models import all_models
from tests.cli.terminal_lines import table_cells, terminal_output

runner = CliRunner()


GPU_NAMES = [a.name for a in select_gpus(vendor=None, min_memory=None, kind=None, fp8=False, sort="memory")]
MODEL_NAMES = [m.name for m in all_models()]


def _terminal(monkeypatch: pytest.MonkeyPatch, width: int, *args: str) -> list[str]:
    """The lines ``gpuscout ARGS`` prints to a colourless terminal ``width`` columns wide."""
    return terminal_output(monkeypatch, width, *args)


def test_a_pipe_gets_every_gpu_name_whole() -> None:
    result = runner.invoke(app, ["gpus"], env={"COLUMNS": "80"})  # not a terminal
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("│ RTXPRO6000-Server ") for line in lines)  # what `| grep` looks for
    assert [cells[0] for cells in table_cells(lines)] == GPU_NAMES  # one line a row, no name folded
    assert "Confidence" in result.output and "not shown" not in result.output  # every column


def test_gpu_names_are_whole_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _terminal(monkeypatch, 80, "gpus")
    assert all(len(line) <= 80 for line in lines)
    assert [cells[0] for cells in table_cells(lines)] == GPU_NAMES


@pytest.mark.parametrize(("command", "names"), [("gpus", GPU_NAMES), ("models", MODEL_NAMES)])
def test_a_name_too_long_for_the_terminal_ends_in_an_ellipsis(
    monkeypatch: pytest.MonkeyPatch, command: str, names: list[str]
) -> None:
    lines = _terminal(monkeypatch, 36, command)
    shown = [cells[0] for cells in table_cells(lines)]
    assert len(shown) == len(names)  # one line a row: no name folded onto the next
    cut = [(s, n) for s, n in zip(shown, names, strict=True) if s != n]
    assert cut, "36 columns leave no room for the longest names"
    for s, n in cut:
        assert s.endswith("…") and n.startswith(s[:-1]), (s, n)


def _gpu_row(name: str) -> list[str]:
    """The cells of ``name``'s row in ``gpuscout gpus`` on a pipe (every column shown)."""
    result = CliRunner().invoke(app, ["gpus"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith(f"│ {name} "))
    return [cell.strip() for cell in row.strip("│").split("│")]


def test_a_bf16_part_without_a_rate_in_its_source_reads_yes_as_fp8_does() -> None:
    """The RTX 5000 Ada (Ada Lovelace) computes in bf16 and FP8; its source gives neither rate. The
    BF16 column read "—" (unknown or unsupported) beside FP8's "yes*"; a V100, which has no bf16, reads
    "no BF16" (stop 62 web review: "—" read as "unknown" beside FP8's "no FP8")."""
    name, _memory, _bandwidth, bf16, fp8, *_ = _gpu_row("RTX5000-Ada")
    assert (name, bf16, fp8) == ("RTX5000-Ada", "yes*", "yes*")
    assert _gpu_row("V100-SXM2-16GB")[3] == "no BF16"  # said in words, as the FP8 column says "no FP8"
