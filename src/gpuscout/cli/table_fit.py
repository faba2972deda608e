"""Tables that fit the terminal they are printed on.

Rich shares a narrow terminal's width among all columns, so at 80 columns a 12-column table becomes
a stack of 4-character slivers in which "1.000" wraps into "1.00" / "0". Instead, a table here names
the order in which its least useful columns give way, drops them until the rest fit at their natural
width, never wraps a number, and says below the table which columns it left out (``--csv`` and
``--json`` always carry every field).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
    its longest word (words joined by a no-break space count as one: "32/32 × 128"), and the longer
    cells wrap into the room left to it. A ``whole`` column (a
    name) is never wrapped: where even the columns that give way leave it no room, Rich cuts its cells
    with an ellipsis, never silently."""

    header: str
    right: bool = False
    drop: int | None = None
    max_width: int | None = None
    wrap: bool = False
    #: Where every row shows the same text (:func:`same_on_every_row`), the column gives way before
    #: any column whose rows differ, in this order (1 first), whether or not it has a ``drop``: a
    #: value the rows share says nothing to tell them apart, and the caller says it once beside the
    #: table (``None``: it gives way only as ``drop`` says).
    same: int | None = None
    whole: bool = False


Cell: TypeAlias = "str | Text"
"""A cell: markup of ours (a ``str``) or text as it is (a ``Text``: provider strings, user input)."""


@dataclass(frozen=True)
class Short:
    """A cell with shorter forms: ``full`` where the table has room; where its column is cut to its
    ``max_width`` and ``full`` is longer, the first of ``shorter`` that fits, else the last of them
    ("Google Cloud" for "Google Cloud (Compute Engine)", "aws" for "Amazon Web Services (EC2)", never
    "Amazon Web Se…"): a name cut mid-word reads as nothing, a short one (an id the commands take) as
    the same thing."""

    full: Cell
    shorter: tuple[Cell, ...]


@dataclass(frozen=True)
class Fold:
    """How a table folds rows that read alike once its columns are fitted: rows whose cells, as shown
    (every column kept but those named in ``ignore``, identifiers cut to their ``max_width``), are the
    same differ only in what is not shown (the columns left out, the end of a cut name). The first of
    them stays, the rest go, and ``note(indices)`` (the rows folded together, indices into ``rows``)
    is written under its cell in the column headed ``at``: "#29, #30: 2 regions". Rows in ``keep``
    are never folded (a row that stands for rows cut, say)."""

    at: str
    note: Callable[[Sequence[int]], str]
    ignore: tuple[str, ...] = ()
    keep: frozenset[int] = field(default_factory=frozenset)


#: Where a long title may break, after the mark (outside brackets): so that no phrase is cut.
TITLE_BREAKS = (" — ", " · ", ", ", ": ")


def same_on_every_row(cells: Sequence[Cell]) -> str | None:
    """The text every one of ``cells`` shows (markup read), where there are two or more and they all
    show the same; else ``None``: one row has nothing to share."""
    from rich.text import Text

    texts = {cell.plain if isinstance(cell, Text) else Text.from_markup(cell).plain for cell in cells}
    return next(iter(texts)) if len(cells) > 1 and len(texts) == 1 else None


def _cell_width(cell: Cell) -> int:
    from rich.cells import cell_len
    from rich.text import Text

    if type(cell) is str and "[" not in cell and ":" not in cell and cell.isprintable():
        return cell_len(cell)  # no markup, no emoji code, one line: what Text would measure, read at once
    text = cell if isinstance(cell, Text) else Text.from_markup(cell)
    return max((line.cell_len for line in text.split("\n")), default=0)


def _longest_word(cell: Cell) -> int:
    from rich.text import Text

    from gpuscout.cli.wrap import longest_word

    return longest_word(cell.plain if isinstance(cell, Text) else Text.from_markup(cell).plain)


def _unbroken(cell: Cell, room: int | None) -> Cell:
    """A cell whose words are joined by no-break spaces (:data:`~gpuscout.cli.wrap.NBSP`: "32/32 × 128"
    kept on one line) as Rich is to print it: broken at its plain spaces onto lines of at most ``room``
    cells (``None``: not broken), each no-break space then a plain one. Rich breaks at a no-break space
    as at any other (it would print "MHA 32/32 ×" / "128"); lines no wider than the column it leaves
    alone. Other cells as they are."""
    from rich.text import Text

    from gpuscout.cli.wrap import NBSP, break_at, shown

    if NBSP not in (cell.plain if isinstance(cell, Text) else cell):
        return cell
    text = cell.copy() if isinstance(cell, Text) else Text.from_markup(cell)
    chars = list(text.plain)
    for i in break_at(text.plain, room) if room is not None else []:
        chars[i] = "\n"
    text.plain = shown("".join(chars))  # as long as before: the styles stay where they were
    return text


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


def _shown_text(cell: Cell, column: Column, capped: bool) -> str:
    """A cell's text as the table shows it: a cut identifier ends where its ``max_width`` cuts it."""
    from rich.text import Text

    text = cell.plain if isinstance(cell, Text) else Text.from_markup(cell).plain
    if not (capped and column.max_width is not None and not column.wrap):
        return text
    cut = column.max_width
    return "\n".join(line if len(line) <= cut else line[: cut - 1] + "…" for line in text.split("\n"))


def _folded(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell]], kept: Sequence[int], capped: bool, fold: Fold
) -> list[tuple[int, Sequence[Cell]]]:
    """``rows`` with those that read alike in the ``kept`` columns folded into the first of them
    (:class:`Fold`), each with its index in ``rows``."""
    from rich.text import Text

    at = next((i for i in kept if columns[i].header == fold.at), None)
    compared = [i for i in kept if columns[i].header not in fold.ignore]
    if at is None:
        return list(enumerate(rows))
    groups: dict[tuple[str, ...], list[int]] = {}
    for n, row in enumerate(rows):
        if n not in fold.keep:
            groups.setdefault(tuple(_shown_text(row[i], columns[i], capped) for i in compared), []).append(n)
    alike = {g[0]: g for g in groups.values() if len(g) > 1}
    gone = {n for g in alike.values() for n in g[1:]}
    out: list[tuple[int, Sequence[Cell]]] = []
    for n, row in enumerate(rows):
        if n in gone:
            continue
        if n in alike:
            cell = row[at]
            text = cell.copy() if isinstance(cell, Text) else Text.from_markup(cell)
            text.append("\n" + fold.note(alike[n]), style="dim")
            row = [*row[:at], text, *row[at + 1 :]]
        out.append((n, row))
    return out


def title_lines(title: str, width: int | None) -> str:
    """``title`` on lines of at most ``width`` cells, each line ending at one of :data:`TITLE_BREAKS`
    outside brackets (its mark kept, the space after it dropped), as many phrases on a line as fit: a
    title wrapped by Rich breaks anywhere between words ("... front, cheapest" / "first"). A phrase
    longer than ``width`` is left to wrap between its words; ``width=None`` or a title that fits:
    unchanged."""
    from rich.cells import cell_len

    if width is None or width <= 0 or cell_len(title) <= width:
        return title
    phrases: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(title):
        char = title[i]
        depth += (char in "([{") - (char in ")]}")
        mark = next((m for m in TITLE_BREAKS if depth <= 0 and title.startswith(m, i)), None)
        if mark is not None:
            phrases.append(title[start : i + len(mark)].rstrip())
            start = i = i + len(mark)
            continue
        i += 1
    phrases.append(title[start:])
    lines = [phrases[0]]
    for phrase in phrases[1:]:
        joined = f"{lines[-1]} {phrase}"
        if cell_len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(phrase)
    return "\n".join(lines)


def _fit(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    width: int | None,
    *,
    within: Sequence[int] | None = None,
    capped: bool | None = None,
) -> tuple[list[int], list[int], bool]:
    """(the columns kept, every column's width, whether identifiers are cut to their ``max_width``):
    the columns whose rows all read the same left out first in their ``same`` order, then the
    droppable ones in their ``drop`` order, until the rest fit ``width``; then those left out are
    taken back, in the reverse order, wherever one still fits (``within``: only those columns are
    candidates; ``capped``: cut or not whatever the width)."""
    kept = list(range(len(columns))) if within is None else list(within)
    cells = [[r[i] for r in rows] for i in range(len(columns))]
    widths = [_natural_width(c, cells[i], capped=False) for i, c in enumerate(columns)]
    if capped is None:
        capped = width is not None and sum(widths[i] + _COLUMN_CHROME for i in kept) + 1 > width
    if capped:
        widths = [_natural_width(c, cells[i], capped=True) for i, c in enumerate(columns)]
    shared = {
        i: (0, c.same, i)
        for i, c in enumerate(columns)
        if c.same is not None and i in kept and same_on_every_row(cells[i]) is not None
    }
    droppable = sorted(
        [*shared.values()]
        + [
            (1, c.drop, i)
            for i, c in enumerate(columns)
            if c.drop is not None and i in kept and i not in shared
        ]
    )

    def total(columns: Sequence[int]) -> int:
        return sum(widths[i] + _COLUMN_CHROME for i in columns) + 1

    dropped: list[int] = []
    for *_, index in droppable:
        if width is None or total(kept) <= width:
            break
        kept.remove(index)
        dropped.append(index)
    # a narrow column dropped before a wide one may fit again once the wide one has gone (at 100
    # columns the trade-off column went before the instance, and the table was 80 wide): each is
    # taken back where it fits, the one that gave way last (the most useful) first
    for index in reversed(dropped):
        if width is not None and total([*kept, index]) <= width:
            kept.append(index)
    return sorted(kept), widths, capped


def _shortened(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell | Short]], capped: bool
) -> list[list[Cell]]:
    """``rows`` with each :class:`Short` cell as its full text, or as a shorter one where ``capped`` and
    the full text is longer than its column's ``max_width``."""

    def one(cell: Cell | Short, column: Column) -> Cell:
        room = column.max_width
        if not isinstance(cell, Short) or not capped or room is None or _cell_width(cell.full) <= room:
            return cell.full if isinstance(cell, Short) else cell
        return next(
            (c for c in cell.shorter if _cell_width(c) <= room),
            cell.shorter[-1] if cell.shorter else cell.full,
        )

    return [[one(cell, columns[i]) for i, cell in enumerate(row)] for row in rows]


def fitted_table(
    title: str | None,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell | Short]],
    width: int | None,
    *,
    fold: Fold | None = None,
    rule: tuple[str, int] | None = None,
) -> tuple[Table, list[str]]:
    """The table of ``rows`` (one cell per column) within ``width`` terminal cells, and the
    headers of the columns left out to get there (empty when everything fits). ``width=None`` (output
    to a pipe or a file, read by programs and people alike) keeps every column. Long identifiers are cut
    to their ``max_width`` only when the whole text does not fit. A long title breaks between its
    phrases (:func:`title_lines`), the table at least as wide as its longest line. With ``fold``, rows
    that would read alike (they differ only in what is not shown) are folded into one (:class:`Fold`).
    A :class:`Short` cell shows its short form where its column is cut and its full text would be.
    ``rule`` is (a header, a row's index in ``rows``): where the column so headed is left out, a rule
    is drawn above that row (or the first row after it that a fold leaves), below another row: the
    column told rows apart that the rule still parts without colour (the rows off the front)."""
    from rich.cells import cell_len
    from rich.table import Table

    given = rows
    rows = _shortened(columns, given, capped=False)
    kept, widths, capped = _fit(columns, rows, width)
    if capped and any(isinstance(cell, Short) for row in given for cell in row):
        # the short names leave their column narrower: fitted again with them, every column a candidate
        rows = _shortened(columns, given, capped=True)
        kept, widths, capped = _fit(columns, rows, width, capped=True)
    at = list(range(len(rows)))  # each row's index in the rows given
    if fold is not None:
        folded = _folded(columns, rows, kept, capped, fold)
        if len(folded) < len(rows):  # the notes take room: fitted again, within the columns kept
            left: list[Sequence[Cell]] = [row for _, row in folded]
            at, rows = [n for n, _ in folded], left
            kept, widths, capped = _fit(columns, rows, width, within=kept, capped=capped)

    def total() -> int:
        return sum(widths[i] + _COLUMN_CHROME for i in kept) + 1

    wrapping = [i for i in kept if capped and columns[i].wrap]
    # the room left is shared by the wrapping columns, so Rich narrows no other column to make it
    share = max(width - total(), 0) // len(wrapping) if width is not None and wrapping else 0
    table = Table(title=title)
    if title is not None and width is not None and cell_len(title) > total():
        # Rich wraps a title to the table's width, between any words: break it between its phrases, to
        # the table's width where each phrase fits it, else to the terminal's with the table as wide
        lines = title_lines(title, total())
        widest = max(cell_len(line) for line in lines.split("\n"))
        if widest > total():
            lines = title_lines(title, width)
            widest = max(cell_len(line) for line in lines.split("\n"))
        table = Table(title=lines, min_width=min(widest, width))
    for i in kept:
        c = columns[i]
        if c.right:
            table.add_column(c.header, justify="right", no_wrap=True)
        elif capped and c.max_width is not None:
            table.add_column(c.header, overflow="ellipsis", no_wrap=True, max_width=c.max_width)
        elif c.whole:
            table.add_column(c.header, overflow="ellipsis", no_wrap=True)
        elif i in wrapping:
            table.add_column(c.header, overflow="fold", max_width=widths[i] + share)
        else:
            table.add_column(c.header, overflow="fold")
    rooms = {i: widths[i] + share if i in wrapping else None for i in kept}
    ruled = rule is not None and not any(columns[i].header == rule[0] for i in kept)
    above = next((p for p, n in enumerate(at) if rule is not None and n >= rule[1]), None)
    for p, row in enumerate(rows):
        if ruled and p == above and p > 0:
            table.add_section()
        table.add_row(*(_unbroken(row[i], rooms[i]) for i in kept))
    return table, [columns[i].header for i in range(len(columns)) if i not in kept]


def overflow(table: Table, width: int | None) -> int:
    """How many cells wider than ``width`` ``table`` is with every cell on one line (0 where it fits,
    or for no width): what Rich would squeeze out of its columns, wrapping their text."""
    if width is None:
        return 0
    from rich.console import Console

    return max(Console(width=max(width, 1) * 4).measure(table).maximum - width, 0)


def terminal_width(console: Console) -> int | None:
    """The width to fit a table to: the terminal's, or None when the output is not a terminal."""
    return console.width if console.is_terminal else None


def left_out_note(headers: Sequence[str]) -> str | None:
    """The line printed under a table that left columns out, or None."""
    if not headers:
        return None
    return f"not shown at this width: {', '.join(headers)} (a wider terminal, --csv or --json show them)"
