"""The ``gpuscout`` command line. Each area registers its commands from its own module.

Every command runs inside the CLI's one error boundary (:class:`~gpuscout.cli.output.GpuscoutGroup`):
a bad input exits 2 with a message naming the field, a store or file-system failure exits 1 with
what failed, and neither prints a traceback.
"""

from __future__ import annotations

from typing import Annotated

import typer

from gpuscout import __version__
from gpuscout.cli import advise_cmds, catalog_cmds, estimate_cmds, knowledge_cmds, transcribe_cmds, web_cmds
from gpuscout.cli.output import GpuscoutGroup

app = typer.Typer(
    name="gpuscout",
    cls=GpuscoutGroup,
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


for _module in (knowledge_cmds, estimate_cmds, transcribe_cmds, catalog_cmds, advise_cmds, web_cmds):
    _module.register(app)


def main() -> None:
    """Console-script entry point (also ``python -m gpuscout``)."""
    app()
