"""Every ``--help`` reads in full in an 80-column terminal: each option name a command declares is
printed whole (Typer's own layout cut ``--spot-reclaims-per-hour`` to ``--spot-reclaims-pe…`` and
``--show-rejected,--rejected`` to ``--show-rejected,--…``), nothing ends in "…", and no line is wider
than the terminal. The root, every command and every subcommand, through the real (lazy) app."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from typing import Any

import click
import pytest
import typer
from typer.testing import CliRunner

from gpuscout.cli import COMMANDS, app

ENV = {"TTY_COMPATIBLE": "1", "COLUMNS": "80", "NO_COLOR": "1"}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _commands() -> Iterator[tuple[list[str], Any]]:
    """(arguments after ``gpuscout``, the click command) for the root and every (sub)command."""
    eager = typer.Typer()
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(module).register(eager)
    stack: list[tuple[list[str], Any]] = [([], typer.main.get_command(eager))]
    while stack:
        path, cmd = stack.pop()
        yield path, cmd
        stack += [([*path, name], sub) for name, sub in getattr(cmd, "commands", {}).items()]


COMMAND_PATHS = [path for path, _ in _commands()]


def _declared_names(cmd: Any) -> list[str]:
    ctx = click.Context(cmd, info_name="gpuscout")
    params = [*cmd.params, cmd.get_help_option(ctx)]
    return [
        name
        for p in params
        if isinstance(p, click.Option) and not p.hidden
        for name in (*p.opts, *p.secondary_opts)
    ]


def _help(path: list[str]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], prog_name="gpuscout", env=ENV)
    assert result.exit_code == 0, result.output
    return _ANSI.sub("", result.output)


def test_every_command_and_subcommand_is_checked() -> None:
    tops = {p[0] for p in COMMAND_PATHS if p}
    assert tops == set(COMMANDS)
    assert {("recommend", k) for k in ("serve", "batch", "finetune", "pretrain")} <= {
        tuple(p) for p in COMMAND_PATHS
    }


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=lambda p: " ".join(p) or "gpuscout")
def test_help_at_80_columns_shows_every_option_name_whole(path: list[str]) -> None:
    cmd = dict((tuple(p), c) for p, c in _commands())[tuple(path)]
    text = _help(path)
    assert "Usage: gpuscout" in text
    missing = [
        name for name in _declared_names(cmd) if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)
    ]
    assert not missing, f"cut or missing at 80 columns: {missing}\n{text}"
    assert "…" not in text, text
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, wide
