"""A wrapping column keeps words joined by a no-break space on one line: ``models`` at 80 columns broke
the attention shape inside its numbers ("MHA 32/32 ×" / "128", 32 rows), though a fitted table never
wraps a number. Rich breaks at a no-break space as at any other, so ``table_fit`` breaks such cells itself
at their plain spaces, and prints each no-break space as a plain one (a pipe gets "GQA 32/8 × 128" to
grep, as before)."""

from __future__ import annotations

import pytest

from gpuscout.cli.table_fit import Column
from gpuscout.cli.wrap import NBSP, break_at, wrapped
from gpuscout.knowledge.models import all_models
from tests.cli.fitted_tables import fitted_cells
from tests.cli.terminal_lines import table_cells, terminal_lines


def _shape(heads: int, kv: int, dim: int) -> str:
    return f"{heads}/{kv} × {dim}"


def test_models_at_80_columns_never_break_the_attention_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = terminal_lines(monkeypatch, 80, "models")
    rows: list[list[str]] = []  # the attention column's lines of each row
    for cells in table_cells(lines):
        if cells[0]:
            rows.append([])
        rows[-1].append(cells[-1])
    llms = list(all_models())
    assert len(rows) == len(llms)
    for spec, shown in zip(llms, rows, strict=True):
        if spec.kind != "llm":
            continue
        shape = _shape(spec.num_attention_heads, spec.num_key_value_heads, spec.head_dim)
        assert any(line.endswith(shape) for line in shown), (spec.name, shown)  # on one line, whole
    assert all(NBSP not in line for line in lines)


def test_a_pipe_shows_the_shape_with_plain_spaces() -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    result = CliRunner().invoke(app, ["models", "--family", "llama3.1"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "GQA 32/8 × 128" in result.output and NBSP not in result.output


def test_a_wrap_column_breaks_only_at_plain_spaces() -> None:
    columns = (Column("name"), Column("shape", wrap=True), Column("note", drop=1))
    rows = [("a", f"MHA + SWA 32/32{NBSP}×{NBSP}128", "x" * 40), ("b", "GQA", "-")]
    cells, left_out = fitted_cells(columns, rows, 24)
    assert left_out == ["note"]
    assert [c[1] for c in cells] == ["MHA + SWA", "32/32 × 128", "GQA"]
    wide, _ = fitted_cells(columns, rows, None)  # a pipe: one line, a plain space
    assert wide[0][1] == "MHA + SWA 32/32 × 128"


def test_break_at_keeps_a_long_word_whole_on_its_own_line() -> None:
    url = "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/platforms/cuda.py"
    assert wrapped(f"(source: {url}, next)", 30) == ["(source:", f"{url},", "next)"]
    assert wrapped(f"512{NBSP}in{NBSP}/{NBSP}512{NBSP}out, more", 10) == ["512 in / 512 out,", "more"]
    assert break_at("one\ntwo three", 7) == [7]  # a line break in the text starts a line
