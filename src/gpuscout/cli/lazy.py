"""The root command group, which imports a command's module only when that command is used.

``gpuscout offers`` imports the catalog commands, not the advisor, the estimator or the web app;
``gpuscout --help`` imports the command modules (for their one-line help) but nothing they use.
Each command module keeps its ``register(app)`` function; the group calls it on a private
:class:`typer.Typer` the first time one of the module's commands is asked for, and converts it to
click commands the way ``typer.main.get_command`` does for any app. The commands, their options and
their help are therefore exactly what the same ``register`` would give on an eager app.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, ClassVar

import typer

from gpuscout.cli import coercion
from gpuscout.cli.output import GpuscoutGroup


class LazyGroup(GpuscoutGroup):
    """:class:`GpuscoutGroup` whose commands come from modules imported on first use.

    ``modules`` maps each command name, in help order, to the module that registers it.
    """

    modules: ClassVar[Mapping[str, str]] = {}
    _loaded: ClassVar[dict[str, dict[str, Any]]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        coercion.install(self)  # the root's own options (--version)

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.modules if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in self.modules:
            return found
        return load_commands(self.modules[cmd_name]).get(cmd_name)


def load_commands(module_name: str) -> dict[str, Any]:
    """The click commands that ``module_name``'s ``register(app)`` adds, by name (built once)."""
    loaded = LazyGroup._loaded.get(module_name)
    if loaded is None:
        module = importlib.import_module(module_name)
        app = typer.Typer(add_completion=False)
        module.register(app)
        built = typer.main.get_command(app)
        coercion.install(built)
        commands = getattr(built, "commands", None)
        loaded = dict(commands) if commands is not None else {str(built.name): built}
        LazyGroup._loaded[module_name] = loaded
    return loaded
