"""The ``gpuscout`` Typer app: the root group (commands loaded on use) and its ``--version`` option."""

from __future__ import annotations

from typing import Annotated

import typer

from gpuscout import __version__
from gpuscout.cli import COMMANDS, help_layout
from gpuscout.cli.lazy import LazyGroup

help_layout.install()  # option names whole at any width (Rich's modules still loaded for a help only)


class _Root(LazyGroup):
    modules = COMMANDS


app = typer.Typer(
    name="gpuscout",
    cls=_Root,
    help="Which cloud GPU offer to rent for your generative-AI workload, and what it will really cost.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"gpuscout {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    pass
