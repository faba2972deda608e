"""A total under half a cent is never said "$0.00" (stop 63).

``recommend batch llama-3.2-1b --output-total 10k`` costs about a fifth of a cent on a spot T4: the
table's total read "$0.00" on every row and the dominated rows' reason "beaten by #1: $0.00 (this row
$0.00)", as if the beaten row cost the same and nothing at all. The web face already wrote such an
amount to four decimals; the CLI's ``usd`` now keeps two figures of it too.
"""

from __future__ import annotations

from typer.testing import CliRunner

from gpuscout.advise.reasons import beaten_reason, usd
from gpuscout.cli import app


def test_a_positive_amount_under_half_a_cent_keeps_two_figures() -> None:
    assert usd(0.0023) == "$0.0023"
    assert usd(0.00304) == "$0.0030"
    assert usd(0.000041) == "$0.000041"
    assert usd(0.0049) == "$0.0049"
    # up to a cent, as the web's table writes it (``wording.money_text``: "$0.01" here beside its
    # "$0.0050" was a contradiction); from a cent the cents say it, as before
    assert usd(0.005) == "$0.0050" and usd(0.0072) == "$0.0072" and usd(0.00999) == "$0.01"
    assert usd(0.031) == "$0.03" and usd(0.0) == "$0.00"


def test_two_sub_cent_rows_read_apart_in_the_beaten_reason() -> None:
    why = beaten_reason(1, (0.0023, 100.0), (0.0030, 100.0), serve=False, time_tolerance=0.05)
    assert "$0.0023 (this row $0.0030)" in why, why
    assert "$0.00 " not in why and "$0.00)" not in why, why


def test_the_cli_table_says_a_tiny_jobs_total() -> None:
    result = CliRunner().invoke(
        app,
        ["recommend", "batch", "llama-3.2-1b", "--output-total", "10k", "-n", "3"],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 0, result.output
    assert "$0.00 " not in result.output and "$0.00)" not in result.output, result.output


def test_the_explained_breakdown_says_a_tiny_jobs_total() -> None:
    result = CliRunner().invoke(
        app,
        ["recommend", "batch", "llama-3.2-1b", "--output-total", "10k", "-x", "1"],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 0, result.output
    total = next(line for line in result.output.splitlines() if "│ total" in line)
    assert "0.00 " not in total and "0.00│" not in total.replace(" ", ""), total
