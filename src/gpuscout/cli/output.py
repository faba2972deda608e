"""Shared CLI pieces: the options every area uses, JSON dumping, the wide console, and the error boundary.

The error boundary (:func:`user_errors`, also installed around every command by
:class:`GpuscoutGroup`) turns failures into one line on stderr and an exit code, never a traceback:

* exit 2: a bad input, named with the field and what is accepted (:class:`~gpuscout.errors.GpuscoutError`);
* exit 1: the store or the file system failed (database unreachable or refusing, disk full, read-only
  file system, permission denied): what failed and the system's own reason.

Anything else is a bug and keeps its traceback.

Text that comes from providers, files or the user (names, regions, reasons, errors) is printed as
text, never as Rich markup: it goes through :func:`plain` wherever it meets markup of ours, and the
consoles do not replace ``:emoji:`` codes.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import operator
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from typer.core import TyperGroup

from gpuscout.errors import GpuscoutError

console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False)

#: Width of tables when the output is not a terminal (pipes, files, tests): wide enough for a row.
PIPE_WIDTH = 220

DbOption = Annotated[
    str | None,
    typer.Option("--db", help="Database URL (default: $GPUSCOUT_DB or SQLite in the user data dir)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
CsvOption = Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")]


def number(low: float, high: float) -> Callable[[str], float]:
    """The ``parser`` of a float option: a finite number in ``low..high`` (inclusive), else a usage
    error (exit 2) naming the option and the range. ``nan`` and ``inf`` are refused (a range check
    alone lets ``nan`` through: every comparison with it is false)."""
    accepted = f"accepted: a number from {low:,g} to {high:,g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise typer.BadParameter(f"{text!r} is not a number ({accepted})") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise typer.BadParameter(f"{text} is out of range ({accepted})")
        return value

    parse.__name__ = "number"
    return parse


def wide_console() -> Console:
    """The shared console, or a wide one without colours when output is not a terminal."""
    return console if console.is_terminal else Console(width=PIPE_WIDTH, no_color=True, emoji=False)


#: A "[" and the backslashes before it, with the tag Rich would read there (``[bold]``, ``[/]``,
#: ``[link=...]``: the same pattern as ``rich.markup.RE_TAGS``), if any.
_BRACKET = re.compile(r"(\\*)(\[(?:[a-z#/@][^[]*?\])?)")


def plain(value: object) -> str:
    """``str(value)`` escaped for Rich markup: shown exactly as written, never read as a style, a
    closing tag (``[/]`` would raise) or a hidden link (``[link=...]``); control characters are
    shown as ``\\xNN`` (see :func:`printable`).

    Unlike ``rich.markup.escape`` it also keeps a backslash before a "[" that starts no tag (Rich
    drops it). Do not put a value directly before a tag of ours (``f"{plain(x)}[/]"``): a trailing
    backslash would escape the tag; use ``Text.assemble`` there.
    """

    def keep(match: re.Match[str]) -> str:
        backslashes, bracket = match.groups()
        if len(bracket) > 1:  # a tag: every backslash kept, and the tag escaped
            return backslashes * 2 + "\\" + bracket
        return backslashes + ("\\" if backslashes else "") + bracket  # Rich turns "\[" into "["

    return _BRACKET.sub(keep, printable(value))


#: Control characters (C0 but tab and newline, DEL, C1): a raw ESC would let a provider string
#: send terminal escape sequences (colours, cursor moves, OSC 8 hidden links).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(value: object) -> str:
    """``str(value)`` with control characters shown as ``\\xNN`` (for text given to ``Text``)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _shape(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A dataclass's field names and (in ``dir`` order) its property names."""
    fields = tuple(f.name for f in dataclasses.fields(cls))
    return fields, tuple(n for n in dir(cls) if isinstance(getattr(cls, n, None), property))


def to_jsonable(obj: Any) -> Any:
    """Convert dataclasses (their fields, then their properties), enums, datetimes, tuples... into
    plain JSON values."""
    kind: type = type(obj)
    if kind in _PLAIN_TYPES:  # the common leaf, answered before the checks below
        return obj
    how = _KINDS.get(kind) or _kind_of(kind)
    if how is _Kind.DATACLASS:
        fields, properties = _shape(kind)
        out = {}
        for name in fields:  # a plain value is kept as it is without a call (most fields are)
            value = getattr(obj, name)
            out[name] = value if type(value) in _PLAIN_TYPES else to_jsonable(value)
        for name in properties:
            value = getattr(obj, name)
            out[name] = value if type(value) in _PLAIN_TYPES else to_jsonable(value)
        return out
    if how is _Kind.ENUM:
        return obj.value
    if how is _Kind.DATETIME:
        return obj.isoformat()
    if how is _Kind.DICT:
        return {str(k): v if type(v) in _PLAIN_TYPES else to_jsonable(v) for k, v in obj.items()}
    if how is _Kind.SEQUENCE:
        return [v if type(v) in _PLAIN_TYPES else to_jsonable(v) for v in obj]
    if hasattr(obj, "model_dump"):
        return to_jsonable(obj.model_dump(mode="json"))
    return obj


class _Kind(enum.Enum):
    DATACLASS = 1
    ENUM = 2
    DATETIME = 3
    DICT = 4
    SEQUENCE = 5
    OTHER = 6


#: How :func:`to_jsonable` converts an instance of each type seen (the checks run once per type).
_KINDS: dict[type, _Kind] = {}


def _kind_of(cls: type) -> _Kind:
    if dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        how = _Kind.DATACLASS
    elif issubclass(cls, enum.Enum):
        how = _Kind.ENUM
    elif issubclass(cls, datetime | date):
        how = _Kind.DATETIME
    elif issubclass(cls, dict):
        how = _Kind.DICT
    elif issubclass(cls, list | tuple | set | frozenset):
        how = _Kind.SEQUENCE
    else:
        how = _Kind.OTHER
    _KINDS[cls] = how
    return how


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on stdout (no Rich markup)."""
    from gpuscout.cli.json_text import dumps_indented

    sys.stdout.write(dumps_indented(to_jsonable(obj)) + "\n")


def print_records(items: Sequence[Any], more: Callable[[Any], dict[str, Any]]) -> None:
    """``print_json([{**to_jsonable(o), **more(o)} for o in items])`` for instances of one dataclass,
    each written straight from its attributes (no dict per object, no walk over one): listing every
    match of a query at 100,000 offers spent more time building and walking those than reading."""
    from gpuscout.cli.json_text import dumps_indented, object_lines

    try:
        texts = []
        for obj in items:
            extra = more(obj)
            kind: type = type(obj)
            texts.append(object_lines(_record_parts(kind, tuple(extra))(obj), extra, to_jsonable, 1))
    except ValueError:  # not a plain dataclass, or ``more`` names one of its fields
        sys.stdout.write(dumps_indented(to_jsonable([{**to_jsonable(o), **more(o)} for o in items])) + "\n")
        return
    sys.stdout.write(("[\n  " + ",\n  ".join(texts) + "\n]" if texts else "[]") + "\n")


@functools.cache
def _record_parts(cls: type, more: tuple[str, ...]) -> Callable[[Any], list[tuple[str, Any]]]:
    """``(key text, value)`` of each field, then each property, of an instance of ``cls`` (the order
    of :func:`to_jsonable`; the key as :func:`~gpuscout.cli.json_text.object_lines` takes it)."""
    if _KINDS.get(cls) is not _Kind.DATACLASS and _kind_of(cls) is not _Kind.DATACLASS:
        raise ValueError(f"{cls.__name__} is not a dataclass")
    fields, properties = _shape(cls)
    names = (*fields, *properties)
    if set(names) & set(more):
        raise ValueError("an added key is a field")
    from gpuscout.cli.json_text import key_text

    heads = tuple(key_text(n) for n in names)
    getter = operator.attrgetter(*names)
    return lambda obj: list(zip(heads, getter(obj), strict=True))


def fail(message: str, code: int) -> NoReturn:
    """Print ``error: message`` on stderr (text shown as is, never as markup) and exit with ``code``."""
    err_console.print(f"[bold red]error:[/] {plain(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def environment_error(exc: BaseException) -> str | None:
    """What a store or file-system failure means for the user, or ``None`` when ``exc`` is neither."""
    sa_exc = sys.modules.get("sqlalchemy.exc")  # only loaded when a command used the store
    if sa_exc is not None and isinstance(exc, sa_exc.SQLAlchemyError):
        orig = getattr(exc, "orig", None)  # the driver's own error, without the SQL and its parameters
        reason = str(orig if orig is not None else exc).strip().splitlines()
        text = reason[0] if reason else type(exc).__name__
        return f"the store cannot be used: {text} ({type(orig or exc).__name__})"
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot use{where}: {exc.strerror or exc} ({type(exc).__name__})"
    return None


@contextmanager
def user_errors() -> Iterator[None]:
    """The error boundary: gpuscout's own errors exit 2, store and file-system failures exit 1."""
    try:
        yield
    except GpuscoutError as exc:
        fail(str(exc), 2)
    except BrokenPipeError:  # the reader went away (`gpuscout offers | head`): stop quietly
        _silence_stdout()
        raise typer.Exit(1) from None
    except Exception as exc:
        message = environment_error(exc)
        if message is None:
            raise
        fail(message, 1)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test runner's buffer): nothing to silence
        pass


class GpuscoutGroup(TyperGroup):
    """The root command group: every command runs inside :func:`user_errors`."""

    def invoke(self, ctx: Any) -> Any:  # typer's (vendored) click Context
        with user_errors():
            return super().invoke(ctx)
