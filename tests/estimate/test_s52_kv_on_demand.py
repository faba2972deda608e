"""vLLM and SGLang allocate KV blocks as a sequence grows (a request is admitted for its prompt; a full
cache preempts one): a steady flow of staggered requests holds prompt + output / 2 tokens each on
average, so more of them run than fit at full length. TensorRT-LLM (GUARANTEED_NO_EVICT) reserves each
request's whole length; requests that move in waves (a burst) all reach full length together."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.api import steady_context

KW = {"context_in": 1024, "context_out": 1024}


def test_staggered_requests_hold_their_prompt_and_part_of_their_output() -> None:
    # B requests spread evenly through 1,024 output tokens have made 0, 1024/B, ..., 1024 of them
    assert steady_context(1024, 1024) == 1024 + 512  # a large batch: half the output each
    assert steady_context(1024, 1024, 1) == 2048  # alone, it reaches its whole length
    assert steady_context(1024, 1024, 3) == 1024 + 683  # (0 + 341 + 683 + 1024) / 3, rounded up
    assert steady_context(1024, 1024, 1023) == 1024 + 513


def test_vllm_runs_what_fits_at_the_length_staggered_requests_hold() -> None:
    # Llama-3.1-8B bf16 on an H100: ~58 GB for KV at 128 KiB/token = ~445k tokens: 217 sequences of
    # 2,048 tokens; staggered, B of them hold 1,024 B + 1,024 (B + 1) / 2 tokens: ~289 (the engine's cap
    # on an 80 GB card is 1024 sequences)
    e = estimate("llama-3.1-8b", "H100-SXM", concurrency=400, **KW)
    assert e.max_batch == 217  # at full length, as stated
    assert 280 <= e.batch <= 292 and e.queue_ms > 0
    # the cache the running batch holds, at what each holds, fits the GPU
    held = e.batch * steady_context(1024, 1024, e.batch) * 131_072 / 1e9
    assert e.memory.kv_cache_gb == pytest.approx(held, rel=0.01)
    assert e.memory.total_gb <= e.memory.usable_gb + 1e-6
    # one more would not (vLLM's cache comes in 16-token blocks)
    more = -(-steady_context(1024, 1024, e.batch + 1) // 16) * 16 * (e.batch + 1) * 131_072 / 1e9
    assert e.memory.total_gb - e.memory.kv_cache_gb + more > e.memory.usable_gb - 0.02


def test_256_users_all_run_at_once_on_vllm() -> None:
    e = estimate("llama-3.1-8b", "H100-SXM", concurrency=256, **KW)
    assert e.batch == 256 and e.queue_ms == 0.0  # they queued behind a full-length cap of 217
    assert e.ttft_ms < 1000.0


def test_tensorrt_llm_reserves_the_whole_length() -> None:
    e = estimate("llama-3.1-8b", "H100-SXM", concurrency=2000, engine="tensorrt-llm", **KW)
    assert e.batch == e.max_batch


def test_a_burst_reaches_full_length_together() -> None:
    e = estimate("llama-3.1-8b", "H100-SXM", request_rate=float("inf"), num_requests=1000, **KW)
    assert e.batch == e.max_batch == 217


def test_max_load_saturates_the_steady_cap() -> None:
    most = estimate("llama-3.1-8b", "H100-SXM", batch="max", **KW)
    many = estimate("llama-3.1-8b", "H100-SXM", concurrency=400, **KW)
    assert most.batch == many.batch > most.max_batch


def test_the_estimate_states_the_most_it_runs_and_why() -> None:
    e = estimate("llama-3.1-8b", "H100-SXM", concurrency=4, **KW)
    assert e.kv_grows and e.max_batch == 217
    assert e.max_running == estimate("llama-3.1-8b", "H100-SXM", concurrency=400, **KW).batch
    assert e.max_running_limit == "kv_cache"
    trt = estimate("llama-3.1-8b", "H100-SXM", concurrency=4, engine="tensorrt-llm", **KW)
    assert not trt.kv_grows and trt.max_running <= trt.max_batch


def test_varied_output_lengths_hold_their_whole_mean_length() -> None:
    # exponential (ShareGPT-like) lengths: a running request is caught, length-biased, about one mean
    # output into its own, so staggering saves nothing on average
    from gpuscout.estimate.engines import resolve_engine
    from gpuscout.estimate.serving import Load, holds_growing_cache

    vllm = resolve_engine("vllm")
    assert holds_growing_cache(vllm, Load("concurrency", 400.0), 1024)
    assert not holds_growing_cache(vllm, Load("concurrency", 400.0, varied_output=True), 1024)
    assert not holds_growing_cache(vllm, Load("burst", 400.0), 1024)
    assert not holds_growing_cache(resolve_engine("tensorrt-llm"), Load("concurrency", 400.0), 1024)


def test_max_is_what_runs_without_queueing_under_a_token_budget() -> None:
    # 0.8 of the memory and a 2,048-token budget: the budget holds 2048 x 200 / 1,200 = 341 in a steady
    # flow, fewer than the cache would; "max" runs those, with no queue
    e = estimate(
        "llama-3.1-8b", "H100-SXM", engine="vllm --gpu-memory-utilization 0.8 --max-num-batched-tokens 2048",
        batch="max", context_in=1000, context_out=200,
    )  # fmt: skip
    assert e.batch == e.max_running == 341 and e.max_running_limit == "prefill"
    assert e.queue_ms == 0.0 and not any("the rest queue" in w for w in e.warnings)
