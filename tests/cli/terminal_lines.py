"""What a CLI command prints to a colourless terminal of a given width, as lines and table cells (the
80-column tests of the advisor's tables share it)."""

from __future__ import annotations

import re
import sys

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.cli import app, consoles

#: A line that is one web address (numbered "[1] ", or after a "source:"): printed whole, never folded,
#: it may be wider than the terminal, which shows the overflow (``gpuscout.cli.wrap``).
ADDRESS_LINE = re.compile(r"\s*(\[\d+\] |source: )?\S*https?://\S+")


def terminal_output(monkeypatch: pytest.MonkeyPatch, width: int, *args: str) -> list[str]:
    """The lines ``gpuscout ARGS`` prints to a colourless terminal ``width`` columns wide, with every CLI
    module's console made anew there (as in a process started in it), unchecked for width."""
    for name, value in {"TTY_COMPATIBLE": "1", "COLUMNS": str(width), "NO_COLOR": "1"}.items():
        monkeypatch.setenv(name, value)
    old, new = consoles.console, Console(emoji=False)
    monkeypatch.setattr(consoles, "console", new)
    for module in [m for name, m in sys.modules.items() if name.startswith("gpuscout.cli")]:
        if getattr(module, "console", None) is old:
            monkeypatch.setattr(module, "console", new)
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return re.sub(r"\x1b\[[0-9;]*m", "", result.output).splitlines()


def terminal_lines(monkeypatch: pytest.MonkeyPatch, width: int, *args: str) -> list[str]:
    """The lines ``gpuscout ARGS`` prints to a colourless terminal ``width`` columns wide; none wider
    but a line that is one web address (:data:`ADDRESS_LINE`)."""
    for name, value in {"TTY_COMPATIBLE": "1", "COLUMNS": str(width), "NO_COLOR": "1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(consoles, "console", Console(emoji=False))
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    lines = re.sub(r"\x1b\[[0-9;]*m", "", result.output).splitlines()
    assert all(len(line) <= width or ADDRESS_LINE.fullmatch(line) for line in lines), "\n".join(lines)
    return lines


def table_cells(lines: list[str]) -> list[list[str]]:
    """The cells of each body row of a box-drawn table among ``lines``."""
    return [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]


def joined_table(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """The headers and the rows of the table in ``lines``; a header or a row's cells that Rich wrapped
    onto more lines are joined by a space."""
    parts = [[h.strip() for h in line.split("┃")[1:-1]] for line in lines if line.startswith("┃")]
    headers = [" ".join(word for word in column if word) for column in zip(*parts, strict=True)]
    rows: list[list[str]] = []
    for cells in table_cells(lines):
        if cells[0] or not rows:
            rows.append(cells)
        else:  # the rest of the row above
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    return headers, rows
