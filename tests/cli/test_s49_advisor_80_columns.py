"""``gpuscout recommend`` at 80 columns (renter review, session 49), on the bundled snapshot.

- Under "(vllm, bf16)" a V100 row runs llama.cpp (vLLM 0.34 has no Volta kernels): at 80 columns the
  "why" column saying so gave way, and the row read as vLLM on a V100. Its configuration cell, kept at
  every width, names what it runs.
- ``--engine tgi`` for gpt-oss-120b: every row runs int4 in place of the checkpoint's MXFP4, and the title
  dropped the engine; it names it, and what runs in place of the format asked.
- ``--explain`` of an endpoint up 8 h a day: the hours billed a day are said under the cost table, and
  compute + warm-up multiply out from them.
"""

from __future__ import annotations

import re

import pytest

from tests.cli.terminal_lines import terminal_lines


def _rows(lines: list[str]) -> list[list[str]]:
    """The table's body rows, a row's wrapped lines joined cell by cell."""
    rows: list[list[str]] = []
    for line in lines:
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells[0] or not rows:
            rows.append(cells)
        else:  # a wrapped line of the row above
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    return rows


@pytest.mark.parametrize("width", [80, 200])
def test_a_row_that_runs_another_engine_than_the_title_names_it_at_every_width(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    args = ["recommend", "serve", "llama-3.1-8b", "--gpu", "V100-SXM2-16GB", "--gpu", "H100-SXM"]
    lines = terminal_lines(monkeypatch, width, *args)
    assert "(vllm, bf16)" in lines[0]
    rows = _rows(lines)
    header = next(line for line in lines if "config" in line)
    at = [c.strip() for c in header.split("┃")[1:-1]].index("config")
    configs = {row[at] for row in rows if row[0].isdigit()}
    v100 = [c for c in configs if "V100" in c]
    assert v100 and all(c.endswith("· llama.cpp gguf-f16") for c in v100), configs
    h100 = [c for c in configs if "H100" in c]
    assert h100 and not any("·" in c for c in h100), configs  # they run what the title says
    if width == 80:
        assert "why" not in header  # the reason gave way: the cell alone says it


def test_the_title_names_the_engine_asked_where_no_row_runs_the_format_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ["recommend", "serve", "gpt-oss-120b", "-c", "8", "--engine", "tgi"]
    lines = terminal_lines(monkeypatch, 80, *args)
    title = " ".join(lines[: lines.index(next(x for x in lines if x.startswith("  •")))])
    assert title.startswith("serve gpt-oss-120b (tgi, int4 in place of mxfp4-moe):"), title


def test_explain_says_the_hours_billed_a_day_under_the_cost_table(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["recommend", "serve", "llama-3.1-8b", "-c", "8", "--hours-per-day", "8", "-x", "1"]
    lines = terminal_lines(monkeypatch, 80, *args)
    text = " ".join(" ".join(lines).split())  # wrapped lines as one text
    cells = {c[0]: c[1] for c in _rows(lines) if len(c) == 2}
    compute, warmup = float(cells["compute"]), float(cells["warmup"])
    m = re.search(
        r"billing rounds up: (\d+\.\d) h billed a day for 8\.0 h active \+ .*? warm-up(?: \(.*?\))?; "
        r"compute \+ warm-up = ([\d,.]+) instance-h x \$([\d.]+)/h",
        text,
    )
    assert m is not None, text
    assert float(m.group(1)) > 8.0  # rounded up to the billing increment
    hours, price = float(m.group(2).replace(",", "")), float(m.group(3))
    assert hours * price == pytest.approx(compute + warmup, abs=0.02)
    # said once: under the cost table, not again among the reasons
    assert text.count("billing rounds up") == 1
    assert text.index("billing rounds up") < text.index("reasons")
    assert text.count("billing increment unknown") <= 1  # an unknown increment: the warning says it alone
