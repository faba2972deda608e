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

import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from gpuscout.cli.consoles import console as console
from gpuscout.cli.consoles import err_console as err_console
from gpuscout.cli.consoles import wide_console as wide_console
from gpuscout.cli.markup import plain as plain
from gpuscout.cli.markup import printable as printable
from gpuscout.cli.plain_output import print_json as print_json
from gpuscout.cli.plain_output import print_records as print_records
from gpuscout.cli.plain_output import silence_stdout
from gpuscout.cli.plain_output import to_jsonable as to_jsonable
from gpuscout.cli.table_fit import PIPE_WIDTH as PIPE_WIDTH
from gpuscout.errors import GpuscoutError, InvalidInputError
from gpuscout.wording import key_words

DbOption = Annotated[
    str | None,
    typer.Option("--db", help="Database URL (default: $GPUSCOUT_DB or SQLite in the user data dir)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
CsvOption = Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")]


def print_with_notes(table: Any, assumptions: dict[str, str], warnings: list[str]) -> None:
    """A small estimate's table, then each assumption as ``key: value`` and each warning (``images``,
    ``transcribe``)."""
    from gpuscout.cli.wrap import print_wrapped

    console.print(table)
    for key, value in assumptions.items():  # under its key: a source's address whole
        print_wrapped(console, printable(value), prefix=f"{printable(key_words(key))}: ")
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {plain(warning)}", highlight=False)


def print_refusal(
    title: str, reason: str, assumptions: dict[str, str], warnings: list[str], *, escaped: bool = False
) -> None:
    """An estimate its engine (or stack) cannot run here, as every estimating command says it: no table,
    no speed; the title, the reason, what would run, the rule's sources, and the other warnings, once
    each. ``escaped``: ``title`` is already escaped for Rich markup (:func:`plain`)."""
    from gpuscout.cli.table_fit import title_lines

    # at its phrases ("512 in / 512 out" whole), not between any words as Rich would wrap it
    shown = title_lines(title if escaped else plain(title), console.width)
    console.print(f"[bold]{shown}[/]", highlight=False)
    console.print(f"[red]not supported:[/] {plain(reason)}", highlight=False)
    if assumptions.get("alternatives"):
        console.print(f"would run: {plain(assumptions['alternatives'])}", highlight=False)
    support = assumptions.get("support", "")
    extra = support[len(reason) :].strip() if support.startswith(reason) else support
    if extra.startswith("(sources: ") and extra.endswith(")"):
        extra = extra[1:-1]
    if (
        extra
    ):  # the rules' addresses, each whole on a line: folded by Rich, they could not be clicked or copied
        from gpuscout.cli.wrap import print_url_notes, print_wrapped, url_notes

        urls: list[str] = []
        print_wrapped(console, printable(url_notes(extra, urls)), style="dim")
        print_url_notes(console, urls)
    for warning in warnings:  # beside the reason: what the engine's version or platform leaves unsaid
        if warning != reason:
            console.print(f"[yellow]warning:[/] {plain(warning)}", highlight=False)


def number(low: float, high: float, *, open_range: bool = False) -> Callable[[str], float]:
    """The ``parser`` of a float option: a finite number in ``low..high`` (inclusive; ``open_range``:
    strictly between them), else a usage error (exit 2) naming the option and the range. ``nan`` and
    ``inf`` are refused (a range check alone lets ``nan`` through: every comparison with it is false)."""
    if open_range:
        accepted = f"accepted: a number above {low:,g} and below {high:,g}"
    else:
        accepted = f"accepted: a number from {low:,g} to {high:,g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise typer.BadParameter(f"{text!r} is not a number ({accepted})") from None
        inside = low < value < high if open_range else low <= value <= high
        if not math.isfinite(value) or not inside:
            raise typer.BadParameter(f"{text} is out of range ({accepted})")
        return value

    parse.__name__ = "number"
    return parse


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


#: The root command's context while a command line runs (:class:`GpuscoutGroup`): the words it was
#: run with are in its ``meta`` under ``_ARGS``, so that an error can name an option as it was typed.
_RUNNING: ContextVar[Any] = ContextVar("gpuscout_cli_running", default=None)
_ARGS = "gpuscout.args"


def _names_typed(words: Sequence[str], command: Any) -> dict[str, str]:
    """Each option name of ``command`` that ``words`` (its own part of the command line) use -> the
    name typed for the same option, the last one given (as click takes the last value): ``-c`` for
    every name of ``--concurrency/--users/-c`` when ``-c 0`` or ``-c0`` was typed."""
    options = [p for p in getattr(command, "params", ()) if getattr(p, "param_type_name", "") == "option"]
    names_of = {n: (*p.opts, *p.secondary_opts) for p in options for n in (*p.opts, *p.secondary_opts)}
    takes_value = {n for p in options if not getattr(p, "is_flag", False) for n in p.opts}
    typed: dict[str, str] = {}
    for word in words:
        if word == "--":  # the rest are arguments
            break
        if word.startswith("--"):
            found = [word.split("=", 1)[0]]
        elif word.startswith("-") and len(word) > 1:  # -c 0, -c0, or a cluster of short flags (-xc 0)
            found = []
            for char in word[1:]:
                found.append("-" + char)
                if "-" + char in takes_value or "-" + char not in names_of:
                    break  # the rest of the word is that option's value (or not options at all)
        else:
            continue
        for name in found:
            for alias in names_of.get(name, ()):
                typed[alias] = name
    return typed


def named_as_typed(exc: GpuscoutError) -> str:
    """The error's text, naming the option it is about as the user typed it: ``-c: 0 is out of range``
    for ``-c 0``, ``--users: ...`` for ``--users 0``, ``--sort: unknown sort ...`` for ``--sort foo``,
    where the error names the field (``concurrency``, ``users``, ``sort``) or a field the option is
    named after (``workload`` for ``--workload/-w``). Only an option typed on the command line is
    renamed (a value read from a workload file keeps its field)."""
    text = str(exc)
    ctx = _RUNNING.get()
    if not isinstance(exc, InvalidInputError) or ctx is None or not text.startswith(f"{exc.field}: "):
        return text
    words = tuple(ctx.meta.get(_ARGS, ()))
    command: Any = ctx.command
    while words and callable(getattr(command, "get_command", None)):  # down to the command run
        sub = command.get_command(ctx, words[0]) if not words[0].startswith("-") else None
        if sub is None:
            return text
        command, words = sub, words[1:]
    typed = _names_typed(words, command)
    fields = {exc.field, "--" + exc.field.replace("_", "-")}  # "workload" for --workload/-w
    for param in getattr(command, "params", ()):
        names = (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ()))
        if param.param_type_name == "option" and fields & {param.name, *names}:
            name = next((typed[n] for n in names if n in typed), None)
            return text if name is None else name + text[len(exc.field) :]
    return text


@contextmanager
def user_errors() -> Iterator[None]:
    """The error boundary: gpuscout's own errors exit 2, store and file-system failures exit 1. An
    error about an option the user typed names it as typed (:func:`named_as_typed`)."""
    try:
        yield
    except GpuscoutError as exc:
        fail(named_as_typed(exc), 2)
    except BrokenPipeError:  # the reader went away (`gpuscout offers | head`): stop quietly
        silence_stdout()
        raise typer.Exit(1) from None
    except Exception as exc:
        message = environment_error(exc)
        if message is None:
            raise
        fail(message, 1)


class GpuscoutGroup(TyperGroup):
    """The root command group: every command runs inside :func:`user_errors`, which can read the words
    the command line was run with (kept here, for :func:`named_as_typed`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's (vendored) click Context
        ctx.meta[_ARGS] = tuple(args)
        rest: list[str] = super().parse_args(ctx, args)
        return rest

    def invoke(self, ctx: Any) -> Any:
        running = _RUNNING.set(ctx)
        try:
            with user_errors():
                return super().invoke(ctx)
        except Exception as exc:
            if type(exc).__name__ == "NoSuchOption":  # click's, vendored or not
                suggest_by_meaning(exc)
            raise
        finally:
            _RUNNING.reset(running)


#: Words of an unknown option too common to say what it is about.
_VAGUE_WORDS = frozenset({"max", "min", "per", "the", "num", "number", "count", "total", "use", "set"})
#: At most this many options are suggested for one unknown option.
SUGGESTED_OPTIONS = 5


def _help_words(param: Any) -> str:
    """An option's help as the words it speaks, lower case: an environment variable it names
    (``$GPUSCOUT_DB``) is not a word of it (``--gpu`` is not about the database)."""
    return re.sub(r"\$\w+", " ", str(getattr(param, "help", "") or "")).lower()


def suggest_by_meaning(exc: Any) -> None:
    """Add to an unknown option's suggestions the command's options whose names or help speak of its
    words (``--tokens`` -> ``--output-total``, whose help says "Output tokens to generate in total"),
    before click's spelling matches (which offered ``--top`` for ``--tokens``)."""
    command = getattr(getattr(exc, "ctx", None), "command", None)
    typed = str(getattr(exc, "option_name", "") or "")
    words = [w for w in typed.lstrip("-").lower().replace("_", "-").split("-") if len(w) >= 3]
    words = [w.removesuffix("s") for w in words if w not in _VAGUE_WORDS]
    if command is None or not words:
        return
    by_name: list[str] = []
    by_help: list[str] = []
    for param in getattr(command, "params", ()):
        names = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
        if not names or getattr(param, "hidden", False):
            continue
        if any(w in name for w in words for name in names):
            by_name.append(names[0])
        elif any(re.search(rf"\b{re.escape(w)}", _help_words(param)) for w in words):
            by_help.append(names[0])
    spelled = list(getattr(exc, "possibilities", None) or [])
    # an option named by the word first; its help's words only where no option is named so
    exc.possibilities = list(dict.fromkeys([*(by_name or by_help), *spelled]))[:SUGGESTED_OPTIONS]
