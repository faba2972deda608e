"""The advisor's table at 80 columns: rows that read alike fold into one, and the title breaks between
its phrases.

``gpuscout recommend serve llama-3.1-70b -c 32`` at 80 columns showed "#29 Yotta 2 x 8x RTX5090 TP8
537 ms 20 $7,527" twice (two instance types in two regions, at one price): the column that tells them
apart ("instance (regions)") gives way at that width. They are now one row saying so ("#29, #30: 2
regions"), as an offer sold in several regions at one price is one row ("3 regions"); a wider terminal
still shows both. The title "serve gpt-oss-120b (vllm, mxfp4-moe): 11 on the cost / latency front,
cheapest" / "first" broke mid-phrase; it now breaks after "front,".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from typer.testing import CliRunner

from gpuscout.cli.table_fit import Column, Fold, fitted_table, title_lines
from tests.cli.fitted_tables import fitted_cells, printed
from tests.cli.stores import h100_offer, store_with
from tests.cli.terminal_lines import table_cells as _cells
from tests.cli.terminal_lines import terminal_lines as _terminal

runner = CliRunner()


@pytest.fixture
def alike(tmp_path: Path) -> list[str]:
    """A recommend command over two offers that differ only in their instance type and region (one
    price), and a dearer one."""
    url = store_with(
        tmp_path,
        [
            h100_offer("yotta", "8x112v952g_h100", 2.5, region="us-east-2"),
            h100_offer("yotta", "8x240v920g_h100", 2.5, region="us-central-2"),
            h100_offer("lambda", "gpu_1x_h100", 3.0, region="us-west-1"),
        ],
    )
    return ["recommend", "serve", "llama-3.1-8b", "-c", "4", "--db", url]


def test_rows_that_read_alike_at_80_columns_are_one_row(
    monkeypatch: pytest.MonkeyPatch, alike: list[str]
) -> None:
    lines = _terminal(monkeypatch, 80, *alike)
    rows = _cells(lines)
    # the two Yotta rows as one, the second line of its configuration saying which and where
    assert [r[0] for r in rows if r[0]] == ["1", "3"], "\n".join(lines)
    first = next(i for i, r in enumerate(rows) if r[0] == "1")
    assert "#1, #2: 2 regions" in rows[first + 1]
    assert not any("#1, #2" in line for line in lines if "Yotta" in line)
    assert "instance (regions)" in lines[-2] + lines[-1]  # the column left out is still named


def test_a_wide_terminal_still_shows_both_rows(monkeypatch: pytest.MonkeyPatch, alike: list[str]) -> None:
    lines = _terminal(monkeypatch, 240, *alike)
    rows = _cells(lines)
    assert [r[0] for r in rows if r[0]] == ["1", "2", "3"]
    assert not any("regions:" in line for line in lines)
    text = "\n".join(lines)
    assert "us-east-2" in text and "us-central-2" in text


def test_the_title_breaks_between_its_phrases(monkeypatch: pytest.MonkeyPatch, alike: list[str]) -> None:
    lines = _terminal(monkeypatch, 80, *alike, "--objective", "balanced")
    at = next(i for i, line in enumerate(lines) if line.startswith("serve llama-3.1-8b"))
    assert lines[at].endswith("on the cost / latency front,")
    assert lines[at + 1] == "by cost/cheapest x time/fastest"


# ---- the mechanism, in table_fit ---------------------------------------------------------------
COLUMNS = [
    Column("#", right=True),
    Column("provider", max_width=8),
    Column("region", drop=1),
    Column("config"),
    Column("$", right=True),
]


def _rows(table_rows: list[list[str]], width: int, fold: Fold | None) -> list[list[str]]:
    return fitted_cells(COLUMNS, table_rows, width, fold)[0]


def _fold(keep: frozenset[int] = frozenset()) -> Fold:
    return Fold(
        at="config", note=lambda rows: f"rows {', '.join(str(n) for n in rows)}", ignore=("#",), keep=keep
    )


ROWS = [
    ["1", "acme", "us-east-1", "1x H100", "$5"],
    ["2", "acme", "eu-west-1", "1x H100", "$5"],
    ["3", "acme", "eu-west-1", "1x H100", "$6"],  # another price: told apart
    ["⋮", "2 more", "", "", ""],
    ["⋮", "2 more", "", "", ""],
]


def test_rows_alike_once_a_column_gives_way_fold_into_the_first() -> None:
    narrow = _rows(ROWS, 36, _fold(keep=frozenset({3, 4})))
    assert [r[0] for r in narrow if r[0]] == ["1", "3", "⋮", "⋮"]  # rows never folded: kept
    assert narrow[1][2] == "rows 0, 1"
    # every column fits: nothing folds
    wide = _rows(ROWS, 120, _fold(keep=frozenset({3, 4})))
    assert [r[0] for r in wide if r[0]] == ["1", "2", "3", "⋮", "⋮"]
    # no fold asked: the old table
    assert [r[0] for r in _rows(ROWS, 36, None) if r[0]] == ["1", "2", "3", "⋮", "⋮"]


def test_names_cut_alike_fold_too() -> None:
    rows = [
        ["1", "provider-one-east", "us", "1x H100", "$5"],
        ["2", "provider-one-west", "us", "1x H100", "$5"],
    ]
    assert [r[0] for r in _rows(rows, 40, _fold()) if r[0]] == ["1"]  # both read "provider…"


def test_a_fold_note_in_a_text_cell_keeps_its_text() -> None:
    rows = [["1", "acme", "a", Text("[not markup]"), "$5"], ["2", "acme", "b", Text("[not markup]"), "$5"]]
    narrow = _rows(rows, 36, _fold())
    assert narrow[0][2] == "[not markup]" and narrow[1][2] == "rows 0, 1"


@pytest.mark.parametrize(
    ("title", "width", "lines"),
    [
        (
            "serve m (vllm, bf16): 3 on the front, cheapest first",
            80,
            ["serve m (vllm, bf16): 3 on the front, cheapest first"],
        ),
        (
            "serve m (vllm, bf16): 3 on the front, cheapest first",
            40,
            ["serve m (vllm, bf16): 3 on the front,", "cheapest first"],
        ),
        # never inside brackets, and a phrase too long for the width is left to wrap between its words
        (
            "deepseek-r1 (as deepseek-v3, fp8) — infer, 4096 tokens",
            20,
            ["deepseek-r1 (as deepseek-v3, fp8) —", "infer, 4096 tokens"],
        ),
        ("a · b · c", 4, ["a ·", "b ·", "c"]),
        ("no marks at all here", 5, ["no marks at all here"]),
    ],
)
def test_title_lines(title: str, width: int, lines: list[str]) -> None:
    assert title_lines(title, width).split("\n") == lines
    assert title_lines(title, None) == title


def test_a_table_title_breaks_between_phrases_at_the_tables_width() -> None:
    rows = [["1", "acme", "us", "1x H100", "$5"]]
    title = "12 offers of acme, sorted by price, cheapest first"
    table, _ = fitted_table(title, COLUMNS, rows, 40)
    text = printed(table, 40)
    top = text[: next(i for i, line in enumerate(text) if line.startswith("┏"))]
    assert [line.strip() for line in top] == ["12 offers of acme, sorted by price,", "cheapest first"]


def test_the_fold_note_names_the_rows_and_their_regions() -> None:
    from types import SimpleNamespace

    from gpuscout.cli.advise_output import fold_note

    def rec(rank: int, *regions: str) -> SimpleNamespace:
        return SimpleNamespace(rank=rank, regions=regions, offer=SimpleNamespace(region=regions[0]))

    assert fold_note([rec(29, "us-east-2"), rec(30, "us-central-2")]) == "#29, #30: 2 regions"
    assert fold_note([rec(12, "FIN-03"), rec(13, "FIN-03")]) == "#12, #13: 2 offers"  # one region
    assert fold_note([rec(4, "a"), rec(5, "b", "c"), rec(6, "d"), rec(7, "e")]) == "#4-#7: 5 regions"
    assert fold_note([rec(4, "a"), rec(6, "b"), rec(9, "c"), rec(11, "d")]) == "#4, #6, …: 4 regions"
