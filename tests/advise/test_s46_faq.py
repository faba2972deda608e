"""The FAQ's answers agree with their own figures (a renter review of ``gpuscout faq``).

- "why is generation slow" advised "narrower weights (fp8/int4)" to a user already on int4 (its own
  bullet then showed fp8 slower), fp8/int4 for gpt-oss shipped in 4-bit MXFP4, and "a card with faster
  (HBM) memory" to an H100 user: only formats clearly narrower than the one run are named, and no HBM
  tip where the card has HBM (its memory type);
- it said "tensor cores ~2.2% busy" beside "math 7.1 ms" of a 10.3 ms step: the share counts useful work,
  the math a row padded to a 16-row tile; both are now said as such;
- the header said "prices as dated on each offer" of undated (bundled) prices: as ``recommend`` says it;
- "each user gets 3.8x the tokens/s on the HBM card" was an H100's speed beside an A100 offer's price:
  one sentence, one pair of offers;
- "$2.3/M" beside "$1.11/M": three significant figures everywhere.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from gpuscout.advise.faq import (
    MATH_CLOSE_BEHIND,
    UNDATED_PRICE,
    FaqAnswer,
    _slow_cause,
    faq,
    price_ages,
)
from gpuscout.estimate.api import estimate as estimate_function
from gpuscout.wording import money3
from tests.advise.helpers import NOW, offer
from tests.advise.test_faq import OFFERS


def _slow(
    model: str, gpu: str, precision: str | None = None, *, users: int = 8, context: int | None = None
) -> FaqAnswer:
    return faq(model, OFFERS, now=NOW, gpu=gpu, precision=precision, users=users, context=context).answers[3]


def test_an_int4_user_is_not_advised_wider_weights() -> None:
    # an RTX 4090: the reads set the pace (on an RTX 3090 Marlin's 16-row tiles at GeForce Ampere's
    # half-rate fp32 accumulation take nearly as long: no one cost binds there, and no card is advised)
    slow = _slow("llama-3.1-8b", "RTX4090", "int4")
    assert slow.figures["binding"] == "bandwidth"
    assert "narrower weights" not in slow.answer and "fp8" not in slow.answer
    assert not any(d.startswith("fp8 weights") for d in slow.details)  # fp8 is wider: no bullet either
    assert "fp8_tok_s" not in slow.figures
    # a GDDR card: the HBM card is still advised where its own figure is faster
    assert "a card with faster (HBM) memory" in slow.answer


def test_a_bf16_user_is_advised_the_narrower_formats_that_are_faster() -> None:
    slow = _slow("llama-3.1-8b", "RTX4090", "bf16")
    assert "narrower weights (fp8/int4)" in slow.answer
    assert slow.figures["int4_tok_s"] > slow.figures["batch1_tok_s"]  # type: ignore[operator]


def test_a_model_shipped_in_mxfp4_is_not_advised_fp8_or_int4_and_an_hbm_card_no_hbm() -> None:
    slow = _slow("gpt-oss-120b", "H100", users=16, context=32_000)
    assert slow.figures["precision"] == "mxfp4-moe"
    assert "narrower weights" not in slow.answer and "HBM" not in slow.answer
    assert not any(d.startswith(("fp8 weights", "int4 weights", "an HBM card")) for d in slow.details)
    assert "batching users" in slow.answer  # what does help is still said


@pytest.mark.parametrize("gpu", ["H100-PCIe", "A100-SXM4-80GB", "MI300X"])
def test_no_card_with_hbm_is_told_to_get_hbm(gpu: str) -> None:
    slow = _slow("llama-3.1-8b", gpu, "bf16")
    assert "HBM" not in slow.answer and "hbm_tok_s" not in slow.figures


def test_slow_cause_names_only_what_is_offered() -> None:
    assert _slow_cause("bandwidth", 1, narrower="", faster_memory=False) == (
        "memory bandwidth",
        "batching users (the same reads serve them all)",
    )
    assert _slow_cause("bandwidth", 1, narrower="int4")[1] == (
        "batching users (the same reads serve them all), narrower weights (int4), or a card with faster "
        "(HBM) memory"
    )
    assert "narrower" not in _slow_cause("interconnect", 4, narrower="")[1]
    assert "narrower" not in _slow_cause("split", 4, narrower="")[1]


def test_the_tensor_cores_share_and_the_padded_math_are_said_together() -> None:
    slow = _slow("llama-3.1-8b", "RTX3090", "int4")
    util = float(slow.figures["compute_utilisation"] or 0)
    assert slow.figures["gemm_tile_rows"] == 16
    assert f"useful work ~{util:.1%} of their peak (one user's row padded to 16-row tiles)" in slow.answer
    first = slow.details[0]
    assert re.search(r"reads [0-9.]+, math [0-9.]+", first)
    assert "16-row tiles for one user's row (15 of 16 rows padding)" in first
    assert f"~{util:.1%} of their peak in useful work" in first
    # where the math takes most of the reads' time, the answer does not say "not compute" beside it
    e = estimate_function(
        "llama-3.1-8b", "RTX3090", precision="int4", batch=1, context_in=3584, context_out=512
    )
    if slow.figures["binding"] == "split":  # no one cost binds: both are named, neither is dismissed
        assert "no one cost sets the pace" in slow.answer and "not compute" not in slow.answer
        assert re.search(r"reads take [0-9.]+ ms and math [0-9.]+", slow.answer)
    elif e.step_ms["compute"] >= MATH_CLOSE_BEHIND * e.step_ms["memory"]:
        assert "not compute" not in slow.answer and "close behind" in slow.answer
    else:
        assert "set by memory bandwidth, not compute" in slow.answer


def test_a_step_whose_math_is_small_says_plainly_how_busy_the_cores_are() -> None:
    slow = _slow("llama-3.1-8b", "L40S")  # 1.3 ms of math in a 27 ms step (5 %)
    assert "busy" in slow.answer and "padded" not in slow.answer
    assert slow.figures["gemm_tile_rows"] is None


def test_the_header_says_the_price_age_as_recommend_does() -> None:
    undated = faq("llama-3.1-8b", OFFERS, now=NOW)
    assert UNDATED_PRICE == "price age unknown (bundled snapshot)"
    assert UNDATED_PRICE in undated.summary and "as dated on each offer" not in undated.summary
    dated = [
        offer("runpod", "RTX4090", 1, 0.69, memory=24, instance="d", observed_at=NOW - timedelta(hours=1))
    ]
    assert price_ages(dated) == "prices as dated on each offer"
    assert (
        price_ages([*OFFERS, *dated])
        == f"prices as dated on each offer; {len(OFFERS)} offers: {UNDATED_PRICE}"
    )
    stale = offer("old", "H100-SXM", 1, 0.5, stale=True, instance="s", observed_at=NOW)
    assert price_ages([*OFFERS, stale]) == UNDATED_PRICE  # the stale ones are left out: all current undated


def test_the_speed_ratio_is_of_the_offers_whose_prices_it_compares() -> None:
    # an A100 80 GB offer is the cheapest of the 80 GB class: its speed stands beside its price, not the
    # reference H100's (3.8x the RTX 4090 where the A100 gives ~2x)
    a100 = offer("vastai", "A100-PCIe-80GB", 1, 0.87, instance="a100")
    f = faq("llama-3.1-8b", [*OFFERS, a100], now=NOW, precision="int4")
    cards = f.answers[1]
    hbm, consumer = cards.offers  # the cheapest of each class, cited
    assert hbm.offer.accelerator == "A100-PCIe-80GB" and consumer.offer.accelerator == "RTX3090"
    assert hbm.estimate is not None and consumer.estimate is not None
    ratio = (hbm.estimate.per_user_tokens_per_s or 0) / (consumer.estimate.per_user_tokens_per_s or 1)
    assert f"each user gets {ratio:.1f}x the tokens/s on the 80 GiB A100-PCIe-80GB" in cards.answer
    # whatever the verdict (about the same, or one cheaper), the sentence names both cards it prices
    verdict = cards.answer.split(". The 80 GiB card pays off")[0]
    assert "80 GiB A100-PCIe-80GB" in verdict and "consumer RTX3090" in verdict
    h100 = cards.figures["int4_80_tok_s_per_user"]
    rtx = cards.figures["int4_consumer_tok_s_per_user"]
    assert f"{float(h100 or 0) / float(rtx or 1):.1f}x" not in cards.answer  # the reference cards' ratio


@pytest.mark.parametrize(
    ("usd", "text"),
    [
        (2.3, "$2.30"),
        (1.11, "$1.11"),
        (0.246, "$0.246"),
        (12.34, "$12.3"),
        (99.96, "$100"),
        (1234.5, "$1,234"),
    ],
)
def test_money_per_million_has_three_significant_figures(usd: float, text: str) -> None:
    assert money3(usd) == text


def test_no_faq_price_per_million_drops_its_trailing_zero() -> None:
    cards = faq("llama-3.1-8b", OFFERS, now=NOW).answers[1]
    figures = re.findall(r"\$([0-9.]+)/M", " ".join((cards.answer, *cards.details)))
    assert figures
    for figure in figures:  # "0.246", "2.30", "12.3": three significant figures
        assert len(figure.replace(".", "").lstrip("0")) == 3, figure
