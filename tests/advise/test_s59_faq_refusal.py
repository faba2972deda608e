"""The FAQ's "why is generation slow" answer says when the engine refuses the card (stop 59, renter
pass): an 8B on a 32 GiB V100 (vLLM's wheels have no Volta kernels) read "does not fit V100-SXM2-32GB even
on 8 cards at int4", and fp8 asked on an MI250X was answered at int4 without a word."""

from __future__ import annotations

from gpuscout.advise.faq import FaqAnswer, faq
from gpuscout.catalog.api import current_offers


def _slow(gpu: str, precision: str | None = None) -> FaqAnswer:
    answers = faq("llama-3.1-8b", current_offers(), gpu=gpu, precision=precision)
    (slow,) = [a for a in answers.answers if a.key == "slow_generation"]
    return slow


def test_an_engine_refusal_is_not_called_a_memory_fit() -> None:
    slow = _slow(gpu="V100-SXM2-32GB")
    assert "does not fit" not in slow.answer
    assert "cannot run on V100-SXM2-32GB as asked (the engine refuses it there" in slow.answer
    assert "Volta" in slow.answer


def test_a_refused_precision_is_said_before_the_one_answered() -> None:
    slow = _slow(gpu="MI250X", precision="fp8")
    first = slow.details[0]
    assert first.startswith("fp8 is refused on MI250X") and first.endswith("answered at int4")
    assert slow.figures["precision"] == "int4" and slow.figures["precision_asked"] == "fp8"
