"""The ``gpuscout`` command line. Each area registers its commands from its own module."""

from __future__ import annotations

import typer

from gpuscout.cli import advise_cmds, catalog_cmds, estimate_cmds, knowledge_cmds, web_cmds

app = typer.Typer(
    name="gpuscout",
    help="Which cloud GPU offer to rent for your generative-AI workload, and what it will really cost.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (knowledge_cmds, estimate_cmds, catalog_cmds, advise_cmds, web_cmds):
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
