"""An endpoint row says what caps the users it sustains: the latency targets, the KV memory or the
engine's cap on running sequences (vLLM's max_num_seqs: 256 on an A100 or a GPU under 70 GiB, 1024 on
larger ones), with the real estimator."""

from __future__ import annotations

import pytest

from gpuscout.advise.rank import rank
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer


def _sustains(gpu: str = "H100-SXM", **kw: object) -> tuple[str, str | None]:
    w = ServeWorkload(model="llama-3.1-8b", concurrency=32, **kw)  # type: ignore[arg-type]
    (rec,) = rank(w, [offer("persec", gpu, price=2.0)], now=NOW)
    assert rec.estimate is not None
    return next(x for x in rec.reasons if x.startswith("sustains up to")), rec.estimate.capacity_limit


def test_an_8b_on_an_a100_without_targets_is_capped_by_the_engine_not_by_memory() -> None:
    # 80 GB holds ~60 GB of KV cache: ~460 sequences of 1.28k tokens, more than the 256 slots vLLM V1
    # gives itself on an A100
    text, limit = _sustains("A100-SXM4-80GB", latency_targets="none")
    assert limit == "engine cap" and "256 users" in text
    assert "the engine's cap on running sequences" in text and "KV cache" not in text


def test_an_8b_on_an_h100_without_targets_fills_memory_below_the_engine_cap() -> None:
    # on a GPU of 70 GiB or more (not an A100) vLLM V1 allows 1024 sequences: the ~460 the KV cache
    # holds are the limit
    text, limit = _sustains(latency_targets="none")
    assert limit == "KV cache" and "the KV cache full" in text


def test_the_chat_defaults_are_latency_targets_even_when_not_given_explicitly() -> None:
    # at 256 sequences a step takes well over the chat default's 50 ms per token
    text, limit = _sustains()
    assert limit == "latency targets" and "within the latency targets" in text


def test_a_long_context_fills_memory_first() -> None:
    text, limit = _sustains(latency_targets="none", prompt_tokens=32_000, output_tokens=1000)
    assert limit == "KV cache" and "the KV cache full" in text


def test_users_beyond_the_engine_cap_queue_and_add_no_throughput() -> None:
    # 300 users on one H100 whose vLLM runs at most 64 sequences: the replica serves what 64 running
    # sequences produce (the others wait in the queue), so the tokens a month and their price follow that
    w = ServeWorkload(
        model="llama-3.1-8b", concurrency=300, engine="vllm --max-num-seqs 64", latency_targets="none"
    )
    (rec,) = rank(w, [offer("persec", "H100-SXM", price=2.0)], now=NOW)
    s = rec.estimate
    assert s is not None and s.batch_per_replica == 300 and s.capacity_limit == "engine cap"
    running = 64 * (s.per_user_tokens_per_s or 0.0)  # what 64 decoding sequences make, at most
    assert s.throughput is not None and s.throughput <= running
    assert s.throughput == pytest.approx(s.capacity_tokens_per_s, rel=0.05)
    assert rec.unit_costs is not None and rec.cost is not None
    month_tokens = s.throughput * 24 * 3600 * 30
    assert rec.unit_costs.per_million_output_tokens == pytest.approx(
        rec.cost.total / (month_tokens / 1e6), rel=0.01
    )
    # the KV cache held is the running sequences', not the queued users'
    fits = next(x for x in rec.reasons if x.startswith("fits"))
    # by hand: 64 staggered requests of 1,024 + 256 tokens, vLLM's cache growing as they generate, hold
    # 1,024 + 256 x 65 / 128 = 1,154 tokens each: 64 x 1,154 x 128 KiB = 9.0 GiB (10 GiB at whole length)
    assert "KV 9.0 GiB" in fits, fits


def test_a_prompt_fed_engine_says_the_prefill_budget_caps_it() -> None:
    # llama.cpp, 4k-token prompts and 100 output tokens on an H100: the 512-token batch feeds ~13 running
    # sequences (estimate.serving.prompt_fed_cap), far below the memory's room
    w = ServeWorkload(
        model="llama-3.1-8b", concurrency=32, engine="llama.cpp", prompt_tokens=4000, output_tokens=100,
        latency_targets="none",
    )  # fmt: skip
    (rec,) = rank(w, [offer("persec", "H100-SXM", price=2.0)], now=NOW)
    assert rec.estimate is not None and rec.estimate.capacity_limit == "prefill budget"
    text = next(x for x in rec.reasons if x.startswith("sustains up to"))
    assert "the prompts its per-step prefill budget feeds" in text
