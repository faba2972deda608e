"""The ``gpuscout`` command line. Each area registers its commands from its own module.

Every command runs inside the CLI's one error boundary (:class:`~gpuscout.cli.output.GpuscoutGroup`):
a bad input exits 2 with a message naming the field, a store or file-system failure exits 1 with
what failed, and neither prints a traceback.

A command's module is imported only when the command runs (or when help lists it): see
:mod:`gpuscout.cli.lazy`. ``COMMANDS`` says which module registers each command, in help order.
"""

from __future__ import annotations

from typing import Annotated

import typer

from gpuscout import __version__
from gpuscout.cli.lazy import LazyGroup

_KNOWLEDGE = "gpuscout.cli.knowledge_cmds"
_ESTIMATE = "gpuscout.cli.estimate_cmds"
_CATALOG = "gpuscout.cli.catalog_cmds"
_ADVISE = "gpuscout.cli.advise_cmds"

#: Command name -> the module whose ``register(app)`` adds it, in the order help lists them.
COMMANDS: dict[str, str] = {
    "gpus": _KNOWLEDGE,
    "models": _KNOWLEDGE,
    "vram": _ESTIMATE,
    "estimate": _ESTIMATE,
    "diagnose": _ESTIMATE,
    "transcribe": "gpuscout.cli.transcribe_cmds",
    "refresh": _CATALOG,
    "sources": _CATALOG,
    "offers": _CATALOG,
    "history": _CATALOG,
    "prune": _CATALOG,
    "faq": _ADVISE,
    "serve": "gpuscout.cli.web_cmds",
    "recommend": _ADVISE,
}


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


def main() -> None:
    """Console-script entry point (also ``python -m gpuscout``)."""
    app()
