"""Help texts read as prose at any width: Typer's rich mode keeps a paragraph's single line breaks, so a
docstring wrapped at the source's line length would break mid-sentence in ``gpuscout --help``."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import typer

from gpuscout.cli import COMMANDS


def _commands() -> Iterator[tuple[str, Any]]:
    eager = typer.Typer()
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(module).register(eager)
    stack: list[tuple[str, Any]] = [("gpuscout", typer.main.get_command(eager))]
    while stack:
        path, cmd = stack.pop()
        yield path, cmd
        stack += [(f"{path} {name}", sub) for name, sub in getattr(cmd, "commands", {}).items()]


def test_no_help_paragraph_has_a_hard_line_break() -> None:
    commands = list(_commands())
    assert len(commands) > len(COMMANDS)  # the root, every command and the subcommands
    broken = [
        f"{path}: {para[:60]!r}"
        for path, cmd in commands
        for para in (cmd.help or "").split("\n\n")
        if "\n" in para.strip() and not para.startswith("\b")
    ]
    assert not broken, broken
