"""The CLI's Rich consoles: stdout, stderr, and the wide one for output that is not a terminal.

Apart from :mod:`gpuscout.cli.output` (which needs Typer) so that a command answered without Typer
(:mod:`gpuscout.cli.lean`) prints through the very same consoles.
"""

from __future__ import annotations

from rich.console import Console

from gpuscout.cli.table_fit import PIPE_WIDTH

console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False)


def wide_console() -> Console:
    """The shared console, or a wide one without colours when output is not a terminal."""
    return console if console.is_terminal else Console(width=PIPE_WIDTH, no_color=True, emoji=False)
