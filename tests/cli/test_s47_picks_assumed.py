"""The picks line says what an answer assumes (renter review 92, items 2 and 5).

Item 2: ``recommend serve llama-3.1-70b --concurrency 50 --prompt 2000 --output 500`` picked a Seeweb
"H100" timed as an SXM5 board (the row's reason: "board assumed SXM5 (the source says only 'H100')");
as a PCIe board it would miss the latency target, yet the picks line flagged only uncalibrated speeds.
It now says, once, which pick's speed rests on an assumed board and where to read why.

Item 5: "fastest #5 (speed uncalibrated for MI355X batch inference; calibrated: #122)" named a row the
table did not show and gave no way to see it: it now says "not shown: --explain 122".
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpuscout.advise.types import Recommendation, UncalibratedPick
from gpuscout.catalog.normalize import assumed_fabric_note
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.cli import advise_output, app, consoles
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.advise.picks_helpers import pick_row, picks_advice
from tests.cli.stores import store_with

runner = CliRunner()
BOARD = (
    "board assumed SXM5 (the source says only 'H200'): TP4 timed over NVLink 4 at 900 GB/s "
    "(over PCIe on the H200-NVL)"
)
SAID = "#1's speed rests on an assumed board, SXM5 (the source says only 'H200'): --explain 1"


# ---- item 5: a calibrated alternative the table does not show ------------------------------------
def test_a_calibrated_row_not_shown_says_how_to_see_it() -> None:
    picks = {"cheapest": 1, "balanced": 4, "fastest": 5}
    caveats = (
        UncalibratedPick("cheapest", 1, "B200 batch inference", 2),
        UncalibratedPick("fastest", 5, "MI355X batch inference", 122),
    )
    text = advise_output.picks_text(picks, set(range(1, 11)), caveats)
    assert text == (
        "cheapest on the front #1 (speed uncalibrated for B200 batch inference; the cheapest calibrated "
        "row is #2), balanced #4, "
        "fastest on the front #5 (speed uncalibrated for MI355X batch inference; the fastest calibrated "
        "row is #122, not shown: --explain 122)"
    )


# ---- item 2: a pick timed on an assumed board ------------------------------------------------------
def _row(rank: int, picks: tuple[str, ...], *reasons: str) -> Recommendation:
    row = pick_row(rank, "seeweb", "Seeweb", "H200-SXM", picks, time_to_result_s=20.0)
    return replace(row, reasons=("fits", *reasons))


def test_the_assumed_board_of_a_pick_is_said_once() -> None:
    rows = [_row(1, ("cheapest", "balanced"), BOARD), _row(2, ("fastest",)), _row(3, (), BOARD)]
    picks = {"cheapest": 1, "balanced": 1, "fastest": 2}
    # named once, though two picks name the row; a row that is no pick is not named
    assert advise_output.assumed_boards(rows, picks) == SAID
    assert (
        advise_output.picks_text(picks, {1, 2, 3}, (), SAID)
        == f"cheapest on the front #1, balanced #1, fastest on the front #2 — {SAID}"
    )
    # several rows: each with its board, said once
    both = advise_output.assumed_boards([rows[0], replace(rows[1], reasons=(BOARD,))], picks)
    assert both == (
        "speeds rest on assumed boards: #1 SXM5 (the source says only 'H200'), "
        "#2 SXM5 (the source says only 'H200'): --explain N"
    )
    assert advise_output.assumed_boards(rows[1:], picks) == ""
    # beside "speeds uncalibrated", after it
    none = (UncalibratedPick("fastest", 2, "TPU-v5e serving", None),)
    assert advise_output.picks_text(picks, {1, 2}, none, SAID) == (
        "cheapest on the front #1, balanced #1, fastest on the front #2 — speeds uncalibrated: no row "
        "here has a calibrated speed; " + SAID
    )


def test_the_table_says_it(monkeypatch: pytest.MonkeyPatch) -> None:
    advice = picks_advice(
        (_row(1, ("cheapest", "balanced"), BOARD), _row(2, ("fastest",))), (), picks_rule="front"
    )
    out = Console(width=200, force_terminal=True, record=True, emoji=False, color_system=None)
    monkeypatch.setattr(consoles, "console", out)
    with out.capture() as captured:
        advise_output.table(SimpleNamespace(kind="serve", model="llama-3.1-70b"), advice)
    text = " ".join(captured.get().split())
    assert f"Picks: cheapest on the front #1, balanced #1, fastest on the front #2 — {SAID}. Front." in text


def _assumed_h200(provider: str, price: float) -> Offer:
    """An 8-GPU "H200" whose source does not name the board: timed as the SXM5 with its NVLink."""
    return Offer(
        provider=provider,
        instance_type=f"{provider}.h200x8",
        region="us-east-1",
        accelerator="H200-SXM",
        gpu_count=8,
        gpu_memory_gb=141.0,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=None,
        source="test:x",
        observed_at=None,
        interconnect=Interconnect.NVLINK,
        notes=assumed_fabric_note(resolve_gpu("H200-SXM")),
        extra={"variant": "assumed", "gpu_name_source": "H200"},
    )


def test_recommend_says_the_pick_rests_on_an_assumed_board(tmp_path: Path) -> None:
    url = store_with(tmp_path, [_assumed_h200("lambda", 20.0)])
    result = runner.invoke(app, ["recommend", "serve", "llama-3.1-70b", "-c", "16", "--db", url])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "— #1's speed rests on an assumed board, SXM5 (the source says only 'H200'): --explain 1." in text
