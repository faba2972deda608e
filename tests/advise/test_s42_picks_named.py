"""The three picks are named whatever ``top`` shows (a pick ``top`` leaves no room for keeps its
number), the selection keeps the whole front apart from the rows shown, and the web page's caveats are
the advisor's notes: never recomputed from the rows "Show" keeps."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuscout.advise.selection import Candidate, Selection, select
from gpuscout.advise.types import Advice, Config, Recommendation
from gpuscout.catalog.offer import Offer
from gpuscout.web.advise_view import answer_view

FRONT = [(203.0, 10.8), (268.0, 6.7), (628.0, 5.7), (671.0, 5.3), (932.0, 2.9), (1499.0, 2.7), (13553.0, 1.0)]


def _select(top: int | None) -> Selection:
    cands = [Candidate(c, t, (n,), f"offer-{n}", f"offer-{n}") for n, (c, t) in enumerate(FRONT)]
    return select(cands, cands, objective="cost", top=top)


@pytest.mark.parametrize("top", [1, 2, 3, 7, None])
def test_every_pick_is_named_whatever_top_shows(top: int | None) -> None:
    full = _select(None)
    assert full.picks == {"cheapest": 1, "balanced": 5, "fastest": 7}
    cut = _select(top)
    assert cut.picks == full.picks  # --top 1 still names the balanced and fastest rows, by number
    assert len(cut.rows) == min(top or len(FRONT), len(FRONT))
    # the whole front, shown or not, numbered as in the full answer
    assert [(s.number, s.picks, s.candidate.group) for s in cut.front] == [
        (s.number, s.picks, s.candidate.group) for s in full.rows
    ]


def test_top_one_shows_the_first_pick_and_names_the_others() -> None:
    cut = _select(1)
    assert [(s.number, s.picks) for s in cut.rows] == [(1, ("cheapest",))]
    assert {n for n in cut.picks.values()} - {s.number for s in cut.rows} == {5, 7}


def _rec(rank: int, warnings: tuple[str, ...], picks: tuple[str, ...] = ()) -> Recommendation:
    offer = Offer(
        provider="testcloud",
        instance_type=f"gpu.{rank}",
        region="us-east-1",
        accelerator="H100-SXM",
        gpu_count=1,
        gpu_memory_gb=80.0,
        price_usd_per_hour=2.0,
        spot_price_usd_per_hour=None,
        source="test:https://example.com/prices",
        observed_at=datetime(2025, 1, 1, tzinfo=UTC),
    )
    config = Config(
        instances=1,
        gpus_per_instance=1,
        tp=1,
        replicas_per_instance=1,
        gpus_used=1,
        nodes=1,
        spot=False,
        parallel="tensor",
        training="",
        idle_per_instance=0,
    )
    return Recommendation(
        offer=offer,
        config=config,
        fits=True,
        estimate=None,
        time_s=None,
        cost=None,
        unit_costs=None,
        price_usd_per_hour=2.0,
        reasons=("fits",),
        warnings=warnings,
        rank=rank,
        score=float(rank),
        pareto=True,
        picks=picks,
    )


def _advice(rows: tuple[Recommendation, ...], notes: tuple[str, ...], picks: dict[str, int]) -> Advice:
    return Advice(
        objective="cost",
        rows=rows,
        rejected=(),
        front_size=7,
        picks=picks,
        targets=(),
        notes=notes,
        binding=None,
        time_axis="request latency (TTFT + output x time per token)",
        considered=7,
        passing=7,
    )


def test_the_web_caveats_are_the_advisors_notes_not_what_the_shown_rows_share() -> None:
    # two rows shown happen to share "spot only in one region", which the rest of the front does not:
    # the advisor's notes (what every row carries) say nothing of it, nor may the page
    shown = (
        _rec(1, ("price age unknown", "spot only in one region"), ("cheapest",)),
        _rec(5, ("price age unknown", "spot only in one region"), ("balanced",)),
    )
    view = answer_view(_advice(shown, ("price age unknown",), {"cheapest": 1, "balanced": 5}), "serve")
    assert view.caveats == ["price age unknown"]
    assert [r.warnings for r in view.rows] == [("spot only in one region",)] * 2
    # one row shown says the same caveats as two
    one = answer_view(_advice(shown[:1], ("price age unknown",), {"cheapest": 1}), "serve")
    assert one.caveats == view.caveats and one.rows[0].warnings == view.rows[0].warnings


def test_the_web_names_the_picks_show_left_out() -> None:
    shown = (_rec(1, (), ("cheapest",)),)
    view = answer_view(_advice(shown, (), {"cheapest": 1, "balanced": 5, "fastest": 7}), "serve")
    assert [(name, r.rec.rank) for name, r in view.picks] == [("cheapest", 1)]
    assert view.picks_cut == [("balanced", 5), ("fastest", 7)]
    full = answer_view(_advice(shown, (), {"cheapest": 1, "balanced": 1, "fastest": 1}), "serve")
    assert full.picks_cut == [] and [name for name, _ in full.picks] == ["cheapest", "balanced", "fastest"]
