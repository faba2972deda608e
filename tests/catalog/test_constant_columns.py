"""The split bulk insert stores exactly what binding every value stores."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.catalog.constant_columns import constant_split, sample_rows

COLUMNS = ("a", "b", "c", "d", "e")
# few values, so that many columns are constant; text that SQL quoting must keep as it is
VALUES = st.sampled_from([None, "", "x", "it's", "''", "é ü", "1", "1.0", 1, 0, 1.0, 2.5, True, b"x"])


class _Obj:
    """An object whose fields a..d are columns; ``e`` is a computed column (never written in)."""

    def __init__(self, values: tuple[Any, ...]) -> None:
        self.a, self.b, self.c, self.d, self.x = values


FIELDS = ("a", "b", "c", "d")


def _rows_for(columns: Sequence[str]) -> Callable[..., tuple[Any, ...]]:
    def row(o: _Obj, suffix: str) -> tuple[Any, ...]:
        return tuple(f"{o.x}{suffix}" if c == "e" else getattr(o, c) for c in columns)

    return row


def _stored(rows: list[tuple[Any, ...]], split: bool) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(":memory:")
    # the affinities of the offers table: TEXT, NUMERIC (DATETIME, BOOLEAN), REAL, INTEGER, JSON
    con.execute(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, a VARCHAR(10), b DATETIME, c FLOAT, d INTEGER, e JSON)"
    )
    plain = f"INSERT INTO t ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
    objects = [_Obj(r) for r in rows]
    sample = [objects[i] for i in sample_rows(len(objects))]
    plan = constant_split("t", COLUMNS, FIELDS, sample, _rows_for, "!") if split else None
    if plan is None:
        con.executemany(plain, [_rows_for(COLUMNS)(o, "!") for o in objects])
    else:
        assert "e" not in plan.constants  # computed: always bound
        fast, slow = plan.split(objects, "!")
        assert len(fast) + len(slow) == len(rows)
        con.executemany(plan.sql, fast)
        con.executemany(plain, slow)
    select = ", ".join(f"{c}, typeof({c})" for c in COLUMNS)
    # the fast rows are inserted first: compare the stored rows as a multiset
    return sorted(con.execute(f"SELECT {select} FROM t"), key=repr)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(*[VALUES] * len(COLUMNS)), min_size=1, max_size=80))
def test_the_split_insert_stores_what_binding_stores(rows: list[tuple[Any, ...]]) -> None:
    assert _stored(rows, split=True) == _stored(rows, split=False)


def test_constant_none_and_text_become_literals_and_other_rows_keep_every_value() -> None:
    rows = [(None, "it's", 1.5, 3, "[]")] * 40 + [("z", "it's", 2.5, 3, "[]")]
    objects = [_Obj(r) for r in rows]
    plan = constant_split("t", COLUMNS, FIELDS, objects[:32], _rows_for, "")
    assert plan is not None
    assert plan.constants == {"a": None, "b": "it's"}  # numbers and computed columns stay bound
    assert "VALUES (NULL, 'it''s', ?, ?, ?)" in plan.sql
    fast, slow = plan.split(objects, "")
    assert fast == [(1.5, 3, "[]")] * 40 and slow == [rows[-1]]
    assert _stored(rows, split=True) == _stored(rows, split=False)


def test_text_sql_cannot_hold_stays_bound() -> None:
    for text in ("x\x00y", "\ud800"):
        assert constant_split("t", COLUMNS, FIELDS, [_Obj((text, 1, 1, 1, 1))] * 3, _rows_for, "") is None
    assert constant_split("t", COLUMNS, FIELDS, [], _rows_for, "") is None
