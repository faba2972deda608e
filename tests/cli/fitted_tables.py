"""A ``table_fit`` table printed to a colourless console, read back as lines or cells (the tests of the
mechanism behind the 80-column tables share it)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from gpuscout.cli.table_fit import Cell, Column, Fold, Short, fitted_table
from tests.cli.terminal_lines import table_cells


def printed(table: Table, width: int | None) -> list[str]:
    """The lines ``table`` prints to a colourless console ``width`` columns wide (200 for a pipe)."""
    out = Console(width=width or 200, record=True, emoji=False, color_system=None)
    with out.capture() as captured:
        out.print(table)
    return captured.get().splitlines()


def fitted_cells(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell | Short]],
    width: int | None,
    fold: Fold | None = None,
) -> tuple[list[list[str]], list[str]]:
    """The body cells of the untitled table ``fitted_table`` makes of ``rows`` for ``width``, and the
    columns it left out."""
    table, left_out = fitted_table(None, columns, rows, width, fold=fold)
    return table_cells(printed(table, width)), left_out
