"""One rule for an amount of dollars on every face (stop 63, ``wording.money_text``).

A reviewer read three contradictions after sub-cent totals got two figures on the CLI: ``--budget 0.0015``
was said "$0.002" in the header above a row at "$0.0019" it kept out; two amounts compared in one sentence
printed the same ("--precision fp8 ... at $0.0019 would show a cheaper row" beside a cheapest "$0.0019":
0.001859 and 0.001896); and the web's breakdown wrote every amount under a cent "<$0.01" (a tiny job's
total too) where the CLI's wrote "0.0030" beside "199.13", and a total under $0.0001 "<0.0001" where its
table wrote "$0.000041". Now: the header says the budget typed (up to four figures); two amounts in one
sentence read apart; a total under a cent keeps two figures on every face; an item of a breakdown is
written to its total's precision ("<0.01" beside a total of a cent or more) by the CLI and the web alike.
"""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.advise.reasons import beaten_reason, budget_text, over_budget_usd, usd
from gpuscout.catalog.paths import default_db_url
from gpuscout.cli import app
from gpuscout.cli.advise_output import cheaper_than_cheapest
from gpuscout.web import create_app
from gpuscout.web.templating import cents, money
from gpuscout.wording import money_text

TINY = ["recommend", "batch", "llama-3.2-1b", "--output-total", "10k"]


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


# ---- 1. the header's budget ---------------------------------------------------------------------------
def test_a_budget_under_a_cent_keeps_the_figures_typed() -> None:
    assert budget_text(0.0015) == "$0.0015"  # was "$0.002": above a row at $0.0019 it kept out
    assert budget_text(0.004) == "$0.004"
    assert budget_text(0.001234567) == "$0.001235"  # four significant figures at most
    assert budget_text(0.5) == "$0.50" and budget_text(12.5) == "$12.50" and budget_text(3540) == "$3,540"


def test_a_sub_cent_budgets_dead_end_says_the_budget_typed_and_its_rows_apart() -> None:
    """The header's budget (1) and the two rows the way out compares (2), from one answer."""
    out = _cli(*TINY, "--budget", "0.0015")
    assert "budget: $0.0015 per run" in out, out  # was "$0.002", above a row at $0.0019 it kept out
    narrow = re.search(r"--precision \S+ with --budget [\d.]+ \(.* at (\$[\d.]+)\) would show a cheaper", out)
    cheapest = re.search(r"the cheapest that meets everything else is .* at (\$[\d.]+);", out)
    assert narrow and cheapest, out
    assert narrow.group(1) != cheapest.group(1), out  # both read "$0.0019"
    assert float(narrow.group(1)[1:]) < float(cheapest.group(1)[1:]), out  # "cheaper" reads true


# ---- 2. two amounts in one sentence -------------------------------------------------------------------
def test_a_beaten_row_and_its_beater_read_apart() -> None:
    why = beaten_reason(1, (0.001859, 100.0), (0.001896, 100.0), serve=False, time_tolerance=0.05)
    assert "$0.00186 (this row $0.00190)" in why, why
    why = beaten_reason(1, (2.341, 100.0), (2.344, 100.0), serve=False, time_tolerance=0.05)
    assert "$2.341 (this row $2.344)" in why, why
    # amounts that print apart keep their usual figures
    why = beaten_reason(1, (0.0023, 100.0), (0.0030, 100.0), serve=False, time_tolerance=0.05)
    assert "$0.0023 (this row $0.0030)" in why, why


def test_a_cost_over_a_budget_reads_over_it() -> None:
    assert over_budget_usd(0.00152, 0.0015) == "$0.00152"  # not "$0.0015, over the $0.0015 budget"
    assert over_budget_usd(0.0019, 0.0015) == "$0.0019"
    assert over_budget_usd(12.504, 12.5) == "$12.504"
    assert over_budget_usd(100.4, 100) == "$100.40"


class _Row:
    def __init__(self, rank: int, total: float, seconds: float) -> None:
        self.rank, self.total_usd, self.time_to_result_s = rank, total, seconds


def test_a_saving_beside_sub_cent_totals_is_said_in_their_figures() -> None:
    rows = [_Row(1, 0.0019, 100.0), _Row(2, 0.0016, 400.0)]
    said = cheaper_than_cheapest(rows, {"cheapest": 1})
    assert "#2 costs $0.0003 less than #1" in said, said  # was "under a cent less" beside "$0.0019"
    rows = [_Row(1, 2.34, 100.0), _Row(2, 2.336, 400.0)]  # beside totals to the cent, as before
    assert "under a cent less" in cheaper_than_cheapest(rows, {"cheapest": 1})


# ---- 3. one rule, both faces --------------------------------------------------------------------------
def test_the_rule() -> None:
    assert money_text(0.0019) == "$0.0019" and money_text(0.000041) == "$0.000041"
    assert money_text(0.0072) == "$0.0072"  # under a cent, not "$0.01" (nor the web's "<$0.01")
    assert money_text(0.00999) == "$0.01" and money_text(0.0) == "$0.00"
    assert money_text(0.0030, beside=199.13) == "<$0.01"
    assert money_text(0.0017, beside=0.0019, sign="") == "0.0017"
    assert money_text(0.00003, beside=0.0019, sign="") == "<0.0001"
    assert money_text(25381.2, whole_from=100) == "$25,381"
    # the web's filters and the CLI's usd are this rule
    assert cents(0.0019) == usd(0.0019) == money(0.0019) == "$0.0019"  # a total: never "<$0.01"
    assert cents(0.0099, 199.13) == "<$0.01" and cents(0.0, 199.13) == "$0.00"
    assert money(0.000041) == "$0.000041"  # was "$0.0000"


def _web_breakdown(html: str, rank: int) -> dict[str, str]:
    block = re.search(rf'<tbody id="rank-{rank}".*?</tbody>', html, re.S)
    assert block, rank
    money_dl = re.search(r'<dl class="specs money">(.*?)</dl>', block.group(0), re.S)
    assert money_dl, rank
    pairs = re.findall(r"<dt[^>]*>(.*?)</dt><dd[^>]*>(.*?)</dd>", money_dl.group(1), re.S)
    names = {"Compute": "compute", "Warm-up (download + load)": "warmup", "Storage": "storage"}
    names |= {"Egress": "egress", "Total": "total", "Spot interruptions": "interruption"}
    names |= {"GPU failures (rework)": "interruption"}
    return {names[unescape(k)]: unescape(v).replace("$", "") for k, v in pairs}


def _cli_breakdown(out: str) -> dict[str, str]:
    rows = re.findall(r"│ (compute|warmup|storage|egress|interruption|total)\s*│\s*(\S+) │", out)
    return dict(rows)


def _both(cli: list[str], form: str, db: str) -> tuple[dict[str, str], dict[str, str]]:
    said = _cli_breakdown(_cli(*cli, "--db", db, "-x", "1"))
    with TestClient(create_app(db)) as web:
        shown = _web_breakdown(web.get(f"/advise?{form}").text, 1)
    return said, shown


def test_a_tiny_jobs_breakdown_reads_the_same_on_both_faces() -> None:
    # the bundled snapshot (a spot T4 at $0.07/h): the job costs about a fifth of a cent
    _cli("offers", "--limit", "1")  # loads the snapshot into this test's own database
    said, shown = _both(TINY, "kind=batch&model=llama-3.2-1b&output_tokens_total=10000", default_db_url())
    assert said == shown, (said, shown)
    total = float(said["total"])
    assert 0 < total < 0.01 and len(said["total"].rstrip("0").split(".")[1]) >= 3, said  # two figures
    # its items to the total's last decimal: the warm-up and compute add up to it, not "<$0.01" each
    assert all(said[k] != "<0.01" for k in said), said


def test_a_large_jobs_sub_cent_item_reads_the_same_on_both_faces(db_url: str) -> None:
    said, shown = _both(
        ["recommend", "finetune", "llama-3.1-8b", "--dataset-tokens", "100M"],
        "kind=finetune&model=llama-3.1-8b&dataset_tokens=100000000",
        db_url,
    )
    assert said == shown, (said, shown)
    assert float(said["total"]) >= 1 and "<0.01" in said.values(), said  # not "0.0030" beside "4.27"
