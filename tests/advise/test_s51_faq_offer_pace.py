"""The FAQ's card-class headline compares the cheapest offer of each class, price and speed per user; the
lines naming those offers now give their speed per user too, so the headline's "each user gets 1.8x the
tokens/s on the 80 GiB A100..." can be read off the lines below it (the lines above describe other cards:
H100-SXM and RTX 4090)."""

from __future__ import annotations

import re

import pytest

from gpuscout.advise.faq import faq
from tests.advise.helpers import NOW, offer

OFFERS = [
    offer("runpod", "RTX4090", 1, 0.69, spot=0.35, memory=24, instance="4090"),
    offer("vastai", "RTX3090", 2, 0.5, spot=0.2, memory=24, instance="2x3090"),
    offer("lambda", "A100-PCIe-80GB", 1, 1.29, instance="a100"),
    offer("lambda", "H100-SXM", 1, 2.49, instance="h100"),
]
CHEAPEST = re.compile(r"cheapest (80 GiB HBM|24 GiB consumer) offer .*, ([0-9.]+) tok/s per user$")
RATIO = re.compile(r"each user gets ([0-9.]+)x the tokens/s on the (80 GiB|consumer) ")


def test_cheapest_offer_lines_give_their_pace_and_the_headline_ratio_is_theirs() -> None:
    card = faq("llama-3.1-8b", OFFERS, now=NOW).answers[1]
    paces = [m.groups() for d in card.details if (m := CHEAPEST.search(d))]
    assert len(paces) >= 2, card.details
    hbm = float(next(p for k, p in paces if k == "80 GiB HBM"))
    consumer = float(next(p for k, p in paces if k == "24 GiB consumer"))
    said = RATIO.search(card.answer)
    assert said is not None, card.answer
    ratio = float(said.group(1))
    faster = hbm / consumer if said.group(2) == "80 GiB" else consumer / hbm
    assert ratio == pytest.approx(faster, abs=0.1)  # both rounded as printed
