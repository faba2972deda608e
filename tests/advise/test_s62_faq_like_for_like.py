"""The FAQ compares like with like, or says what it compares (stop 62).

Slow generation: the answer set the fewest H100s that hold a 70B model (2) against the 8 RTX 4090s it
runs on at batch 1 and concluded "an HBM card would not help here", while 8 H100s (the same count) decode
about three times as fast. The HBM cards are now estimated at the same count as well, and the conclusion
rests on both figures.
"""

from __future__ import annotations

import re

from gpuscout.advise.faq import _slow_cause, faq
from tests.advise.helpers import NOW, offer

OFFERS = [
    offer("runpod", "RTX4090", 1, 0.69, spot=0.35, memory=24, instance="4090"),
    offer("lambda", "H100-SXM", 1, 2.49, instance="h100"),
    offer("lambda", "H100-SXM", 2, 4.98, instance="2xh100"),
]


def test_the_hbm_comparison_is_at_the_same_gpu_count_too() -> None:
    slow = faq("llama-3.1-70b", OFFERS, now=NOW).answers[3]
    fig = slow.figures
    assert fig["gpus"] == 8 and fig["hbm_gpus"] == 2  # the fewest of each hold it: different counts
    one, fewest, same = fig["batch1_tok_s"], fig["hbm_tok_s"], fig["hbm_same_count_tok_s"]
    assert isinstance(one, float) and isinstance(fewest, float) and isinstance(same, float)
    assert fewest < 1.2 * one < same  # 2 H100s only match 8 RTX 4090s; 8 H100s are clearly faster
    # so the answer does not say an HBM card would not help: it says which HBM cards do, with both figures
    assert "would not help" not in slow.answer
    # the figures are kept to a tenth and the words round the unrounded speed: the same number, +-0.5
    said = _said(r"as many HBM cards \(8x H100-SXM: (\d+) tok/s for one user", slow.answer)
    assert abs(said - same) <= 0.5
    assert abs(_said(r"2x H100-SXM, the fewest that hold it, give (\d+) tok/s", slow.answer) - fewest) <= 0.5
    details = r"as many HBM cards as these \(8x H100-SXM\) at bf16: (\d+) tok/s for one user"
    assert _said(details, " | ".join(slow.details)) == said


def _said(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, (pattern, text)
    return int(found.group(1))


def test_the_hbm_advice_can_be_worded_as_the_figures_bear_it() -> None:
    words = "as many HBM cards (8x H100-SXM: 86 tok/s for one user)"
    cause, helps = _slow_cause("bandwidth", 8, hbm_help=words)
    assert cause == "memory bandwidth" and helps.endswith(f", or {words}")
    assert "a card with faster (HBM) memory" not in helps
    # not to a user whose card already has HBM
    assert words not in _slow_cause("bandwidth", 8, hbm_help=words, faster_memory=False)[1]
