"""A bulk SQLite insert whose columns that hold one value in every row are written into the statement.

Python's ``sqlite3`` binds each parameter of each row of an ``executemany``; a ``None`` (and any
value that is not exactly an int, float, str or bytearray) goes through its adaptation lookup
first, which costs about ten times a float's bind. An offer row has ~40 columns of which a feed or
a file leaves a dozen empty, and many others (the source, the observation time, the notes, the
empty lists) hold the same text in every row: at 100,000 offers binding them costs more than
SQLite's own insert.

:func:`constant_split` takes a sample of a batch's rows and finds the columns that hold the same
``None`` or text in all of them; the statement it builds has those values as SQL literals (``NULL``,
``'text'`` with quotes doubled, exactly the value a bind would store: SQLite applies the column's
affinity to a literal as to a parameter) and a ``?`` for every other column. Its compiled
``split`` sorts the batch's rows: those that hold the constants give a tuple of the other columns
for that statement, any other row is kept whole for the plain statement. Every row is inserted
either way; only the cost of getting it there changes. Numbers are never written as literals (a
float's text would be parsed again by SQLite), so every stored value is the one bound before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Row = tuple[Any, ...]
Split = Callable[[Sequence[Row]], tuple[list[Row], list[Row]]]

#: Rows sampled to pick the constant columns (spread over the batch).
SAMPLE_ROWS = 32


@dataclass(frozen=True, slots=True)
class ConstantSplit:
    """The statement with the constant columns written in, and the function sorting a batch's rows
    into (rows for :attr:`sql` without the constant columns, whole rows for the plain statement)."""

    sql: str
    constants: dict[str, Any]
    split: Split


def _literal(value: Any) -> str | None:
    """The SQL literal of a value that stores exactly what binding it stores, else ``None``."""
    if value is None:
        return "NULL"
    if type(value) is not str or "\x00" in value:
        return None  # numbers stay bound; SQL text cannot hold NUL
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: binding it fails the same way, loudly
        return None
    return "'" + value.replace("'", "''") + "'"


def constant_split(table: str, columns: Sequence[str], sample: Sequence[Row]) -> ConstantSplit | None:
    """The split insert for rows like ``sample`` (tuples in ``columns`` order), or ``None`` when no
    column holds one ``None`` or text value in every sampled row."""
    if not sample:
        return None
    first = sample[0]
    constant: dict[int, str] = {}
    for i, value in enumerate(first):
        literal = _literal(value)
        if literal is None:
            continue
        if all(type(r[i]) is type(value) and r[i] == value for r in sample):
            constant[i] = literal
    if not constant:
        return None
    names = ", ".join(columns)
    marks = ", ".join(constant.get(i, "?") for i in range(len(columns)))
    sql = f"INSERT INTO {table} ({names}) VALUES ({marks})"
    scope: dict[str, Any] = {f"k{i}": first[i] for i in constant}
    checks = " and ".join(
        f"(r[{i}] is None)" if first[i] is None else f"(type(r[{i}]) is str and r[{i}] == k{i})"
        for i in constant
    )
    kept = "".join(f"r[{i}], " for i in range(len(columns)) if i not in constant)
    source = (
        "def split(rows):\n"
        "    fast = []\n"
        "    slow = []\n"
        "    add, keep = fast.append, slow.append\n"
        "    for r in rows:\n"
        f"        if {checks}:\n"
        f"            add(({kept}))\n"
        "        else:\n"
        "            keep(r)\n"
        "    return fast, slow\n"
    )
    exec(source, scope)  # the text is built above from column positions only
    split: Split = scope["split"]
    return ConstantSplit(sql, {columns[i]: first[i] for i in constant}, split)


def sample_rows(count: int) -> range:
    """Positions of at most :data:`SAMPLE_ROWS` rows spread over a batch of ``count``."""
    return range(0, count, max(1, -(-count // SAMPLE_ROWS)))
