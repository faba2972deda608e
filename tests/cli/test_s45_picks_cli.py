"""``gpuscout recommend`` at 80 columns: providers by their short names, and picks that rest on an
uncalibrated speed say so.

At 80 columns the provider column read "Amazon Web Se…" and "Oracle Cloud …": a name cut mid-word.
Where the column must be cut, a provider whose display name does not fit is now shown by its id
("aws", "oci": the name --provider takes); a wide terminal still shows the display name. And the picks
line names, for a pick whose row's speed is uncalibrated, the hardware and work and the calibrated row
the same pick names: "fastest #2 (speed uncalibrated for MI300X training; calibrated: #1)".
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from gpuscout.advise.types import Recommendation, UncalibratedPick
from gpuscout.cli import advise_output, app, consoles
from gpuscout.cli.table_fit import Column, Short
from tests.advise.picks_helpers import eight_gpu_offer, pick_row, picks_advice
from tests.cli.fitted_tables import fitted_cells
from tests.cli.stores import h100_offer, store_with
from tests.cli.terminal_lines import table_cells as _cells
from tests.cli.terminal_lines import terminal_lines as _terminal

runner = CliRunner()


@pytest.fixture
def hyperscalers(tmp_path: Path) -> list[str]:
    url = store_with(
        tmp_path,
        [
            h100_offer("aws", "p5.xlarge", 3.0),
            h100_offer("oci", "BM.GPU.H100.1", 3.2),
            h100_offer("hyperstack", "n3-H100x1", 3.1),
            h100_offer("lambda", "gpu_1x_h100", 2.9),
        ],
    )
    return ["recommend", "serve", "llama-3.1-8b", "-c", "4", "--db", url]


def test_providers_are_named_by_their_ids_where_the_column_is_cut(
    monkeypatch: pytest.MonkeyPatch, hyperscalers: list[str]
) -> None:
    lines = _terminal(monkeypatch, 80, *hyperscalers)
    providers = {r[1] for r in _cells(lines) if r[0]}
    # a display name that fits stays, or its head before its bracketed detail; else the id, never a name
    # cut mid-word
    assert providers == {"aws", "oci", "Hyperstack", "Lambda"}, "\n".join(lines)
    assert not any("…" in line for line in lines if "aws" in line or "oci" in line)


def test_a_pipe_shows_the_display_names(hyperscalers: list[str]) -> None:
    # output read by programs and people alike is never cut: the names are whole
    result = runner.invoke(app, hyperscalers)
    assert result.exit_code == 0, result.output
    providers = {r[2] for r in _cells(result.output.splitlines()) if r[0]}
    assert providers == {
        "Amazon Web Services (EC2)",
        "Oracle Cloud Infrastructure",
        "Hyperstack (NexGen Cloud)",
        "Lambda",
    }


# ---- the mechanism, in table_fit ---------------------------------------------------------------
COLUMNS = [Column("#", right=True), Column("provider", max_width=12), Column("note", drop=1), Column("$")]
ROWS: list[list[str | Text | Short]] = [
    [
        "1",
        Short(Text("Amazon Web Services (EC2)"), (Text("Amazon Web Services"), Text("aws"))),
        "a long note",
        "$1",
    ],
    ["2", Short(Text("Google Cloud (Compute Engine)"), (Text("Google Cloud"), Text("gcp"))), "short", "$2"],
    ["3", Short(Text("Lambda"), (Text("lambda"),)), "short", "$3"],
]


def _table(width: int | None) -> tuple[list[list[str]], list[str]]:
    return fitted_cells(COLUMNS, ROWS, width)


def test_a_short_cell_shows_a_shorter_form_only_where_its_column_is_cut() -> None:
    rows, left_out = _table(None)  # a pipe: every column, every name whole
    assert [r[1] for r in rows] == ["Amazon Web Services (EC2)", "Google Cloud (Compute Engine)", "Lambda"]
    assert left_out == []
    rows, _ = _table(30)
    # cut: the first shorter form that fits (the id where none but it does); a name that fits stays
    assert [r[1] for r in rows] == ["aws", "Google Cloud", "Lambda"]


def test_the_shorter_names_leave_room_for_a_column_a_cut_name_would_have_pushed_out() -> None:
    # 48 columns: with the names cut to 12 cells the note gives way; the shorter ones leave it room
    rows, left_out = _table(48)
    assert left_out == [] and rows[0][2] == "a long note"


# ---- the picks line ----------------------------------------------------------------------------
def test_the_picks_text_says_which_pick_rests_on_an_uncalibrated_speed() -> None:
    caveat = UncalibratedPick("fastest", 2, "MI300X training", 1)
    picks = {"cheapest": 1, "balanced": 1, "fastest": 2}
    assert advise_output.picks_text(picks, {1, 2}, (caveat,)) == (
        "cheapest on the front #1, balanced #1, fastest on the front #2 (speed uncalibrated for MI300X "
        "training; the fastest calibrated row is #1)"
    )
    # a pick --top left out says so; with no calibrated row in the answer that is said once
    assert advise_output.picks_text(
        {"fastest": 11}, {1}, (UncalibratedPick("fastest", 11, "TPU-v5e serving", None),)
    ) == ("fastest on the front #11 (not shown) — speeds uncalibrated: no row here has a calibrated speed")
    assert (
        advise_output.picks_text(picks, {1, 2})
        == "cheapest on the front #1, balanced #1, fastest on the front #2"
    )


def _rec(rank: int, provider: str, name: str, accelerator: str, picks: tuple[str, ...]) -> Recommendation:
    return pick_row(rank, provider, name, accelerator, picks, time_to_result_s=3000.0)


def test_the_table_names_the_uncalibrated_pick_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = (
        _rec(1, "aws", "Amazon Web Services (EC2)", "H100-SXM", ("cheapest", "balanced")),
        _rec(2, "oci", "Oracle Cloud Infrastructure", "MI300X", ("fastest",)),
    )
    caveats = (UncalibratedPick("fastest", 2, "MI300X training", 1),)
    advice = picks_advice(rows, caveats, considered=2, passing=2, picks_rule="front: ...")
    out = Console(width=80, force_terminal=True, record=True, emoji=False, color_system=None)
    monkeypatch.setattr(consoles, "console", out)
    with out.capture() as captured:
        advise_output.table(SimpleNamespace(kind="finetune", model="llama-3.1-70b"), advice)
    text = " ".join(captured.get().split())
    said = "speed uncalibrated for MI300X training; the fastest calibrated row is #1"
    assert f"fastest on the front #2 ({said})" in text
    assert {r[1] for r in _cells(captured.get().splitlines()) if r[0]} == {"aws", "oci"}


# ---- through the ranking (needs the estimate's flag and rank.py passing it on) ----------------------
@pytest.fixture
def mixed(tmp_path: Path) -> list[str]:
    offers = [eight_gpu_offer("aws", "H100-SXM", 30.0, 80.0), eight_gpu_offer("oci", "MI300X", 50.0, 192.0)]
    url = store_with(tmp_path, offers)
    return [
        "recommend",
        "finetune",
        "llama-3.1-8b",
        "--method",
        "lora",
        "--dataset-tokens",
        "100M",
        "--db",
        url,
    ]


def test_recommend_names_the_uncalibrated_picks_at_80_columns(
    monkeypatch: pytest.MonkeyPatch, mixed: list[str]
) -> None:
    lines = _terminal(monkeypatch, 80, *mixed)
    text = " ".join(" ".join(lines).split())
    assert (
        "balanced #2 (speed uncalibrated for MI300X training; the best-balanced calibrated row is #1: "
        "1.3x the time at 0.8x the cost), fastest on the front #2 (speed uncalibrated for MI300X "
        "training; the fastest calibrated row is #1: 1.3x the time at 0.8x the cost)" in text
    ), "\n".join(lines)
    assert {r[1] for r in _cells(lines) if r[0]} == {"aws", "oci"}


def test_recommend_json_carries_the_uncalibrated_picks(mixed: list[str]) -> None:
    import json

    result = runner.invoke(app, [*mixed, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    fastest = data["uncalibrated_picks"][1]
    ratios = fastest.pop("time_ratio"), fastest.pop("cost_ratio")
    assert ratios == (pytest.approx(1.3, abs=0.05), pytest.approx(0.8, abs=0.05))
    assert fastest == {
        "pick": "fastest",
        "number": 2,
        "what": "MI300X training",
        "calibrated": 1,
        "parts": [],  # none of the engine's figures: the hardware alone
        "text": "speed uncalibrated for MI300X training; the fastest calibrated row is #1: 1.3x the time "
        "at 0.8x the cost",
    }
    speed = {r["offer"]["accelerator"]: r["estimate"]["speed_calibrated"] for r in data["recommendations"]}
    assert speed == {"H100-SXM": True, "MI300X": False}
