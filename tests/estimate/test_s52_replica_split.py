"""Replicas share a load of whole requests as whole requests: C clients put C // R on every replica and one
more on C mod R of them. An even split rounded each replica up to a whole client, so one client on 8
replicas was timed as 8 (8x the throughput it can produce, and the load reported as 8 in flight)."""

from __future__ import annotations

import pytest

from gpuscout import estimate

KW = {"context_in": 1024, "context_out": 1024}


def _replicas(**kw: object):  # type: ignore[no-untyped-def]
    return estimate("llama-3.1-8b", "H100-SXM", gpus=8, parallel="replicas", **KW, **kw)  # type: ignore[arg-type]


def _one(**kw: object):  # type: ignore[no-untyped-def]
    return estimate("llama-3.1-8b", "H100-SXM", gpus=1, **KW, **kw)  # type: ignore[arg-type]


def test_one_client_keeps_one_replica_busy_and_seven_idle() -> None:
    eight, one = _replicas(concurrency=1), _one(concurrency=1)
    assert eight.concurrency == pytest.approx(1.0)
    assert eight.output_tokens_per_s_total == pytest.approx(one.output_tokens_per_s_total, rel=1e-9)
    assert eight.requests_per_s == pytest.approx(one.requests_per_s, rel=1e-9)
    assert eight.ttft_ms == pytest.approx(one.ttft_ms, rel=1e-9)
    assert eight.tpot_ms == pytest.approx(one.tpot_ms, rel=1e-9)


def test_nine_clients_run_two_on_one_replica_and_one_on_seven() -> None:
    nine, a, b = _replicas(concurrency=9), _one(concurrency=1), _one(concurrency=2)
    assert nine.concurrency == pytest.approx(9.0)
    assert nine.batch == 2  # the busiest replica's
    assert nine.output_tokens_per_s_total == pytest.approx(
        7 * a.output_tokens_per_s_total + b.output_tokens_per_s_total, rel=1e-9
    )
    x_a, x_b = 7 * a.requests_per_s, b.requests_per_s
    assert nine.requests_per_s == pytest.approx(x_a + x_b, rel=1e-9)
    # the mean over the requests served: the two-client replica's share of them
    assert nine.ttft_ms == pytest.approx((x_a * a.ttft_ms + x_b * b.ttft_ms) / (x_a + x_b), rel=1e-9)
    assert nine.tpot_ms == pytest.approx((x_a * a.tpot_ms + x_b * b.tpot_ms) / (x_a + x_b), rel=1e-9)


def test_clients_that_divide_evenly_are_timed_as_before() -> None:
    sixteen, two = _replicas(concurrency=16), _one(concurrency=2)
    assert sixteen.output_tokens_per_s_total == pytest.approx(8 * two.output_tokens_per_s_total, rel=1e-9)
    assert sixteen.ttft_ms == pytest.approx(two.ttft_ms, rel=1e-9)


def test_a_request_rate_still_splits_evenly() -> None:
    rate = _replicas(request_rate=2.0)
    assert rate.requests_per_s == pytest.approx(2.0)
    assert rate.concurrency == pytest.approx(8 * _one(request_rate=0.25).concurrency, rel=1e-9)


def test_a_burst_of_three_runs_on_three_replicas() -> None:
    burst = _replicas(request_rate=float("inf"), num_requests=3)
    alone = _one(request_rate=float("inf"), num_requests=1)
    assert burst.output_tokens_per_s_total == pytest.approx(3 * alone.output_tokens_per_s_total, rel=1e-9)


def test_a_burst_smaller_than_the_clients_deals_out_its_requests() -> None:
    # a client allowed 16 in flight with 4 requests sends 4: the same run as 4 clients with 4 requests
    wide, four = _replicas(concurrency=16, num_requests=4), _replicas(concurrency=4, num_requests=4)
    assert wide.concurrency == pytest.approx(4.0)
    assert wide.output_tokens_per_s_total == pytest.approx(four.output_tokens_per_s_total, rel=1e-9)
