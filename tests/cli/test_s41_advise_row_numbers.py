"""`gpuscout recommend` numbers a row by its place in the whole answer, whatever --top is: the same
offer has the same # (table, --json "rank", --csv "rank") in every run with the same inputs, a pick
kept past --top shows with its own number and the gap is marked, and --explain N breaks down the row
N any such run showed."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()
SERVE = ["recommend", "serve", "llama-3.1-8b", "-c", "20"]


def _json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _who(rec: dict[str, Any]) -> tuple[Any, ...]:
    o = rec["offer"]
    return (o["provider"], o["instance_type"], rec["price_usd_per_hour"], rec["config"]["spot"])


def test_the_same_offer_has_the_same_number_whatever_top_is() -> None:
    full = _json(*SERVE, "--top", "60")
    assert full["front_size"] > 5  # the picks are not the first rows: --top 3 cuts between them
    by_rank = {r["rank"]: _who(r) for r in full["recommendations"]}
    for top in ("1", "2", "3", "5", "10"):
        answer = _json(*SERVE, "--top", top)
        assert all(full["picks"][name] == n for name, n in answer["picks"].items())
        ranks = [r["rank"] for r in answer["recommendations"]]
        assert ranks == sorted(ranks) and len(ranks) == int(top)
        for r in answer["recommendations"]:
            assert by_rank[r["rank"]] == _who(r), (top, r["rank"])
    three = _json(*SERVE, "--top", "3")
    assert [r["rank"] for r in three["recommendations"]] == sorted(three["picks"].values())
    assert three["picks"] == full["picks"]


def test_explain_n_breaks_down_the_row_n_of_any_earlier_run() -> None:
    three = _json(*SERVE, "--top", "3")
    for r in three["recommendations"]:
        n = str(r["rank"])
        for extra in ([], ["--top", "3"], ["--top", "1"]):
            explained = _json(*SERVE, *extra, "--explain", n)
            assert explained["rank"] == r["rank"] and _who(explained) == _who(r), (n, extra)
    # row 2 is a row of its own (not the balanced pick the cut answer shows second)
    default = _json(*SERVE)
    second = next(r for r in default["recommendations"] if r["rank"] == 2)
    assert _who(_json(*SERVE, "--top", "3", "--explain", "2")) == _who(second)


def test_explaining_past_the_last_row_counts_every_row() -> None:
    b200 = [*SERVE, "--gpu", "B200"]  # a short answer: its front and every dominated row
    full = _json(*b200, "--top", "200")
    last = max(r["rank"] for r in full["recommendations"])
    assert last == len(full["recommendations"]) < 200
    assert _json(*b200, "--top", "1", "--explain", str(last))["rank"] == last
    result = runner.invoke(app, [*b200, "--top", "1", "--explain", str(last + 1)])
    assert result.exit_code != 0
    assert f"row {last + 1} does not exist ({last} rows)" in result.stderr


def test_the_table_marks_the_rows_top_cut_and_the_csv_keeps_the_numbers() -> None:
    answer = _json(*SERVE, "--top", "3")
    ranks = [r["rank"] for r in answer["recommendations"]]
    result = runner.invoke(app, [*SERVE, "--top", "3"])
    assert result.exit_code == 0, result.output
    # the first cell of each table line (a wrapped line of a later column leaves it blank)
    numbered = [line.split("│")[1].strip() for line in result.output.splitlines() if line.startswith("│")]
    firsts = [cell for cell in numbered if cell.isdigit() or cell == "⋮"]
    assert [int(c) for c in firsts if c.isdigit()] == ranks
    assert "⋮" in firsts  # a gap row between the picks
    assert "Rows cut by --top:" in result.output and f"--top {ranks[-1]} shows them all" in result.output
    picks = answer["picks"]
    said = " ".join(result.output.split())  # an uncalibrated pick's note may stand between them
    assert f"cheapest on the front #{picks['cheapest']}" in said and f"balanced #{picks['balanced']}" in said
    out = runner.invoke(app, [*SERVE, "--top", "3", "--csv"])
    assert out.exit_code == 0, out.output
    assert [int(row["rank"]) for row in csv.DictReader(io.StringIO(out.stdout))] == ranks


def test_a_full_answer_has_no_gap() -> None:
    result = runner.invoke(app, [*SERVE, "--top", "60"])
    assert result.exit_code == 0, result.output
    assert "Rows cut by --top" not in result.output and "⋮" not in result.output
