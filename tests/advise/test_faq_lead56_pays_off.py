"""The card-class answer's closing sentence follows its own figures: where it has just computed that each
user gets more tokens/s on the consumer offer (4 users of Qwen3-30B-A3B on 4 RTX 3090s against one A100
80 GB), it no longer says "The 80 GiB card pays off with HBM bandwidth (tokens/s per user)"; it names
the precisions where the 80 GiB card is the faster per user, and what it pays off with regardless
(room for more users and longer contexts per card). FP8 is no argument against a consumer card that has
FP8 tensor cores too (the RTX 4090 the answer describes)."""

from __future__ import annotations

import re

import pytest

from gpuscout.advise.faq import faq
from gpuscout.errors import UnknownNameError
from tests.advise.helpers import NOW, offer

OFFERS = [
    offer("vastai", "A100-PCIe-80GB", 1, 0.87, instance="a100"),
    offer("vastai", "RTX3090", 4, 0.67, memory=24, instance="4x3090"),
    offer("lium", "RTX4090", 1, 0.28, memory=24, instance="4090"),
    offer("lambda", "H100-SXM", 1, 2.49, instance="h100"),
]
PAYS_OFF = ". The 80 GiB card pays off with "
# "at bf16 the consumer RTX3090 is 39% cheaper ..., and each user gets 1.3x the tokens/s on the consumer ..."
VERDICT = re.compile(r"[:;] at (\S+) [^;]*?each user gets [\d.]+x the tokens/s on the (80 GiB|consumer) ")


def _card_class(model: str, users: int) -> tuple[str, str, dict[str, str]]:
    """(the verdicts, the closing sentence, which side each verdict says is faster per user)."""
    answer = faq(model, OFFERS, users=users, now=NOW).answers[1].answer
    verdicts, closing = answer.split(PAYS_OFF)
    return verdicts, closing, {p: side for p, side in VERDICT.findall(verdicts)}


def test_a_consumer_offer_faster_per_user_is_not_contradicted() -> None:
    _, closing, faster = _card_class("qwen3-30b-a3b", 4)
    assert faster == {"bf16": "consumer", "int4": "80 GiB"}  # the case the renter met
    assert "HBM bandwidth (tokens/s per user)" not in closing  # the unqualified claim
    assert "tokens/s per user at int4, not at bf16" in closing
    assert "room for more users and long contexts per card" in closing
    # the capacity it computed: one 80 GiB card where the 24 GiB cards take four
    assert "at bf16 1 card holds it for 4 users, where it takes 4 of the 24 GiB cards" in closing


@pytest.mark.parametrize(
    ("model", "users"), [("qwen3-30b-a3b", 4), ("qwen3-30b-a3b", 8), ("llama-3.1-8b", 8), ("gpt-oss-20b", 1)]
)
def test_the_closing_sentence_never_claims_speed_where_a_verdict_denies_it(model: str, users: int) -> None:
    _, closing, faster = _card_class(model, users)
    slower_at = [p for p, side in faster.items() if side == "consumer"]
    if slower_at:
        assert "(tokens/s per user)" not in closing
        assert all(f"not at {p}" in closing or "tokens/s per user" not in closing for p in slower_at)
    elif "80 GiB" in faster.values():
        assert "HBM bandwidth (tokens/s per user)" in closing  # bandwidth that shows stays said


def test_fp8_is_no_reason_against_a_consumer_card_with_fp8_tensor_cores() -> None:
    answer = faq("llama-3.1-8b", OFFERS, now=NOW).answers[1]
    consumer = next(d for d in answer.details if d.startswith("24 GiB consumer card (RTX4090"))
    assert "FP8 tensor cores" in consumer and "no FP8" not in consumer
    assert "FP8" not in answer.answer.split(PAYS_OFF)[1]


def test_an_empty_gpu_is_refused_not_read_as_the_default() -> None:
    with pytest.raises(UnknownNameError) as err:
        faq("llama-3.1-8b", OFFERS, now=NOW, gpu="")
    assert err.value.field == "gpu" and err.value.message.startswith("is empty")
