"""An offer whose source names its GPU without the board ("H200": SXM5 or NVL?) is timed on the
default board with the fabric that board sits on. Every source's offer says so in its notes, Shadeform's
now too; and an advisor row whose GPUs exchange data over that assumed fabric says it among its reasons
(CLI, JSON, web), where a board of the other kind would have been timed otherwise."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import respx

from gpuscout.advise.api import advise
from gpuscout.advise.workload import FinetuneWorkload, ServeWorkload
from gpuscout.catalog.normalize import assumed_fabric_note
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.sources.shadeform import TYPES_URL, ShadeformSource
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.web.advise_view import answer_view
from tests.catalog.sources.samples import fetch

NOW = datetime(2026, 12, 1, tzinfo=UTC)
H200_NOTE = assumed_fabric_note(resolve_gpu("H200-SXM"))  # "NVLink assumed with the H200-SXM (...)"
# Shadeform's "H200" with its 141 GB per GPU, as the accelerator table's note quotes it
BOARD = (
    "board assumed SXM5 (the source says only 'H200 141GB'): TP{tp} timed over NVLink 4 at 900 GB/s "
    "(over PCIe on the H200-NVL)"
)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHADEFORM_API_KEY", "sf-key")


def _row(gpu_type: str, count: int = 8, **config: Any) -> dict[str, Any]:
    return {
        "cloud": "examplecloud",
        "shade_instance_type": f"{gpu_type}x{count}",
        "hourly_price": 2400,
        "configuration": {"gpu_type": gpu_type, "num_gpus": count, "vram_per_gpu_in_gb": 141, **config},
        "availability": [{"region": "us-east", "available": True}],
    }


@respx.mock
def _shadeform(*rows: dict[str, Any]) -> list[Offer]:
    respx.get(TYPES_URL).mock(return_value=httpx.Response(200, json={"instance_types": list(rows)}))
    return [replace(o, observed_at=NOW) for o in fetch(ShadeformSource())]


# ---- the source -----------------------------------------------------------------------------------


def test_shadeform_says_the_fabric_came_with_the_assumed_board() -> None:
    (o,) = _shadeform(_row("H200"))
    assert (o.accelerator, o.interconnect, o.extra["variant"]) == ("H200-SXM", Interconnect.NVLINK, "assumed")
    assert H200_NOTE in o.notes.split("; ")  # as every other source's offer says it
    assert "form factor not stated in 'H200 141GB'" in o.notes


def test_shadeform_states_no_assumption_it_did_not_make() -> None:
    stated, pinned = _shadeform(_row("H200", interconnect="nvlink"), _row("H200", interconnect="sxm"))
    # the row states the fabric (the board is still assumed: marked, but no fabric note)
    assert stated.interconnect is Interconnect.NVLINK and stated.extra.get("variant") == "assumed"
    assert "assumed with the" not in stated.notes
    # "H200 sxm": the board is named
    assert pinned.accelerator == "H200-SXM" and "variant" not in pinned.extra
    assert "assumed with the" not in pinned.notes


# ---- the advisor row ----------------------------------------------------------------------------

SERVE = ServeWorkload(model="llama-3.1-70b", concurrency=16)


def _reasons(workload: Any, offers: list[Offer]) -> tuple[str, ...]:
    rows = advise(workload, offers, top=3, now=NOW).rows
    assert rows, "no row"
    return rows[0].reasons


def test_a_row_split_over_an_assumed_board_says_so() -> None:
    (o,) = _shadeform(_row("H200"))
    advice = advise(SERVE, [o], top=3, now=NOW)
    row = advice.rows[0]
    tp = row.config.tp
    assert tp > 1
    assert BOARD.format(tp=tp) in row.reasons
    # the web page renders the row's reasons, in the form's words (the line names no flag)
    (shown,) = answer_view(advice, "serve").rows
    assert BOARD.format(tp=tp) in shown.rec.reasons


def test_the_bundled_snapshots_name_for_the_gpu_is_read_too() -> None:
    (o,) = _shadeform(_row("H200"))
    snap = replace(o, notes=H200_NOTE, extra={"variant": "assumed", "gpu_name_source": "H200"})
    assert any(
        r.startswith("board assumed SXM5 (the source says only 'H200')") for r in _reasons(SERVE, [snap])
    )


def test_no_line_where_the_assumption_does_not_change_the_timing() -> None:
    (assumed,) = _shadeform(_row("H200"))
    (named,) = _shadeform(_row("H200", interconnect="sxm"))
    (one,) = _shadeform(_row("H200", count=1))
    small = ServeWorkload(model="llama-3.1-8b", concurrency=4)
    for workload, o in ((SERVE, named), (small, one)):
        reasons = _reasons(workload, [o])
        assert not any(r.startswith("board assumed") for r in reasons), (workload.model, o.gpu_count, reasons)
    # a variant assumed for its memory alone: the board (and its fabric) was stated
    a100 = replace(
        assumed,
        accelerator="A100-SXM4-80GB",
        gpu_memory_gb=80.0,
        notes="memory size not stated in 'A100 SXM4'; assumed A100-SXM4-80GB",
        extra={"variant": "assumed"},
    )
    assert not any(r.startswith("board assumed") for r in _reasons(SERVE, [a100]))
    # an unstated fabric: costed over PCIe, which the row's warning says
    unstated = replace(assumed, interconnect=Interconnect.UNKNOWN)
    assert not any(r.startswith("board assumed") for r in _reasons(SERVE, [unstated]))


def test_a_training_rows_exchanges_over_an_assumed_board() -> None:
    (o,) = _shadeform(_row("H200"))
    lora = FinetuneWorkload(model="llama-3.1-8b", method="lora", dataset_tokens=2e8, seq_len=2048)
    o = replace(o, availability=Availability.AVAILABLE)
    line = next(r for r in _reasons(lora, [o]) if r.startswith("board assumed"))
    assert line == (
        "board assumed SXM5 (the source says only 'H200 141GB'): the 8 GPUs' exchanges timed over "
        "NVLink 4 at 900 GB/s (over PCIe on the H200-NVL)"
    )
