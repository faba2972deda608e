"""``--help`` option panels that keep every option name whole at any terminal width.

Typer lays an options panel out in six columns (long names, short names, the negative flag's long and
short names, type, help) and lets Rich shrink them all alike when the terminal is narrow: at 80
columns ``--spot-reclaims-per-hour`` read ``--spot-reclaims-pe…``, ``--show-rejected,--show-rejections``
read ``--show-rejected,--…``, and the help had a 19-character column. Here the panel has three columns
(four with Typer's required marker): every name of the option, one a line (its short names beside the
first long one: ``--users, -c``), in a column as wide as the longest line and never shrunk; the type;
and the help, which takes the rest and wraps (a word longer than its column folds onto the next line
rather than ending in "…").

Typer still renders each parameter (names, type, range, help, default) and the panel around them: this
only regroups the cells of its rows as they are added (:class:`_OptionsTable`), while Typer's
``_print_options_panel`` runs. :func:`install` wraps Typer's ``format_help``, so ``typer.rich_utils``
(and the Rich modules it loads) is still imported only when a help is shown; where Typer's internals
are not the ones this was written against, Typer's own layout is left as it is.
"""

from __future__ import annotations

from typing import Any

#: Typer's row: [required marker,] long names, short names, negative long, negative short, type, help
_ROW = 6


def help_paragraphs(doc: str) -> str:
    """A docstring as a command's help text: its paragraphs, each on one line (the terminal wraps them),
    as the joined help constants of the other commands read."""
    import inspect

    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


def install() -> None:
    """Route every Typer help through :func:`_use_layout` (idempotent; imports nothing of Rich's)."""
    from typer.core import TyperCommand, TyperGroup

    for cls in (TyperCommand, TyperGroup):
        original = cls.format_help
        if getattr(original, "_gpuscout_layout", False):
            continue

        def format_help(self: Any, ctx: Any, formatter: Any, _original: Any = original) -> None:
            _use_layout()
            _original(self, ctx, formatter)

        format_help._gpuscout_layout = True  # type: ignore[attr-defined]
        cls.format_help = format_help  # type: ignore[method-assign]


def _use_layout() -> None:
    """Make Typer's options panels build an ``_OptionsTable`` (once, on the first help shown)."""
    try:
        from typer import rich_utils
    except ImportError:  # Typer without Rich: Click's plain help, whose names are never cut
        return
    panel = getattr(rich_utils, "_print_options_panel", None)
    plain = getattr(rich_utils, "Table", None)
    if panel is None or plain is None or getattr(panel, "_gpuscout_layout", False):
        return
    table = _options_table()

    def print_options_panel(**kwargs: Any) -> None:
        setattr(rich_utils, "Table", table)  # noqa: B010 - the table the panel builds, while it builds it
        try:
            panel(**kwargs)
        finally:
            setattr(rich_utils, "Table", plain)  # noqa: B010

    print_options_panel._gpuscout_layout = True  # type: ignore[attr-defined]
    rich_utils._print_options_panel = print_options_panel


def _beside(longs: list[Any], shorts: list[Any]) -> list[Any]:
    """An option's names one a line, its short names beside the first long one (``--users, -c``): a
    short name alone on the line under its option ("-c" under "--users") read as an option of its own."""
    if not longs or not shorts:
        return [*longs, *shorts]
    first = longs[0].copy()
    for short in shorts:
        first.append(", ")
        first.append_text(short)
    return [first, *longs[1:]]


def _options_table() -> type:
    from rich.table import Table
    from rich.text import Text

    class _OptionsTable(Table):
        """Typer's options table with a parameter's names in one column, one a line."""

        def add_row(self, *cells: Any, **kwargs: Any) -> None:
            row = list(cells)
            if len(row) not in (_ROW, _ROW + 1) or (self.columns and len(self.columns) != len(row) - 3):
                super().add_row(*row, **kwargs)  # not the row this was written for: as Typer made it
                return
            lead, names, rest = row[: len(row) - _ROW], row[-_ROW:-2], row[-2:]
            # (long names, short names, negative long names, negative short names), each a list
            groups = [
                [
                    part
                    for part in (cell.split(",") if isinstance(cell, Text) else [Text(str(cell))])
                    if part.plain.strip()
                ]
                for cell in names
            ]
            lines = [*_beside(groups[0], groups[1]), *_beside(groups[2], groups[3])]
            # Typer's help cell sets the help, its default and "required" side by side (Rich Columns,
            # whose cells end a word too long for them in "…"): a long word folds instead
            for part in getattr(rest[-1], "renderables", None) or ():
                if isinstance(part, Text):
                    part.overflow = "fold"
            super().add_row(*lead, Text("\n").join(lines), *rest, **kwargs)
            name_column, help_column = self.columns[len(lead)], self.columns[-1]
            name_column.no_wrap = True  # as wide as the longest name: never shrunk, never cut
            name_column.overflow = "fold"  # (a terminal narrower than one name: folded, still whole)
            help_column.overflow = "fold"
            self.columns[-2].overflow = "fold"  # the type

    return _OptionsTable
