"""A load that queues behind the batch cap names the cap as its binding limit only where more room would
pay (serving.CAP_MATTERS): 32k-token prompts are bound by prefill compute whatever the KV room."""

from __future__ import annotations

from gpuscout import estimate
from gpuscout.estimate.serving import CAP_MATTERS

LONG = {"context_in": 32000, "context_out": 100}


def test_prefill_heavy_load_capped_by_kv_memory_is_bound_by_prefill() -> None:
    # Llama-3.1-8B bf16 on an L40S holds 6 such sequences (128 KiB/token x 32,100 tokens = 3.9 GiB each);
    # each request's prefill (32k x 2 x 8 GFLOP = 0.51 PFLOP) takes ~4 s of the ~4.5 s it keeps the card busy
    est = estimate("llama-3.1-8b", "L40S", concurrency=64, **LONG)
    assert est.batch == est.max_batch == 6
    assert est.queue_ms > 0
    assert est.binding_limit == "prefill"
    queued = [w for w in est.warnings if "the rest queue" in w]
    assert len(queued) == 1
    assert "(KV-cache memory)" in queued[0] and "prefill (prompt processing) sets the pace" in queued[0]


def test_the_premise_twice_the_kv_room_adds_little_to_a_prefill_bound_load() -> None:
    # an FP8 cache holds twice the sequences: the requests/s barely move, so memory was not what bound it
    bf16 = estimate("llama-3.1-8b", "H100", concurrency=64, **LONG)
    fp8 = estimate("llama-3.1-8b", "H100", concurrency=64, kv_dtype="fp8", **LONG)
    assert fp8.max_batch >= 2 * bf16.max_batch - 1
    assert fp8.requests_per_s < (1 + CAP_MATTERS) * bf16.requests_per_s
    assert bf16.binding_limit == "prefill"


def test_a_decode_heavy_load_capped_by_kv_memory_stays_bound_by_it() -> None:
    # 4k prompts, 512 output tokens on an L4 (5-6 sequences fit): twice the room nearly doubles requests/s
    kw = {"concurrency": 100, "context_in": 4096, "context_out": 512}
    bf16 = estimate("llama-3.1-8b", "L4", **kw)
    fp8 = estimate("llama-3.1-8b", "L4", kv_dtype="fp8", **kw)
    assert bf16.binding_limit == "kv_cache"
    assert fp8.requests_per_s > (1 + CAP_MATTERS) * bf16.requests_per_s
    queued = [w for w in bf16.warnings if "the rest queue" in w]
    assert queued and "sets the pace" not in queued[0]


def test_a_burst_behind_the_cap_is_judged_alike() -> None:
    # 200 long prompts submitted at once: waves of what fits, bound by their prefill
    est = estimate("llama-3.1-8b", "L40S", request_rate=float("inf"), num_requests=200, **LONG)
    assert est.queue_ms > 0
    assert est.binding_limit == "prefill"
