"""The root command group, which imports a command's module only when that command is used.

``gpuscout offers`` imports the catalog commands, not the advisor, the estimator or the web app;
``gpuscout --help`` imports the command modules (for their one-line help) but nothing they use.
Each command module keeps its ``register(app)`` function; the group calls it on a private
:class:`typer.Typer` the first time one of the module's commands is asked for, and builds that
command with Typer's own builders (``typer.main.get_command_from_info`` / ``get_group_from_info``,
what ``typer.main.get_command`` uses for a whole app). The commands, their options and their help
are therefore exactly what the same ``register`` would give on an eager app.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

import typer
from typer.core import TyperCommand, TyperGroup

from gpuscout.cli import coercion
from gpuscout.cli.output import GpuscoutGroup


class LazyGroup(GpuscoutGroup):
    """:class:`GpuscoutGroup` whose commands come from modules imported on first use.

    ``modules`` maps each command name, in help order, to the module that registers it.
    """

    modules: ClassVar[Mapping[str, str]] = {}
    _loaded: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        coercion.install(self)  # the root's own options (--version)

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.modules if n not in self.commands)]

    _listing = False

    def format_help(self, ctx: Any, formatter: Any) -> None:
        # While the root's help lists the commands, each needs only its name and one-line help.
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in self.modules:
            return found
        if self._listing:
            return listed_command(self.modules[cmd_name], cmd_name)
        return load_command(self.modules[cmd_name], cmd_name)


def listed_command(module_name: str, name: str) -> Any:
    """What the root's help shows of command ``name``: its name and help, as Typer's builders set them
    (``get_command_from_info`` / ``get_group_from_info``), without reading its options."""
    app = _registered(module_name)
    for info in app.registered_commands:
        assert info.callback is not None
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:
            text = inspect.getdoc(info.callback) if info.help is None else inspect.cleandoc(info.help)
            return TyperCommand(
                name=name, help=text, short_help=info.short_help, hidden=info.hidden,
                deprecated=info.deprecated, rich_help_panel=info.rich_help_panel,
            )  # fmt: skip
    for group in app.registered_groups:
        if group.name == name:
            solved = typer.main.solve_typer_info_defaults(group)
            return TyperGroup(
                name=name, help=solved.help, short_help=solved.short_help, hidden=solved.hidden,
                deprecated=solved.deprecated, rich_help_panel=solved.rich_help_panel,
            )  # fmt: skip
    raise LookupError(f"{name!r} is not registered by its module")


def load_command(module_name: str, name: str) -> Any:
    """The click command ``name`` that ``module_name``'s ``register(app)`` adds (built once).

    Only that command is built (its options read from its signature, as ``typer.main.get_command``
    would for the whole app): a command run does not pay for its module's other commands.
    """
    key = f"{module_name}:{name}"
    loaded = LazyGroup._loaded.get(key)
    if loaded is None:
        app = _registered(module_name)
        loaded = _build(app, name)
        coercion.install(loaded)
        LazyGroup._loaded[key] = loaded
    return loaded


@functools.cache
def _registered(module_name: str) -> typer.Typer:
    """A private app with the commands of ``module_name`` registered (not yet built)."""
    app = typer.Typer(add_completion=False)
    importlib.import_module(module_name).register(app)
    return app


def _build(app: typer.Typer, name: str) -> Any:
    for info in app.registered_commands:
        assert info.callback is not None
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:
            return typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    for group in app.registered_groups:
        if group.name == name:
            return typer.main.get_group_from_info(
                group,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
                suggest_commands=app.suggest_commands,
            )
    raise LookupError(f"{name!r} is not registered by its module")  # COMMANDS names a wrong module
