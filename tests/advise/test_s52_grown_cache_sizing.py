"""The advisor sizes a vLLM endpoint by the most sequences one replica runs (``Estimate.max_running``),
not by what fits at whole length: 256 users of 1k in / 1k out fit one H100 under vLLM, whose cache grows
as requests generate (295 staggered, 222 at whole length); it rented two."""

from __future__ import annotations

from gpuscout import estimate
from gpuscout.advise.rank import rank
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer

KW = {"prompt_tokens": 1024, "output_tokens": 1024, "latency_targets": "none"}


def test_256_users_fit_one_h100() -> None:
    e = estimate("llama-3.1-8b", "H100-SXM", concurrency=256, context_in=1024, context_out=1024)
    assert e.batch == 256 and e.queue_ms == 0.0 and e.max_batch < 256 <= e.max_running
    w = ServeWorkload(model="llama-3.1-8b", concurrency=256, engine="vllm", **KW)
    (row,) = rank(w, [offer("persec", "H100-SXM", price=2.0)], now=NOW)
    assert row.config.instances == 1, row.reasons
    s = row.estimate
    assert s is not None and s.max_batch_per_replica == e.max_running
    assert s.capacity_limit == "KV cache"


def test_more_than_it_runs_takes_two() -> None:
    most = estimate("llama-3.1-8b", "H100-SXM", batch="max", context_in=1024, context_out=1024).max_running
    w = ServeWorkload(model="llama-3.1-8b", concurrency=most + 1, engine="vllm", **KW)
    (row,) = rank(w, [offer("persec", "H100-SXM", price=2.0)], now=NOW)
    assert row.config.instances == 2
