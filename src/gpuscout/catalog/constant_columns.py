"""A bulk SQLite insert whose columns that hold one value in every row are written into the statement.

Python's ``sqlite3`` binds each parameter of each row of an ``executemany``; a ``None`` (and any
value that is not exactly an int, float, str or bytearray) goes through its adaptation lookup
first, which costs about ten times a float's bind. An offer row has ~40 columns of which a feed or
a file leaves a dozen empty, and many others (the source, the observation time, the notes, the
empty lists) hold the same text in every row: at 100,000 offers binding them costs more than
SQLite's own insert.

:func:`constant_split` takes a sample of a batch (the objects and their rows) and finds the columns
that hold one object's field with the same ``None`` or text in all of them; the statement it builds
has those values as SQL literals (``NULL``, ``'text'`` with quotes doubled: exactly the value a bind
would store, since SQLite applies the column's affinity to a literal as to a parameter) and a ``?``
for every other column. Its compiled ``split`` sorts the batch: an object whose fields hold those
values (the same object, or equal text, as in the sample: the row of a field is a function of the
field) gives its row without those columns, for that statement; any other object gives its whole
row, for the plain statement. Every row is inserted either way; only the cost of getting it there
changes. Numbers are never written as literals (a float's text would be parsed again by SQLite),
nor any column computed from several fields.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

Row = tuple[Any, ...]
#: (object, *args) -> the object's row for the given columns
RowsFor = Callable[[Sequence[str]], Callable[..., Row]]
Split = Callable[..., tuple[list[Row], list[Row]]]

#: Objects sampled to pick the constant columns (spread over the batch).
SAMPLE_ROWS = 32


@dataclass(frozen=True, slots=True)
class ConstantSplit:
    """The statement with the constant columns written in, and ``split(objects, *args)``: (rows for
    :attr:`sql`, without the constant columns; whole rows for the plain statement)."""

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


def _same(a: Any, b: Any) -> bool:
    """Whether two field values certainly give the same row value (checked the way ``split`` checks)."""
    if b is None or a is b:
        return a is b
    return type(a) is str and type(b) is str and a == b


def constant_split(
    table: str,
    columns: Sequence[str],
    fields: Collection[str],
    sample: Sequence[Any],
    rows_for: RowsFor,
    *args: Any,
) -> ConstantSplit | None:
    """The split insert for objects like ``sample``, or ``None`` when no column holds one ``None`` or
    text value in all of them.

    ``columns``: the table's columns in row order; ``fields``: those that hold the object's attribute
    of the same name (the others are computed); ``rows_for(columns)``: the function giving an object's
    row for those columns (called with the object and ``args``).
    """
    if not sample:
        return None
    full = rows_for(columns)
    rows = [full(o, *args) for o in sample]
    first = sample[0]
    constant: dict[int, str] = {}
    for i, name in enumerate(columns):
        literal = _literal(rows[0][i])
        if name not in fields or literal is None:
            continue
        raw = getattr(first, name)
        if all(_same(getattr(o, name), raw) for o in sample) and all(r[i] == rows[0][i] for r in rows):
            constant[i] = literal
    if not constant:
        return None
    marks = ", ".join(constant.get(i, "?") for i in range(len(columns)))
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
    kept = [c for i, c in enumerate(columns) if i not in constant]
    scope: dict[str, Any] = {"full": full, "part": rows_for(kept)}
    checks = []
    for i in constant:
        name, raw = columns[i], getattr(first, columns[i])
        scope[f"k{i}"] = raw
        if raw is None:
            checks.append(f"o.{name} is None")
        elif type(raw) is str:
            checks.append(f"(o.{name} is k{i} or (type(v := o.{name}) is str and v == k{i}))")
        else:
            checks.append(f"o.{name} is k{i}")
    source = (
        "def split(objects, *args):\n"
        "    fast = []\n"
        "    slow = []\n"
        "    add, keep = fast.append, slow.append\n"
        "    for o in objects:\n"
        f"        if {' and '.join(checks)}:\n"
        "            add(part(o, *args))\n"
        "        else:\n"
        "            keep(full(o, *args))\n"
        "    return fast, slow\n"
    )
    exec(source, scope)  # the text is built above from column names and positions only
    split: Split = scope["split"]
    return ConstantSplit(sql, {columns[i]: rows[0][i] for i in constant}, split)


def sample_rows(count: int) -> range:
    """Positions of at most :data:`SAMPLE_ROWS` objects spread over a batch of ``count``."""
    return range(0, count, max(1, -(-count // SAMPLE_ROWS)))
