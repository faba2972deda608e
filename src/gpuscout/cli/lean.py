"""``gpuscout offers`` answered without building the Typer app: a renter's most common command.

Importing Typer (with its Click) and building the command costs more than the whole answer. So
:func:`run` reads the arguments of ``offers`` itself when every one of them is an option of the
command written the plain way Click reads it (``--gpu H100``, ``--gpu=H100``, a flag), with a
value the Typer command accepts exactly as given; it then runs the command's own code
(:mod:`gpuscout.cli.offers_view`) and prints the table, the JSON or the CSV.

Anything else is left to Typer, which answers as it always did: ``--help``, an unknown or
misspelt option, a missing value, a value that starts with ``-``, a number Typer would refuse or
read another way, and every error of the command itself (an unknown GPU, ``--spot`` with
``--on-demand``, a store that cannot be read...), and a store that is not a SQLite file
(PostgreSQL goes through SQLAlchemy either way). :func:`run` then returns ``None`` having printed
nothing, and the caller runs the Typer app; an error therefore reads exactly as it does there. (A
SQLite store locked by a writer past the 30 s busy timeout is waited for twice.)
``tests/cli/test_lean.py`` runs a matrix of invocations both ways and requires the same bytes.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuscout.cli.offers_view import OffersOptions

_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")  # what cli.coercion converts without Typer


def _value_options() -> dict[str, tuple[str, str, float, float]]:
    """``offers`` options that take a value: name -> (parameter, kind, low, high). Kinds: ``list``
    (repeatable text), ``str``, ``int`` and ``number`` within the inclusive range the command declares."""
    from gpuscout.catalog.filter_bounds import MAX_GPU_MEMORY_GB, MAX_GPUS_PER_OFFER, MAX_PRICE_USD_PER_HOUR
    from gpuscout.cli.offers_view import MAX_ROWS

    return {
        "--gpu": ("gpu", "list", 0, 0),
        "--provider": ("provider", "list", 0, 0),
        "--region": ("region", "list", 0, 0),
        "--interconnect": ("interconnect", "str", 0, 0),
        "--sort": ("sort", "str", 0, 0),
        "--db": ("db", "str", 0, 0),
        "--min-vram": ("min_vram", "number", 0, MAX_GPU_MEMORY_GB),
        "--max-price": ("max_price", "number", 0, MAX_PRICE_USD_PER_HOUR),
        "--gpus": ("gpus", "int", 1, MAX_GPUS_PER_OFFER),
        "--limit": ("limit", "int", 0, MAX_ROWS),
    }


_FLAGS: dict[str, tuple[str, bool]] = {
    "--spot": ("spot", True),
    "--on-demand": ("on_demand", True),
    "--available": ("available", True),
    "--no-stale": ("fresh_only", True),
    "--include-stale": ("fresh_only", False),
    "--json": ("json_out", True),
    "--csv": ("csv_out", True),
}


def parse_offers(args: list[str]) -> OffersOptions | None:
    """The option values (:class:`~gpuscout.cli.offers_view.OffersOptions`) that the Typer command would
    receive for ``gpuscout offers ARGS``; ``None`` unless that is certain (see the module docstring)."""
    from gpuscout.cli.offers_view import OffersOptions

    values: dict[str, Any] = {}  # the options given; the others keep OffersOptions' defaults
    defaults = OffersOptions()
    options = _value_options()
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        name, eq, given = token.partition("=")
        if name in _FLAGS and not eq:
            field, value = _FLAGS[name]
            values[field] = value
            continue
        spec = options.get(name)
        if spec is None or not token.startswith("--"):
            return None
        if eq:
            text = given
        elif i < len(args):
            text = args[i]
            i += 1
        else:
            return None
        if text.startswith("-"):
            return None
        param, kind, low, high = spec
        if kind == "list":
            values[param] = [*(values.get(param) or getattr(defaults, param) or ()), text]
        elif kind == "str":
            values[param] = text
        elif kind == "int":
            if not _INT.fullmatch(text) or not low <= int(text) <= high:
                return None
            values[param] = int(text)
        else:  # cli.output.number: float(text), finite, within the range
            try:
                number = float(text)
            except ValueError:
                return None
            if not math.isfinite(number) or not low <= number <= high:
                return None
            values[param] = number
    return OffersOptions(**values)


def run(args: list[str]) -> int | None:
    """Answer ``gpuscout ARGS`` when it is an ``offers`` command read here (see the module docstring)
    and return its exit code; ``None``, with nothing printed, for the Typer app to answer."""
    if not args or args[0] != "offers":
        return None
    parsed = parse_offers(args[1:])
    if parsed is None:
        return None
    from gpuscout.catalog.paths import default_db_url
    from gpuscout.catalog.reader import sqlite_path
    from gpuscout.cli.offers_view import find_offers, print_offers_table, why_no_offers
    from gpuscout.errors import GpuscoutError

    try:
        values = replace(parsed, db=parsed.db or default_db_url())
        if sqlite_path(values.db or "") is None:
            return None  # PostgreSQL (SQLAlchemy's): Typer's start-up is small beside it, and its
            # errors (an unreachable server) are met once, not twice
        offers, total, stale_hidden = find_offers(values)
        # an empty table says why in one line, as the Typer command's does
        empty = not total and not (values.json_out or values.csv_out)
        why_none = why_no_offers(values) if empty else ""
    except (GpuscoutError, OSError):
        return None  # Typer's path says what is wrong, in its words
    except KeyboardInterrupt:
        return 130  # as the Typer app ends on Ctrl-C: silently, with 130
    except Exception as exc:
        if type(exc).__module__.startswith(("sqlite3", "sqlalchemy")):
            return None
        raise
    try:
        if values.json_out:
            from gpuscout.cli.offers_view import age_text
            from gpuscout.cli.plain_output import print_records

            print_records(offers, lambda o: {"age": age_text(o)})
        elif values.csv_out:
            from gpuscout.cli.offers_view import print_offers_csv

            print_offers_csv(offers)
        else:
            print_offers_table(
                offers, total, values.sort, spot=values.spot, why_none=why_none, stale_hidden=stale_hidden
            )
        sys.stdout.flush()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`gpuscout offers | head`), as the error boundary
        from gpuscout.cli.plain_output import silence_stdout

        silence_stdout()
        return 1
    return 0
