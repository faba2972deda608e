"""The FAQ says when a figure it quotes rests on an uncalibrated speed (real estimator): a row's flag
(``EstimateSummary.speed_calibrated``) travels into the sentence that quotes its cost, as ``recommend``
shows it on the same row, and the slow-generation answer says it of the user's own card."""

from __future__ import annotations

import pytest

from gpuscout.advise.faq import faq, speed_caveat
from tests.advise.helpers import NOW, offer
from tests.advise.test_faq import OFFERS

# V100s (Volta: no calibration run measures its training or inference) cheap enough that the fine-tune's
# cheapest spot and on-demand rows are both on them
VOLTA = [
    *OFFERS,
    offer("vastai", "V100-SXM2-16GB", 4, 0.3, spot=0.12, memory=16, instance="4xv100"),
    offer("vastai", "V100-SXM2-16GB", 8, 0.6, spot=0.25, memory=16, instance="8xv100"),
]


def _uncalibrated(rec: object) -> bool:
    est = rec.estimate  # type: ignore[attr-defined]
    return est is not None and not est.speed_calibrated


def test_the_spot_answer_names_its_rows_uncalibrated_training_speed() -> None:
    answer = faq("llama-3.1-8b", VOLTA, now=NOW).answers[2]
    spot_row, on_demand_row = answer.offers[:2]  # the fine-tune's rows the verdict quotes
    assert spot_row.config.spot and not on_demand_row.config.spot
    flagged = [r.offer.accelerator for r in (spot_row, on_demand_row) if _uncalibrated(r)]
    assert flagged, "the V100 rows' training speed is uncalibrated (the test's premise)"
    said = f"{' and '.join(dict.fromkeys(flagged))} training speed uncalibrated"
    # in the verdict, beside the two costs, and on the fine-tune's detail line
    assert said in answer.answer
    assert answer.answer.index(said) < answer.answer.index("Keep a live endpoint")
    assert said in answer.details[0]


def test_calibrated_rows_carry_no_caveat() -> None:
    f = faq("llama-3.1-8b", OFFERS, now=NOW)
    for a in f.answers:
        assert all(not _uncalibrated(r) for r in a.offers), "premise: every cited row is calibrated"
        assert "uncalibrated" not in a.answer
        assert not any("uncalibrated" in d for d in a.details)


def test_the_batch_detail_names_an_uncalibrated_inference_row() -> None:
    # a cheap B200 (Blackwell inference is uncalibrated) with a spot price: the batch job's spot row
    offers = [*OFFERS, offer("verda", "B200", 1, 3.0, spot=1.2, memory=180, instance="1xb200")]
    answer = faq("llama-3.1-8b", offers, now=NOW).answers[2]
    batch_rows = answer.offers[2:4]  # after the fine-tune's two
    flagged = {r.offer.accelerator for r in batch_rows if _uncalibrated(r)}
    assert flagged == {"B200"}, "premise: the batch job's rows include the uncalibrated B200"
    line = next(d for d in answer.details if d.startswith("batch generation"))
    assert line.endswith("; B200 inference speed uncalibrated")
    assert line.count("uncalibrated") == 1  # the card named once, however many of its rows are quoted


@pytest.mark.parametrize(("gpu", "flagged"), [("B200", True), ("L4", False)])
def test_the_slow_answer_says_when_the_users_card_is_uncalibrated(gpu: str, flagged: bool) -> None:
    answer = faq("llama-3.1-8b", OFFERS, gpu=gpu, now=NOW).answers[3]
    said = f"tok/s for one user ({gpu} inference speed uncalibrated)"
    assert (said in answer.answer) is flagged
    assert ("uncalibrated" in answer.answer) is flagged


def test_speed_caveat_names_each_uncalibrated_card_once() -> None:
    rows = [("V100-SXM2-16GB", False), ("H100-SXM", True), ("V100-SXM2-16GB", False), ("B200", False)]
    assert speed_caveat("training", rows) == "V100-SXM2-16GB and B200 training speed uncalibrated"
    assert speed_caveat("inference", [("H100-SXM", True)]) == ""
