"""The ``gpuscout`` command line. Each area registers its commands from its own module.

Every command runs inside the CLI's one error boundary (:class:`~gpuscout.cli.output.GpuscoutGroup`):
a bad input exits 2 with a message naming the field, a store or file-system failure exits 1 with
what failed, and neither prints a traceback.

A command's module is imported only when the command runs (or when help lists it): see
:mod:`gpuscout.cli.lazy`. ``COMMANDS`` says which module registers each command, in help order;
the Typer app itself is :data:`gpuscout.cli.root.app` (also ``gpuscout.cli.app``, imported on use).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

_KNOWLEDGE = "gpuscout.cli.knowledge_cmds"
_ESTIMATE = "gpuscout.cli.estimate_cmds"
_CATALOG = "gpuscout.cli.catalog_cmds"
_ADVISE = "gpuscout.cli.advise_cmds"

#: Command name -> the module whose ``register(app)`` adds it, in the order help lists them.
COMMANDS: dict[str, str] = {
    "gpus": _KNOWLEDGE,
    "vram": _ESTIMATE,
    "estimate": _ESTIMATE,
    "diagnose": _ESTIMATE,
    "transcribe": "gpuscout.cli.transcribe_cmds",
    "images": "gpuscout.cli.images_cmds",
    "refresh": _CATALOG,
    "sources": _CATALOG,
    "offers": _CATALOG,
    "history": _CATALOG,
    "prune": _CATALOG,
    "faq": _ADVISE,
    "serve": "gpuscout.cli.web_cmds",
    # command groups after the commands, as an eager Typer app lists them
    "models": _KNOWLEDGE,
    "recommend": _ADVISE,
}


def main() -> None:
    """Console-script entry point (also ``python -m gpuscout``). The root help is replayed from its
    last render when nothing it depends on changed (:mod:`gpuscout.cli.help_cache`); ``offers`` is
    answered without building the Typer app when its arguments are plain (:mod:`gpuscout.cli.lean`)."""
    args = sys.argv[1:]
    if args[:1] == ["offers"]:
        from gpuscout.cli import lean

        code = lean.run(args)
        if code is not None:
            _exit_now(code)
    if args in ([], ["--help"]):  # the root help (help_cache is imported for it alone)
        from gpuscout.cli import help_cache

        code = help_cache.replay(args)
        if code is not None:
            raise SystemExit(code)
        help_cache.record(args, _app())
        return
    _app()()


def _exit_now(code: int) -> None:
    """End the process once a lean answer is written and flushed, without the interpreter's teardown
    (freeing every module and object costs the CLI tens of milliseconds). Only after a command
    that left nothing behind: its store closed, no thread, no atexit hook of its own, output flushed."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed stream: let the interpreter end as it would
        raise SystemExit(code) from None
    os._exit(code)


def _app() -> typer.Typer:
    from gpuscout.cli.root import app

    return app


def __getattr__(name: str) -> Any:
    if name == "app":  # the Typer app, imported on use (the root help may not need Typer at all)
        return _app()
    raise AttributeError(name)
