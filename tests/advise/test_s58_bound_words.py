"""A row with no decode step timed (a training row) has no bound to name: its JSON said "?-bound"
(a renter pass, stop 58)."""

from __future__ import annotations

from gpuscout.advise.types import EstimateSummary


def _summary(bound: str | None = None, prefill_share: float | None = None) -> EstimateSummary:
    return EstimateSummary(
        throughput=1.0,
        throughput_unit="train tok/s",
        per_user_tokens_per_s=None,
        ttft_ms=None,
        tpot_ms=None,
        memory_per_gpu_gb=1.0,
        memory_capacity_gb=80.0,
        weights_gb=1.0,
        kv_cache_gb=0.0,
        batch_per_replica=None,
        max_batch_per_replica=None,
        bound=bound,
        prefill_share=prefill_share,
    )


def test_no_bound_says_nothing() -> None:
    assert _summary().bound_words == ""
    assert _summary(prefill_share=0.8).bound_words == "prefill-bound: prompts take 80% of each token's time"


def test_a_bound_is_named() -> None:
    assert _summary(bound="memory").bound_words == "memory-bound"
    assert _summary(bound="memory", prefill_share=0.8).bound_words == (
        "prefill-bound: prompts take 80% of each token's time; decode memory-bound"
    )
