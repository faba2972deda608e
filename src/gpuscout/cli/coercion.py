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

Token counts (``--prompt 32k``, ``--tokens 1.5T``) are read here too, by the one parser
:func:`token_count`: an option declared with ``parser=parse_tokens`` is converted by it, its errors naming
the option as typed and what a token count may be (:data:`TOKENS_ACCEPTED`); other counts written the
same way (``--images 100k``) by :func:`whole_count` through ``parser=parse_count``.

Every number option says its range when it refuses a value: a whole number declares ``min``/``max``
(from the limits of :mod:`gpuscout.estimate.arguments`), a decimal one whose range ``min``/``max`` cannot
state (an open bound: ``> 0``; ``inf`` that means something) declares ``parser=number_in(words)``, the
words its command's own check says the range in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.arguments import (  # the one parser and limits, shared with the workload and web
    COUNT_HELP,
    TOKENS_ACCEPTED,
    TOKENS_HELP,
    shown_number,
    token_count,
    whole_count,
    whole_number_text,
)

__all__ = [
    "COUNT_HELP",
    "TOKENS_ACCEPTED",
    "TOKENS_HELP",
    "install",
    "number_in",
    "parse_count",
    "parse_tokens",
    "token_count",
]

_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?:[eE][-+]?[0-9]{1,3})?")


def parse_tokens(text: str) -> int:
    """The ``parser`` of a token-count option (``typer.Option(..., parser=parse_tokens)``):
    :func:`token_count`. Where :func:`install` applies (it does on the Typer this project pins), the
    option is converted by :class:`PlainRuntimeParam`, whose errors name the option; this is Typer's
    own path otherwise."""
    return token_count(text, "value")


def parse_count(text: str) -> int:
    """The ``parser`` of a count of something else (``--images 100k``): :func:`whole_count`, converted
    as :func:`parse_tokens` is."""
    return whole_count(text, "value")


# A count option's parser -> (its reader, what its range refusal calls the value)
_COUNT_PARSERS: dict[Callable[[str], int], tuple[Callable[[Any, str], int], str]] = {
    parse_tokens: (token_count, "a token count"),
    parse_count: (whole_count, "a count"),
}


def number_in(accepted: str) -> Callable[[str], float]:
    """The ``parser`` of a decimal option whose range its command checks and ``min``/``max`` cannot state
    (``--request-rate``: ``> 0, <= 1e+06``, and ``inf``): any number Python reads, passed on for that
    check; text that is not a number is refused naming the option and ``accepted``, the words of that
    range (the check's own), not "a number"."""

    def parse(text: str) -> float:
        value = _plain(float, text)
        if value is NotImplemented:
            try:
                value = _number_or_refusal(float, str(text), "value", accepted)
            except InvalidInputError as exc:
                raise _bad_parameter(f"{exc.message} (accepted: {accepted})") from None
        return float(value)

    parse.__name__ = "number_in"
    parse.accepted_words = accepted  # type: ignore[attr-defined]  # read by install()
    return parse


def _bad_parameter(message: str) -> Exception:
    """Click's usage error (exit 2) with ``message``: Typer's own path, where :func:`install` does not
    apply."""
    import typer

    return typer.BadParameter(message)


try:  # Typer's private coercion layer; absent in the versions that do not need this
    from typer._click.exceptions import BadParameter
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


def _number_or_refusal(kind: type, text: str, name: str, accepted: str) -> Any:
    """A number option's text the plain pattern does not take: an ``int`` written as a whole number in
    any notation (``1e9``, ``2.0``: a count typed so is a count, refused by its range if out of it), a
    ``float`` Python reads (``.5``, ``inf``, ``nan``: the command's own checks refuse what it cannot
    use, as before); anything else an :class:`InvalidInputError` naming the option and ``accepted``."""
    if kind is int:
        number = whole_number_text(text)
        if number is None:
            raise InvalidInputError(name, f"{text.strip()[:40]!r} is not a whole number", accepted)
        return number
    try:
        if not text.isascii():  # Python reads other scripts' digits ("٣"); a number option does not
            raise ValueError(text)
        return float(text)
    except ValueError:
        raise InvalidInputError(name, f"{text.strip()[:40]!r} is not a number", accepted) from None


def _range_words(kind: type | None, low: Any, high: Any) -> str:
    """What an option with ``min``/``max`` accepts, in the estimator's words for a whole number
    (``1..1024``, as ``int_in`` writes it) and the ``number`` parser's for a decimal one."""
    if kind is int:
        if low is not None and high is not None:
            return f"{low}..{high}"
        return f"a whole number >= {low}" if low is not None else f"a whole number <= {high}"
    if low is not None and high is not None:
        return f"a number from {low:,g} to {high:,g}"
    return f"a number >= {low:g}" if low is not None else f"a number <= {high:g}"


def _option_name(param: Any) -> str:
    """The option's first long name (the error boundary writes the one typed: ``-c`` for ``-c 0``)."""
    names = [*getattr(param, "opts", ())]
    return next((n for n in names if n.startswith("--")), names[0] if names else "value")


_ACCEPTED_SUFFIX = re.compile(r"(?s)(?P<message>.*?) \(accepted: (?P<accepted>.*)\)\.?")


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class PlainRuntimeParam(RuntimeParam):
        """Converts str/int/float values (and lists of them) itself; Typer's converter does the rest.

        Every number it refuses is refused in the house shape, naming the option and what it accepts
        (``--concurrency: 'abc' is not a whole number (accepted: ...)``, ``--images: 0 is out of range
        (accepted: 1..1000000000)``), as the estimator and the workload refuse theirs; so is a value a
        ``parser`` refuses with the words it accepts (:func:`gpuscout.cli.output.number`)."""

        kind: type | None = None  # None: Typer converts every value (a token count: ``tokens``)
        is_list: bool = False
        descriptor: Any = None
        _typer: list[Any] = field(default_factory=list)  # Typer's converter, built when first needed
        tokens: type | None = None  # a count (``parser=parse_tokens`` / ``parse_count``) read as this type
        words: str = ""  # what a ``number_in`` option accepts (its ``parser``'s words)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.tokens is not None:
                return self._token_count(value, param)
            out = self._convert(value, param)
            if out is NotImplemented:
                if not self._typer:
                    self._typer.append(build_runtime_param(self.descriptor))
                try:
                    return self._typer[0]._coerce_value(value, param=param, ctx=ctx)
                except BadParameter as exc:
                    said = _ACCEPTED_SUFFIX.fullmatch(str(exc.message))
                    if said is None:
                        raise
                    name = _option_name(param)
                    raise InvalidInputError(name, said["message"], said["accepted"]) from None
            return out

        def _convert(self, value: Any, param: Any) -> Any:
            if self.kind is None:
                return NotImplemented
            if self.is_list:
                items = value if isinstance(value, list | tuple) else [value]
                out = [self._one(v, param) for v in items]
                return NotImplemented if any(v is NotImplemented for v in out) else out
            return self._one(value, param)

        def _token_count(self, value: Any, param: Any) -> Any:
            """``value`` read by :func:`token_count` (or :func:`whole_count`, the option's parser's reader),
            within the option's ``min``/``max``; an error names the option by its first long name (the error
            boundary writes the one typed)."""
            name = _option_name(param)
            parser = self.parameter_info.parser
            assert parser is not None  # a count option (``_token_kind``): its parser is one of them
            read, a_count = _COUNT_PARSERS[parser]
            count = read(value, name)
            info = self.parameter_info
            low, high = info.min, info.max
            if (low is not None and count < low) or (high is not None and count > high):
                span = (
                    f"from {low:,} to {high:,}"
                    if low is not None and high is not None
                    else f"of at least {low:,}"
                    if low is not None
                    else f"of at most {high:,}"
                )
                raise InvalidInputError(name, f"{shown_number(count)} is out of range", f"{a_count} {span}")
            assert self.tokens is not None
            return self.tokens(count)

        def _one(self, value: Any, param: Any) -> Any:
            assert self.kind is not None
            out = _plain(self.kind, value)
            if self.kind in (str, bool):
                return out
            info = self.parameter_info
            low, high = info.min, info.max
            ranged = low is not None or high is not None
            accepted = (
                self.words
                or (_range_words(self.kind, low, high) if ranged else "")
                or f"a {_KIND_WORDS[self.kind]}"
            )
            if out is NotImplemented:
                if not isinstance(value, str):
                    return NotImplemented  # not typed: Typer's own conversion
                out = _number_or_refusal(self.kind, value, _option_name(param), accepted)
            inside = (low is None or out >= low) and (high is None or out <= high)
            if ranged and not inside and not isinstance(value, str):
                return NotImplemented  # not typed (a default): Typer's own conversion, as before
            if ranged and not inside:  # nan is inside no range
                raise InvalidInputError(_option_name(param), f"{shown_number(out)} is out of range", accepted)
            return out


#: How an error says what a number option takes when it states no range.
_KIND_WORDS = {int: "whole number", float: "number"}


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
    plain: tuple[type, bool] | None = None
    words = _number_in_words(descriptor.annotation, descriptor.parameter_info)
    if words:
        plain = (float, False)
    elif getattr(descriptor, "file_annotation", None) is None:
        plain = _plain_kind(descriptor.annotation, descriptor.parameter_info)
    counts = _token_kind(descriptor.annotation, descriptor.parameter_info)
    # Every parameter gets one: an option left out (None) is answered by the shared ``coerce`` without
    # a converter, so Typer's is built only for a value the plain path does not take (kind None: all).
    param._runtime_param = PlainRuntimeParam(
        parameter_info=descriptor.parameter_info,
        annotation=descriptor.annotation,
        kind=plain[0] if plain else None,
        is_list=plain[1] if plain else False,
        descriptor=descriptor,
        tokens=counts,
        words=words,
    )


def _number_in_words(annotation: Any, parameter_info: Any) -> str:
    """What a ``number_in`` option (one float, or ``None``) accepts; "" for any other option."""
    words = getattr(getattr(parameter_info, "parser", None), "accepted_words", "")
    args = set(getattr(annotation, "__args__", (annotation,))) - {type(None)}
    return words if isinstance(words, str) and args == {float} else ""


def _token_kind(annotation: Any, parameter_info: Any) -> type | None:
    """``int`` or ``float`` for a count option (``parser=parse_tokens`` or ``parse_count``, one value of
    that type or ``None``), else ``None``."""
    if getattr(parameter_info, "parser", None) not in _COUNT_PARSERS:
        return None
    args = set(getattr(annotation, "__args__", (annotation,))) - {type(None)}
    return next(iter(args)) if len(args) == 1 and args <= {int, float} else None
