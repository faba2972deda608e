"""A named engine that costs at least twice what the default engine costs for the same work, every other
choice kept, is said so with the default's cheapest row (stop 55: llama.cpp serving DeepSeek-R1 to 100
users was ranked at $1.7M a month with no word that vLLM does it for $23k)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuscout.advise.answer import DEARER_ENGINE_SHARE
from gpuscout.advise.api import advise
from gpuscout.advise.reasons import usd
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.web.schemas import AdviceOut
from tests.advise.helpers import offer

NOW = datetime(2026, 12, 5, tzinfo=UTC)
BOXES = [
    offer("example", "H100-SXM", 1, 2.0, interconnect=Interconnect.NVLINK,
          availability=Availability.AVAILABLE, observed_at=NOW),
    offer("example", "L40S", 1, 1.0, memory=48.0, interconnect=Interconnect.PCIE,
          availability=Availability.AVAILABLE, observed_at=NOW),
]  # fmt: skip


def _serve(engine: str | None) -> ServeWorkload:
    return ServeWorkload(model="llama-3.1-8b", concurrency=64, engine=engine)


def _batch(engine: str | None) -> BatchWorkload:
    return BatchWorkload(model="llama-3.1-8b", output_tokens_total=1e8, engine=engine)


@pytest.mark.parametrize("make", [_serve, _batch])
def test_eager_transformers_is_told_what_the_default_engine_costs(make) -> None:  # type: ignore[no-untyped-def]
    w = make("hf-transformers")
    named = advise(w, BOXES, top=3, now=NOW)
    default = advise(make(None), BOXES, top=3, now=NOW)
    mine = min(r.total_usd for r in named.rows)
    # the default answer's cheapest pick (a cheaper dominated row is not quoted)
    best = next(r.total_usd for r in default.rows if r.rank == default.picks["cheapest"])
    assert best <= DEARER_ENGINE_SHARE * mine  # the premise: continuous batching at least halves the cost
    note = named.engine_note
    assert note.startswith("the default engine's cheapest row is")
    assert ", on vllm," in note
    per = " a month" if isinstance(w, ServeWorkload) else ""
    assert usd(best, per) in note and usd(mine, per) in note
    assert f"{mine / best:.1f}x cheaper than the cheapest with --engine hf-transformers" in note
    if not per:  # a batch job says how long the cheaper run takes
        assert ", done in " in note


@pytest.mark.parametrize("engine", [None, "vllm", "sglang"])
def test_no_note_where_the_engine_is_the_default_or_as_cheap(engine: str | None) -> None:
    for make in (_serve, _batch):
        assert advise(make(engine), BOXES, top=3, now=NOW).engine_note == ""


def test_the_api_names_the_field_not_the_flag() -> None:
    out = AdviceOut.from_advice(advise(_serve("hf-transformers"), BOXES, top=3, now=NOW))
    assert out.engine_note and "--engine" not in out.engine_note
    assert '"engine": "hf-transformers"' in out.engine_note


def test_the_terminal_table_and_the_page_say_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from rich.console import Console

    from gpuscout.cli import advise_output, consoles
    from gpuscout.web.advise_view import answer_view

    advice = advise(_serve("hf-transformers"), BOXES, top=3, now=NOW)
    out = Console(width=80, force_terminal=True, record=True, emoji=False, color_system=None)
    monkeypatch.setattr(consoles, "console", out)
    with out.capture() as captured:
        advise_output.table(SimpleNamespace(kind="serve", model="llama-3.1-8b"), advice)
    text = " ".join(captured.get().split())
    assert f"Engine: {advice.engine_note}." in text
    view = answer_view(advice, "serve")
    assert (
        view.engine_note.startswith("the default engine") and "--engine" not in view.engine_note
    )  # the form's words


def test_a_named_engine_with_no_row_at_all_is_told_what_the_default_costs() -> None:
    """DeepSeek-R1 with --engine hf-transformers: no offer passes (none reaches 20 tok/s per user), and
    the default engine serves it; the dead end said nothing of it."""
    w = ServeWorkload(model="deepseek-r1", concurrency=100, engine="hf-transformers")
    boxes = [
        offer("example", "H200-SXM", 8, 16.0, memory=141.0, interconnect=Interconnect.NVLINK,
              availability=Availability.AVAILABLE, observed_at=NOW),
    ]  # fmt: skip
    named = advise(w, boxes, top=3, now=NOW)
    assert not named.rows
    default = advise(ServeWorkload(model="deepseek-r1", concurrency=100), boxes, top=3, now=NOW)
    assert default.rows
    assert named.engine_note.startswith("no offer here passes with --engine hf-transformers; the default")
    assert usd(default.rows[0].total_usd, " a month") in named.engine_note
