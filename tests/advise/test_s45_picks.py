"""A pick whose row's speed is uncalibrated says so, and names the calibrated row the same pick names.

``gpuscout recommend finetune llama-3.1-70b --method full --dataset-tokens 100M`` named "fastest #2"
an Oracle 4 x 8x MI300X row at 44 min against 57 min for the H100 rows, while its own --explain said
the MI300X training speed is uncalibrated (NVIDIA-fitted efficiencies at the MI300X datasheet peak).
The pick a renter acts on rested on that guess, unsaid. The selection now knows which candidates'
speed is calibrated (a structured flag from the estimate, never a warning's words), and names for each
pick on an uncalibrated row the row the same pick names among the calibrated rows alone: "fastest #2
(speed uncalibrated for MI300X training; calibrated: #1)".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuscout.advise.answer import uncalibrated_picks, work_words
from gpuscout.advise.selection import Candidate, select
from gpuscout.advise.types import EstimateSummary, Recommendation, UncalibratedPick
from gpuscout.advise.workload import BatchWorkload, FinetuneWorkload, PretrainWorkload, ServeWorkload
from gpuscout.web.advise_view import answer_view
from tests.advise.picks_helpers import eight_gpu_offer, pick_row, picks_advice
from tests.cli.stores import store_with


def _cand(name: str, cost: float, time: float, *, calibrated: bool = True) -> Candidate:
    return Candidate(cost, time, (name,), name, name, calibrated=calibrated)


# the finetune answer: H100 spot rows at 57 min, B200 at 55 min, the MI300X row at 44 min (uncalibrated)
H100 = _cand("h100", 35.56, 57 * 60)
MI300X = _cand("mi300x", 141.0, 44 * 60, calibrated=False)
H100_B = _cand("h100-b", 40.08, 57 * 60)
B200 = _cand("b200", 43.79, 55 * 60)
FINETUNE = [H100, MI300X, H100_B, B200]


def test_an_uncalibrated_fastest_pick_names_its_calibrated_alternative() -> None:
    s = select(FINETUNE, FINETUNE, objective="cost", top=10)
    assert s.picks == {"cheapest": 1, "balanced": 1, "fastest": 2}
    assert s.by_number(2).candidate is MI300X
    # among the calibrated rows the fastest is the cheapest within 5 % of the B200's 55 min: the H100 #1
    assert s.calibrated_picks == {"fastest": 1}
    assert not s.unnumbered


def test_calibrated_picks_name_nothing() -> None:
    calibrated = [H100, H100_B, B200]
    s = select(calibrated, calibrated, objective="cost", top=10)
    assert s.calibrated_picks == {} and not s.unnumbered


def test_the_alternative_can_be_a_row_the_uncalibrated_one_beat_numbered_whatever_top_shows() -> None:
    cheap = _cand("cheap", 10.0, 100.0)
    fast = _cand("fast-guess", 12.0, 50.0, calibrated=False)  # beats "dear": cheaper and faster
    dear = _cand("dear", 30.0, 60.0)
    rows = [cheap, fast, dear]
    full = select(rows, rows, objective="cost", top=None)
    assert [(s.number, s.candidate.group, s.pareto) for s in full.rows] == [
        (1, "cheap", True),
        (2, "fast-guess", True),
        (3, "dear", False),
    ]
    # the fast guess is the balanced pick too: among the calibrated rows that is the cheap one
    assert full.picks == {"cheapest": 1, "balanced": 2, "fastest": 2}
    assert full.calibrated_picks == {"balanced": 1, "fastest": 3}
    cut = select(rows, rows, objective="cost", top=2)  # row 3 not shown, still named by its number
    assert [s.number for s in cut.rows] == [1, 2] and cut.calibrated_picks == full.calibrated_picks


def test_an_alternative_past_the_rows_ranked_is_not_numbered_by_a_guess() -> None:
    # the caller kept too few rows to number the alternative: it is not named, and the caller is told
    cheap = _cand("cheap", 10.0, 100.0)
    fast = _cand("fast-guess", 12.0, 50.0, calibrated=False)
    dear = _cand("dear", 30.0, 60.0)
    s = select([cheap, fast, dear], [cheap, fast], objective="cost", top=2)
    assert s.unnumbered and "fastest" not in s.calibrated_picks


def test_no_calibrated_row_at_all_is_said() -> None:
    rows = [_cand("a", 10.0, 100.0, calibrated=False), _cand("b", 20.0, 40.0, calibrated=False)]
    s = select(rows, rows, objective="cost", top=None)
    assert s.calibrated_picks == {"cheapest": None, "balanced": None, "fastest": None}


def test_a_generator_of_ranked_rows_is_read_once_only() -> None:
    s = select(FINETUNE, iter(FINETUNE), objective="time", top=10)
    # fastest first: the MI300X #1, the H100 #2, then the dominated rows; the caveat named
    assert [r.candidate for r in s.rows] == [MI300X, H100, B200, H100_B]
    assert s.calibrated_picks == {"fastest": 2}


# ---- the answer's words ----------------------------------------------------------------------------
def _summary(calibrated: bool) -> EstimateSummary:
    return EstimateSummary(
        throughput=1e5,
        throughput_unit="train tok/s",
        per_user_tokens_per_s=None,
        ttft_ms=None,
        tpot_ms=None,
        memory_per_gpu_gb=100.0,
        memory_capacity_gb=192.0,
        weights_gb=20.0,
        kv_cache_gb=0.0,
        batch_per_replica=None,
        max_batch_per_replica=None,
        bound=None,
        speed_calibrated=calibrated,
    )


def _rec(rank: int, accelerator: str, picks: tuple[str, ...] = ()) -> Recommendation:
    oracle = accelerator == "MI300X"
    return pick_row(
        rank,
        "oci" if oracle else "aws",
        "Oracle Cloud Infrastructure" if oracle else "Amazon Web Services (EC2)",
        accelerator,
        picks,
        estimate=_summary(not oracle),
        source="test:https://example.com/prices",
    )


def test_the_answer_says_which_hardware_and_work_the_speed_is_uncalibrated_for() -> None:
    s = select(FINETUNE, FINETUNE, objective="cost", top=10)
    recs = [_rec(1, "H100-SXM", ("cheapest", "balanced")), _rec(2, "MI300X", ("fastest",))]
    w = FinetuneWorkload(model="llama-3.1-70b", method="full", dataset_tokens=100e6)
    got = uncalibrated_picks(w, s, recs)
    # the H100 #1 against the MI300X: 57 / 44 min, $35.56 / $141.00
    assert got == (UncalibratedPick("fastest", 2, "MI300X training", 1, (), 57 / 44, 35.56 / 141.0),)
    assert got[0].text == (
        "speed uncalibrated for MI300X training; the fastest calibrated row is #1: 1.3x the time at 0.3x "
        "the cost"
    )
    # a pick cut by top (its row not built) still says so, without the hardware's name
    assert uncalibrated_picks(w, s, recs[:1])[0].what == "this hardware training"


@pytest.mark.parametrize(
    ("workload", "words"),
    [
        (FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e6), "training"),
        (PretrainWorkload(model="llama-3.1-8b", token_budget=1e9), "training"),
        (ServeWorkload(model="llama-3.1-8b", concurrency=4), "serving"),
        (BatchWorkload(model="sdxl", images_total=100), "image generation"),
        (BatchWorkload(model="llama-3.1-8b", output_tokens_total=1e8), "batch inference"),
    ],
)
def test_the_work_a_speed_is_for(workload: object, words: str) -> None:
    assert work_words(workload) == words


@pytest.mark.parametrize(
    ("calibrated", "text"),
    [
        (3, "speed uncalibrated for TPU-v5e serving; the fastest calibrated row is #3"),
        (None, "speed uncalibrated for TPU-v5e serving; no calibrated row"),
    ],
)
def test_the_caveat_text(calibrated: int | None, text: str) -> None:
    assert UncalibratedPick("fastest", 2, "TPU-v5e serving", calibrated).text == text


def test_the_web_view_carries_the_caveat_by_pick() -> None:
    rows = (_rec(1, "H100-SXM", ("cheapest", "balanced")), _rec(2, "MI300X", ("fastest",)))
    caveat = UncalibratedPick("fastest", 2, "MI300X training", 1)
    view = answer_view(picks_advice(rows, (caveat,)), "finetune")
    assert view.uncalibrated == {"fastest": caveat}
    assert view.shown(1) and not view.shown(7)
    assert answer_view(picks_advice(rows, ()), "finetune").uncalibrated == {}


# ---- through the ranking (needs the estimate's flag and rank.py passing it on) ----------------------
def test_the_ranking_flags_the_uncalibrated_mi300x_pick() -> None:
    from gpuscout.advise.api import advise

    offers = [eight_gpu_offer("aws", "H100-SXM", 30.0, 80.0), eight_gpu_offer("oci", "MI300X", 50.0, 192.0)]
    w = FinetuneWorkload(model="llama-3.1-8b", method="lora", dataset_tokens=100e6)
    answer = advise(w, offers, top=10)
    by_rank = {r.rank: r for r in answer.rows}
    mi300x = next(r for r in answer.rows if r.offer.accelerator == "MI300X")
    h100 = next(r for r in answer.rows if r.offer.accelerator == "H100-SXM")
    assert mi300x.estimate is not None and not mi300x.estimate.speed_calibrated
    assert h100.estimate is not None and h100.estimate.speed_calibrated
    # the MI300X (faster, its speed a guess) is the balanced and fastest pick; the H100 is both among
    # the calibrated rows
    assert {p for p, n in answer.picks.items() if by_rank[n] is mi300x} == {"balanced", "fastest"}
    assert [(u.pick, u.number, u.what, u.calibrated) for u in answer.uncalibrated_picks] == [
        ("balanced", mi300x.rank or 0, "MI300X training", h100.rank),
        ("fastest", mi300x.rank or 0, "MI300X training", h100.rank),
    ]
    # how far the H100 is from the MI300X: its time and cost over the MI300X's
    assert h100.time_to_result_s and mi300x.time_to_result_s and h100.total_usd and mi300x.total_usd
    for u in answer.uncalibrated_picks:
        assert u.time_ratio == pytest.approx(h100.time_to_result_s / mi300x.time_to_result_s)
        assert u.cost_ratio == pytest.approx(h100.total_usd / mi300x.total_usd)


def test_the_web_page_and_the_json_api_name_the_uncalibrated_picks(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from gpuscout.web.app import create_app
    from gpuscout.web.services import WebServices

    offers = [eight_gpu_offer("aws", "H100-SXM", 30.0, 80.0), eight_gpu_offer("oci", "MI300X", 50.0, 192.0)]
    url = store_with(tmp_path, offers, "web.db")
    workload = {"kind": "finetune", "model": "llama-3.1-8b", "method": "lora", "dataset_tokens": 100e6}
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        page = client.get("/advise", params={**workload, "dataset_tokens": "100000000"})
        assert page.status_code == 200
        picks = page.text.split('id="picks"', 1)[1].split("</ul>", 1)[0]
        fastest = picks.split('data-pick="fastest"', 1)[1].split("</li>", 1)[0]
        assert "speed uncalibrated for MI300X training; the fastest calibrated row is " in fastest
        assert '<a href="#rank-1">#1</a>' in fastest
        assert "uncalibrated" not in picks.split('data-pick="cheapest"', 1)[1].split("</li>", 1)[0]
        api = client.post("/api/v1/advise", json={"workload": workload})
        assert api.status_code == 200, api.text
        assert [(u["pick"], u["calibrated"]) for u in api.json()["uncalibrated_picks"]] == [
            ("balanced", 1),
            ("fastest", 1),
        ]
