"""A run without a prompt (``context_in=0``, llama-bench's ``tg`` tests, decode-only calibration rows) is
accepted, and gives no prefill figure.

Regression (renter review, stop 48): ``gpuscout estimate llama-3.1-8b --gpu H100 --prompt 0`` showed
"prefill (one prompt) 136 tokens/s": the prefill speed of a one-token prompt that was never asked for.
"""

from __future__ import annotations

from gpuscout.estimate.api import estimate


def test_no_prompt_gives_no_prefill_speed() -> None:
    est = estimate("llama-3.1-8b", "H100", context_in=0, context_out=128)
    assert est.fits and est.prefill_tokens_per_s == 0.0
    assert est.decode_tokens_per_s > 0 and est.ttft_ms > 0  # the first generated token still takes a step
    one = estimate("llama-3.1-8b", "H100", context_in=1, context_out=128)
    assert one.prefill_tokens_per_s > 0
