"""Shared CLI output helpers: JSON dumping and error reporting."""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from typing import Any

import typer
from rich.console import Console

from gpuscout.errors import GpuscoutError

console = Console()
err_console = Console(stderr=True)


def to_jsonable(obj: Any) -> Any:
    """Convert dataclasses, enums, datetimes, tuples... into plain JSON values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        for name in dir(type(obj)):
            if isinstance(getattr(type(obj), name, None), property):
                out[name] = to_jsonable(getattr(obj, name))
        return out
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, datetime | date):
        return obj.isoformat()
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in obj]
    if hasattr(obj, "model_dump"):
        return to_jsonable(obj.model_dump(mode="json"))
    return obj


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on stdout (no Rich markup)."""
    sys.stdout.write(json.dumps(to_jsonable(obj), indent=2, default=str) + "\n")


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn gpuscout's own errors into a one-line message and exit code 2."""
    try:
        yield
    except GpuscoutError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
        raise typer.Exit(2) from exc
