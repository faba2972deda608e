"""The split bulk insert stores exactly what binding every value stores."""

from __future__ import annotations

import sqlite3
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.catalog.constant_columns import constant_split, sample_rows

COLUMNS = ("a", "b", "c", "d", "e")
# few values, so that many columns are constant; text that SQL quoting must keep as it is
VALUES = st.sampled_from([None, "", "x", "it's", "''", "é ü", "1", "1.0", 1, 0, 1.0, 2.5, True, b"x"])


def _stored(rows: list[tuple[Any, ...]], split: bool) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(":memory:")
    # the affinities of the offers table: TEXT, NUMERIC (DATETIME, BOOLEAN), REAL, INTEGER, JSON
    con.execute(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, a VARCHAR(10), b DATETIME, c FLOAT, d INTEGER, e JSON)"
    )
    plain = f"INSERT INTO t ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
    plan = constant_split("t", COLUMNS, [rows[i] for i in sample_rows(len(rows))]) if split else None
    if plan is None:
        con.executemany(plain, rows)
    else:
        fast, slow = plan.split(rows)
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
    plan = constant_split("t", COLUMNS, rows[:32])
    assert plan is not None
    assert plan.constants == {"a": None, "b": "it's", "e": "[]"}  # numbers stay bound
    assert "VALUES (NULL, 'it''s', ?, ?, '[]')" in plan.sql
    fast, slow = plan.split(rows)
    assert fast == [(1.5, 3)] * 40 and slow == [rows[-1]]
    assert _stored(rows, split=True) == _stored(rows, split=False)


def test_text_sql_cannot_hold_stays_bound() -> None:
    assert constant_split("t", ("a",), [("x\x00y",)] * 3) is None
    assert constant_split("t", ("a",), [("\ud800",)] * 3) is None
    assert constant_split("t", ("a",), []) is None
