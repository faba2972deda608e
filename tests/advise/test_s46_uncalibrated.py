"""Serving and image picks on an uncalibrated speed say so, and the calibrated alternative is always found.

Two gaps behind stop 45's caveat: a serving configuration is summarised only once its operating point is
detailed, and the ranking read the calibration flag off that summary, so a serving pick was never
flagged (a TPU's, before this stop; a B200's now that Blackwell inference is uncalibrated). And ranking
an endpoint by cost, the serve front skipped configurations whose latency floor was above the best time
of a cheaper one, whichever it was: an uncalibrated 2x B200 took a faster-than-anything-calibrated H200
off the calibrated rows' own front, so the "fastest" pick's calibrated alternative named a 12 s A100
where the H200 answers in under 4 s (with --top 1 or 3; the whole answer named the H200).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.offer import Interconnect
from tests.advise.helpers import offer

NOW = datetime(2025, 6, 1, tzinfo=UTC)

# a cheap 2x B200 (uncalibrated serving) answers one user faster than the latency floor of an H200
# (calibrated, the fastest calibrated row); 250 A100 offers in between crowd the H200 out of the rows a
# cost ranking keeps
CROWDED = [
    offer("p", "B200", 2, 1.00, memory=180.0, instance="2x-B200", interconnect=Interconnect.NVLINK),
    *(
        offer("p", "A100-SXM4-80GB", 1, 1.50 + i / 1000, instance=f"1x-A100-{i}", region=f"r{i}")
        for i in range(250)
    ),
    offer("p", "H200-SXM", 1, 4.00, memory=141.0, instance="1x-H200"),
]


def _serve(**kw: object) -> Workload:
    return Workload.from_dict({"kind": "serve", "model": "llama-3.1-8b", **kw})


_WORKLOAD = _serve(concurrency=1, output_tokens=1000)


@pytest.mark.parametrize("top", [1, 3, 10])
def test_the_calibrated_alternative_is_the_one_the_whole_answer_names(top: int) -> None:
    whole = advise(_WORKLOAD, CROWDED, now=NOW, top=None)
    assert whole.picks == {"cheapest": 1, "balanced": 1, "fastest": 1}  # the 2x B200
    expected = {u.pick: u.calibrated for u in whole.uncalibrated_picks}
    rows = {r.rank: r.offer.instance_type for r in whole.rows}
    assert rows[expected["fastest"]] == "1x-H200" and rows[expected["cheapest"]] == "1x-A100-0"  # type: ignore[index]
    cut = advise(_WORKLOAD, CROWDED, now=NOW, top=top)
    assert {u.pick: u.calibrated for u in cut.uncalibrated_picks} == expected
    said = f"speed uncalibrated for B200 serving; the fastest calibrated row is #{expected['fastest']}: "
    assert cut.uncalibrated_picks[-1].text.startswith(said)
    assert cut.uncalibrated_picks[-1].text == whole.uncalibrated_picks[-1].text


def test_a_serving_pick_on_an_uncalibrated_part_is_flagged() -> None:
    # the cheapest and fastest row is a TPU's: uncalibrated under either rule, never flagged before
    offers = [
        offer("g", "TPU-v6e", 1, 0.50, memory=32.0, instance="v6e-1"),
        offer("p", "H100-SXM", 1, 2.00, instance="1x-H100"),
    ]
    answer = advise(_serve(concurrency=4), offers, now=NOW)
    rows = {r.rank: r for r in answer.rows}
    tpu = rows[answer.picks["cheapest"]]
    assert (
        tpu.offer.accelerator == "TPU-v6e" and tpu.estimate is not None and not tpu.estimate.speed_calibrated
    )
    flagged = {u.pick: u for u in answer.uncalibrated_picks}
    assert flagged["cheapest"].what == "TPU-v6e serving"
    assert rows[flagged["cheapest"].calibrated].offer.accelerator == "H100-SXM"  # type: ignore[index]
    # the row itself says why, in the estimator's words
    assert any(w.startswith("inference speed on Google TPU-v6e is uncalibrated") for w in tpu.warnings)


def test_batch_generation_on_blackwell_is_flagged() -> None:
    offers = [
        offer("p", "B200", 1, 1.00, memory=180.0, instance="1x-B200"),
        offer("p", "H100-SXM", 1, 2.50, instance="1x-H100"),
    ]
    w = Workload.from_dict(
        {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e8, "spot_allowed": False}
    )
    answer = advise(w, offers, now=NOW)
    by_gpu = {r.offer.accelerator: r for r in answer.rows}
    assert by_gpu["B200"].estimate is not None and not by_gpu["B200"].estimate.speed_calibrated
    assert by_gpu["H100-SXM"].estimate is not None and by_gpu["H100-SXM"].estimate.speed_calibrated
    assert {u.what for u in answer.uncalibrated_picks} == {"B200 batch inference"}


def test_image_speed_is_calibrated_nowhere() -> None:
    # no image speed is fitted on any measurement (estimate.diffusion): every row's flag says so, and a
    # pick has no calibrated alternative
    offers = [offer("p", "H100-SXM", 1, 2.0, instance="1x-H100"), offer("q", "A100-SXM4-80GB", 1, 1.2)]
    w = Workload.from_dict({"kind": "batch", "model": "sdxl", "images_total": 10_000, "spot_allowed": False})
    answer = advise(w, offers, now=NOW)
    assert answer.rows and all(
        r.estimate is not None and not r.estimate.speed_calibrated for r in answer.rows
    )
    assert answer.uncalibrated_picks and all(u.calibrated is None for u in answer.uncalibrated_picks)
