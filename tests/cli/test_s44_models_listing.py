"""``gpuscout models``: ``models list`` lists, names are never broken, Mistral NeMo's context is 128k.

``models --help`` promised "list, show, import, remove" and ``models list`` answered "Error: NAME:
unknown name 'list'". At 80 columns the name column was folded ("mistral-nemo-12" / "b",
"deepseek-r1-dis" / "till-llama-70b"). Mistral NeMo was listed with a "1000k" context: its config's
max_position_embeddings 1,024,000, where Mistral documents 128k.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.cli import app, consoles
from gpuscout.knowledge.models import all_models, resolve_model
from tests.cli.llama_config import write_llama_config

runner = CliRunner()
Terminal: TypeAlias = Callable[..., list[str]]
NAMES = [m.name for m in all_models()]
LONG = "a-very-long-imported-model-name-that-goes-on-and-on"


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """``terminal(width, *args)``: the lines ``gpuscout ARGS`` prints to a colourless terminal ``width``
    columns wide (the shared console made anew there, as a process started in it makes it)."""

    def run(width: int, *args: str) -> list[str]:
        for name, value in {"TTY_COMPATIBLE": "1", "COLUMNS": str(width), "NO_COLOR": "1"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(consoles, "console", Console(emoji=False))
        monkeypatch.setattr("gpuscout.cli.output.console", consoles.console)
        monkeypatch.setattr("gpuscout.cli.knowledge_cmds.console", consoles.console)
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        lines = re.sub(r"\x1b\[[0-9;]*m", "", result.output).splitlines()
        assert all(len(line) <= width for line in lines), max(lines, key=len)
        return lines

    return run


def _first_cells(lines: list[str]) -> list[str]:
    """The first column of the table's body rows (a wrapped row's continuation lines give "")."""
    return [line.split("│")[1].strip() for line in lines if line.startswith("│")]


def test_models_list_lists_as_models_alone_does() -> None:
    listed = runner.invoke(app, ["models", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    alone = runner.invoke(app, ["models", "--json"])
    assert json.loads(listed.stdout) == json.loads(alone.stdout)
    assert len(json.loads(listed.stdout)) == len(NAMES)
    qwen3 = json.loads(runner.invoke(app, ["models", "list", "--family", "qwen3", "--json"]).stdout)
    assert qwen3 and all(row["family"].startswith("qwen3") for row in qwen3)
    csv_out = runner.invoke(app, ["models", "list", "--kind", "diffusion", "--csv"])
    assert csv_out.exit_code == 0 and csv_out.stdout.startswith("name,") and "sdxl" in csv_out.stdout
    table = runner.invoke(app, ["models", "list"])
    assert table.exit_code == 0 and "llama-3.1-8b" in table.output
    bad = runner.invoke(app, ["models", "list", "--kind", "video"])
    assert bad.exit_code == 2 and "--kind" in bad.output and "Traceback" not in bad.output


def test_models_help_names_the_list_command() -> None:
    result = runner.invoke(app, ["models", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    commands = re.findall(r"^│ (\w+) ", result.output, flags=re.M)
    assert commands[:4] == ["list", "show", "import", "remove"]


def test_mistral_nemo_has_its_documented_128k_context() -> None:
    nemo = resolve_model("mistral-nemo-12b")
    assert nemo.max_position_embeddings == 131072
    assert "mistral.ai/news/mistral-nemo" in nemo.source and "up to 128k tokens" in nemo.source
    assert "1,024,000" in nemo.notes  # what the config says, and why it is not taken
    rows = json.loads(runner.invoke(app, ["models", "list", "--family", "mistral-nemo", "--json"]).stdout)
    assert [r["max_position_embeddings"] for r in rows] == [131072]


def test_names_are_whole_at_80_columns(terminal: Terminal) -> None:
    lines = terminal(80, "models")
    cells = _first_cells(lines)
    assert [c for c in cells if c] == NAMES  # every name on one line, none broken, none cut
    nemo = next(line for line in lines if line.startswith("│ mistral-nemo-12b "))
    assert " 128k " in nemo and "1000k" not in " ".join(lines)
    assert any("not shown at this width: Layers" in line for line in lines)  # what gave way is said
    assert lines == terminal(80, "models", "list")


def test_a_long_imported_name_stays_whole_and_other_columns_give_way(
    terminal: Terminal, tmp_path: Path
) -> None:
    config = write_llama_config(tmp_path)
    imported = runner.invoke(app, ["models", "import", str(config), "--name", LONG])
    assert imported.exit_code == 0, imported.output
    lines = terminal(80, "models")
    assert [c for c in _first_cells(lines) if c] == [*NAMES, LONG]
    assert any(line.startswith(f"│ {LONG} ") for line in lines)


def test_a_pipe_gets_every_column_and_whole_names() -> None:
    result = runner.invoke(app, ["models"], env={"COLUMNS": "80"})  # not a terminal: nothing dropped
    assert result.exit_code == 0
    assert "Layers" in result.output and "not shown" not in result.output
    assert [c for c in _first_cells(result.output.splitlines()) if c] == NAMES
