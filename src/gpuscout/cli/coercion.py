"""Option values converted without pydantic where the conversion is trivial.

Typer (0.20 and later) converts every option value through a pydantic ``TypeAdapter`` built for the
parameter on first use: importing pydantic and building one adapter per parameter costs a command
of gpuscout about 50-150 ms before it does anything. Most values are plain text, integers and
decimal numbers, for which the conversion is ``str``, ``int`` or ``float``.

:func:`install` gives each such parameter of a built command a converter that handles those cases
itself and hands everything else to Typer's own converter, built only then: a value written in a
way the plain path does not recognise, a number outside the option's ``min``/``max``, any other
type (paths, enums, dates...). So every accepted value converts to the same value as before, and
every refused one is refused by Typer with its own message. Typer versions without this machinery
(older ones convert through click types) are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?:[eE][-+]?[0-9]{1,3})?")

try:  # Typer's private coercion layer; absent in the versions that do not need this
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer.core import _TyperParameter
except ImportError:  # pragma: no cover - depends on the installed Typer
    RuntimeParam = None  # type: ignore[assignment,misc]


def _plain(kind: type, value: Any) -> Any:
    """``value`` converted to ``kind`` when that is unambiguous, else ``NotImplemented``."""
    if kind is str:
        return value if isinstance(value, str) else NotImplemented
    if kind is bool or isinstance(value, bool):
        return value if kind is bool and isinstance(value, bool) else NotImplemented
        return NotImplemented
    if kind is int:
        if isinstance(value, int):
            return value
        if isinstance(value, str) and _INT.fullmatch(value):
            return int(value)
        return NotImplemented
    if kind is float:
        if isinstance(value, float):
            return value
        if isinstance(value, int):
            return float(value)
        if isinstance(value, str) and _FLOAT.fullmatch(value):
            return float(value)
    return NotImplemented


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class PlainRuntimeParam(RuntimeParam):
        """Converts str/int/float values (and lists of them) itself; Typer's converter does the rest."""

        kind: type | None = None  # None: Typer converts every value
        is_list: bool = False
        descriptor: Any = None
        _typer: list[Any] = field(default_factory=list)  # Typer's converter, built when first needed

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            out = self._convert(value)
            if out is NotImplemented:
                if not self._typer:
                    self._typer.append(build_runtime_param(self.descriptor))
                return self._typer[0]._coerce_value(value, param=param, ctx=ctx)
            return out

        def _convert(self, value: Any) -> Any:
            if self.kind is None:
                return NotImplemented
            if self.is_list:
                items = value if isinstance(value, list | tuple) else [value]
                out = [self._one(v) for v in items]
                return NotImplemented if any(v is NotImplemented for v in out) else out
            return self._one(value)

        def _one(self, value: Any) -> Any:
            assert self.kind is not None
            out = _plain(self.kind, value)
            if out is NotImplemented or self.kind in (str, bool):
                return out
            info = self.parameter_info
            low, high = info.min, info.max
            if (low is not None and out < low) or (high is not None and out > high):
                return NotImplemented  # Typer refuses it (or clamps it) with its own words
            return out


def _plain_kind(annotation: Any, parameter_info: Any) -> tuple[type, bool] | None:
    """(leaf type, is a list) of an annotation the plain path converts; ``None`` for the others."""
    if getattr(parameter_info, "parser", None) is not None or getattr(parameter_info, "clamp", False):
        return None
    is_list = getattr(annotation, "__origin__", None) is list
    if is_list:
        args: tuple[Any, ...] = getattr(annotation, "__args__", ())
        if len(args) != 1:
            return None
        annotation = args[0]
    if annotation in (str, int, float, bool):
        return annotation, is_list
    return None


def install(command: Any) -> None:
    """Give the parameters of ``command`` (and of its subcommands) the plain converter where it applies;
    also the ``--help`` option, which click makes when a context first asks for it."""
    if RuntimeParam is None:
        return
    for param in getattr(command, "params", ()):
        _install_param(param)
    make_help = getattr(command, "get_help_option", None)
    if make_help is not None and not getattr(make_help, "_plain", False):

        def get_help_option(ctx: Any) -> Any:
            option = make_help(ctx)
            if option is not None:
                _install_param(option)
            return option

        get_help_option._plain = True  # type: ignore[attr-defined]
        command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        install(sub)


def _install_param(param: Any) -> None:
    if not isinstance(param, _TyperParameter) or getattr(param, "_runtime_param", 1) is not None:
        return
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None:
        return
    plain = None
    if getattr(descriptor, "file_annotation", None) is None:
        plain = _plain_kind(descriptor.annotation, descriptor.parameter_info)
    # Every parameter gets one: an option left out (None) is answered by the shared ``coerce`` without
    # a converter, so Typer's is built only for a value the plain path does not take (kind None: all).
    param._runtime_param = PlainRuntimeParam(
        parameter_info=descriptor.parameter_info,
        annotation=descriptor.annotation,
        kind=plain[0] if plain else None,
        is_list=plain[1] if plain else False,
        descriptor=descriptor,
    )
