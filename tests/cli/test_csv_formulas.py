"""No CSV the CLI or the web writes holds a live spreadsheet formula: one shared cell rule, checked
as a spreadsheet would read the file with ``,``, ``;`` or tab as the delimiter.

Regression for the audit's defect 7 (``offers --csv`` and ``recommend --csv``: 14 of 17 formula
payloads live) and its separator-confusion variants (``;=1+1``, ``x;=cmd...`` left as is by the web).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuscout.catalog.offer_fields import FORMULA_TRIGGERS, csv_cell, write_csv
from gpuscout.cli import app
from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.cli.hostile import FORMULAS, hostile_store

runner = CliRunner()


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _starts_formula(cell: str) -> bool:
    head = cell.lstrip(' "')
    if cell[:1] in ("\t", "\r", "\n"):
        return True
    return bool(head) and head[0] in FORMULA_TRIGGERS and not _number(head.split(",")[0].rstrip('"'))


def live_formulas(text: str) -> list[str]:
    """Fields that start a formula when a spreadsheet opens the CSV: as written (``,``, quotes
    honoured), and pessimistically with ``;`` or tab as the delimiter and any CR/LF ending a row, quotes
    ignored (leading spaces and quotes skipped, as some readers do). Numbers are not formulas."""
    found = [c for row in csv.reader(io.StringIO(text, newline="")) for c in row if _starts_formula(c)]
    found += [f for f in re.split(r"[;\t\r\n]", text) if _starts_formula(f.lstrip(" "))]
    return found


cells = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda a, b, c: a + b + c,
        st.sampled_from(["", " ", "x", "x;", "a\t", ";", "\t", "1;"]),
        st.sampled_from([*FORMULA_TRIGGERS, "\t", "\r", " ", ";", ","]),
        st.text(max_size=20),
    ),
    st.sampled_from(FORMULAS),
    st.floats(allow_nan=False).map(str),
    st.integers().map(str),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(cells, min_size=1, max_size=4), min_size=1, max_size=4))
@example([["\r\t"]])  # a bare CR (unquoted by a "\n" writer) ended the row before a tab-led cell
def test_no_cell_the_helper_writes_is_a_live_formula_in_any_delimiter(rows: list[list[str]]) -> None:
    columns = [f"c{i}" for i in range(max(len(r) for r in rows))]
    buffer = io.StringIO()
    write_csv(buffer, columns, ({c: v for c, v in zip(columns, r, strict=False)} for r in rows))
    assert live_formulas(buffer.getvalue()) == []


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers()))
def test_numbers_are_left_as_they_are(number: float) -> None:
    assert csv_cell(number) == str(number)
    assert csv_cell(str(number)) == str(number)


def test_text_keeps_its_content_after_the_quote() -> None:
    assert csv_cell("=1+1") == "'=1+1"
    assert csv_cell("x;=cmd") == "x;'=cmd"
    # the trigger set is not a character range: "+-@" once matched ";" and left ";;=" live
    assert csv_cell(";;=") == ";;'=" and csv_cell("a;;-b") == "a;;'-b"
    assert csv_cell("plain, text; with -5% off") == "plain, text; with -5% off"
    assert csv_cell(["a", "-b"]) == "a | -b"
    assert csv_cell(None) == ""


@pytest.fixture()
def hostile_db(tmp_path: Path) -> str:
    return hostile_store(tmp_path / "hostile.sqlite3", FORMULAS)


@pytest.mark.parametrize(
    "argv",
    [
        ["offers", "--csv", "--limit", "0", "--sort", "price"],
        ["recommend", "serve", "llama-3.1-8b", "--csv", "--top", "100"],
    ],
)
def test_cli_csv_exports_hold_no_live_formula(hostile_db: str, argv: list[str]) -> None:
    result = runner.invoke(app, [*argv, "--db", hostile_db])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output, newline="")))
    payloads = [c for r in rows for c in r.values() if c and any(f.strip() in c for f in FORMULAS)]
    assert len(payloads) >= len(FORMULAS)  # the hostile rows are there...
    assert live_formulas(result.output) == []  # ... and none is live


def test_web_exports_hold_no_live_formula(hostile_db: str) -> None:
    with TestClient(create_app(hostile_db, services=WebServices(hostile_db, cache_seconds=0))) as client:
        for query in ({"sort": "price", "per_page": 200}, {"sort": "price", "per_page": 200, "scope": "all"}):
            r = client.get("/offers.csv", params=query)
            assert r.status_code == 200
            assert "x;'=cmd" in r.text
            assert live_formulas(r.text) == []
