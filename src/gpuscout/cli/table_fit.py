"""Tables that fit the terminal they are printed on.

Rich shares a narrow terminal's width among all columns, so at 80 columns a 12-column table becomes
a stack of 4-character slivers in which "1.000" wraps into "1.00" / "0". Instead, a table here names
the order in which its least useful columns give way, drops them until the rest fit at their natural
width, never wraps a number, and says below the table which columns it left out (``--csv`` and
``--json`` always carry every field).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:  # Rich is imported when a table is built: a column list alone does not need it
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

#: Width of tables when the output is not a terminal (pipes, files, tests): wide enough for a row.
PIPE_WIDTH = 220
#: What a column costs beyond its text: one space of padding on each side and a rule.
_COLUMN_CHROME = 3


@dataclass(frozen=True)
class Column:
    """One column: ``drop`` orders the columns that may give way (1 first); ``None`` is always kept.
    ``max_width`` cuts longer text with an ellipsis (identifiers such as instance names). ``wrap``
    text may break between its words when the table is narrow: the column then counts as wide as
    its longest word, and Rich wraps the longer cells into the room left to it."""

    header: str
    right: bool = False
    drop: int | None = None
    max_width: int | None = None
    wrap: bool = False


Cell: TypeAlias = "str | Text"
"""A cell: markup of ours (a ``str``) or text as it is (a ``Text``: provider strings, user input)."""


def _cell_width(cell: Cell) -> int:
    from rich.cells import cell_len
    from rich.text import Text

    if type(cell) is str and "[" not in cell and ":" not in cell and cell.isprintable():
        return cell_len(cell)  # no markup, no emoji code, one line: what Text would measure, read at once
    text = cell if isinstance(cell, Text) else Text.from_markup(cell)
    return max((line.cell_len for line in text.split("\n")), default=0)


def _longest_word(cell: Cell) -> int:
    from rich.cells import cell_len
    from rich.text import Text

    text = cell.plain if isinstance(cell, Text) else Text.from_markup(cell).plain
    return max((cell_len(word) for word in text.split()), default=0)


def _natural_width(column: Column, cells: Sequence[Cell], *, capped: bool) -> int:
    measure = _longest_word if capped and column.wrap else _cell_width
    widest = max((measure(cell) for cell in cells), default=0)
    if capped and column.max_width is not None:
        widest = min(widest, column.max_width)
    # a column that never wraps (numbers, cut identifiers) does not wrap its header either
    no_wrap = column.right or (capped and column.max_width is not None)
    lines = column.header.split("\n")  # a header may be given on two lines ("Bandwidth\nGB/s")
    words = column.header.split()
    header = max(len(line) for line in lines) if no_wrap else max((len(w) for w in words), default=0)
    return max(widest, header, 1)


def fitted_table(
    title: str | None, columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int | None
) -> tuple[Table, list[str]]:
    """The table of ``rows`` (one cell per column) within ``width`` terminal cells, and the
    headers of the columns left out to get there (empty when everything fits). ``width=None`` (output
    to a pipe or a file, read by programs and people alike) keeps every column. Long identifiers are cut
    to their ``max_width`` only when the whole text does not fit."""
    from rich.table import Table

    kept = list(range(len(columns)))
    cells = [[r[i] for r in rows] for i in range(len(columns))]
    widths = [_natural_width(c, cells[i], capped=False) for i, c in enumerate(columns)]
    capped = width is not None and sum(w + _COLUMN_CHROME for w in widths) + 1 > width
    if capped:
        widths = [_natural_width(c, cells[i], capped=True) for i, c in enumerate(columns)]
    droppable = sorted((c.drop, i) for i, c in enumerate(columns) if c.drop is not None)

    def total() -> int:
        return sum(widths[i] + _COLUMN_CHROME for i in kept) + 1

    for _, index in droppable:
        if width is None or total() <= width:
            break
        kept.remove(index)
    wrapping = [i for i in kept if capped and columns[i].wrap]
    # the room left is shared by the wrapping columns, so Rich narrows no other column to make it
    share = max(width - total(), 0) // len(wrapping) if width is not None and wrapping else 0
    table = Table(title=title)
    for i in kept:
        c = columns[i]
        if c.right:
            table.add_column(c.header, justify="right", no_wrap=True)
        elif capped and c.max_width is not None:
            table.add_column(c.header, overflow="ellipsis", no_wrap=True, max_width=c.max_width)
        elif i in wrapping:
            table.add_column(c.header, overflow="fold", max_width=widths[i] + share)
        else:
            table.add_column(c.header, overflow="fold")
    for row in rows:
        table.add_row(*(row[i] for i in kept))
    return table, [columns[i].header for i in range(len(columns)) if i not in kept]


def terminal_width(console: Console) -> int | None:
    """The width to fit a table to: the terminal's, or None when the output is not a terminal."""
    return console.width if console.is_terminal else None


def left_out_note(headers: Sequence[str]) -> str | None:
    """The line printed under a table that left columns out, or None."""
    if not headers:
        return None
    return f"not shown at this width: {', '.join(headers)} (a wider terminal, --csv or --json show them)"
