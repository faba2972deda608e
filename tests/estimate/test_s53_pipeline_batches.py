"""A layer split (pipeline parallelism) on vLLM / SGLang / TensorRT-LLM keeps one batch in flight per GPU
(serving.serve_pipelined): G interleaved batches of B / G, each stepping through every GPU, all GPUs busy.

Hand check, Llama-3.1-70B bf16 on 4x H100, 64 users of 512 + 512 tokens: one batch of 64 visits the GPUs
in turn (a step reads all 141 GB through one GPU's bandwidth plus the KV of 64 sequences); four batches of
16 each read the weights again but only their own KV, so the gain is the KV and compute share of the step:
more throughput, not 4x (weights-bound decode). One request gains nothing (its batch is alone)."""

from __future__ import annotations

import pytest

from gpuscout import estimate

CHAT = {"context_in": 512, "context_out": 512}


def _step_parts(est: estimate.api.Estimate) -> str:
    return " ".join(w for w in est.warnings if "pipeline parallelism" in w)


def test_fewer_users_than_gpus_each_ride_alone() -> None:
    # 3 users on a 4-GPU pipeline: three batches of one, each as fast as a lone request
    one = estimate("llama-3.1-70b", "H100", gpus=4, parallel="layer", concurrency=1, **CHAT)
    three = estimate("llama-3.1-70b", "H100", gpus=4, parallel="layer", concurrency=3, **CHAT)
    assert three.tpot_ms == pytest.approx(one.tpot_ms, rel=0.02)
    assert three.requests_per_s == pytest.approx(3 * one.requests_per_s, rel=0.03)
    assert "up to 4 batches in flight" in _step_parts(one)


def test_batches_in_flight_raise_throughput_but_not_to_tensor_parallel_when_weights_bound() -> None:
    layer = estimate("llama-3.1-70b", "H100", gpus=4, parallel="layer", concurrency=64, **CHAT)
    fewer = estimate("llama-3.1-70b", "H100", gpus=4, parallel="layer", concurrency=16, **CHAT)
    tensor = estimate("llama-3.1-70b", "H100", gpus=4, parallel="tensor", concurrency=64, **CHAT)
    # 4 batches of 16 against 4 of 4: every step still reads all 141 GB of weights (~52 ms at one H100's
    # ~2.7 TB/s), the extra KV of 12 more sequences a batch is ~3 GB (~1 ms): nearly 4x the requests/s
    assert layer.batch == 64
    assert layer.tpot_ms == pytest.approx(fewer.tpot_ms, rel=0.15)
    assert 3.4 < layer.requests_per_s / fewer.requests_per_s <= 4.0
    # tensor parallel reads a quarter of the weights per GPU per step: still far ahead on such a load
    assert layer.output_tokens_per_s_total < 0.6 * tensor.output_tokens_per_s_total


def test_a_prefill_heavy_load_gains_from_every_gpu_working() -> None:
    # each batch in flight has its own token budget: the prompts of 4 batches are processed at once
    kw = {"gpus": 4, "precision": "fp8", "concurrency": 64, "context_in": 2000, "context_out": 200}
    layer = estimate("llama-3.1-70b", "H100", parallel="layer", **kw)
    tensor = estimate("llama-3.1-70b", "H100", parallel="tensor", **kw)
    assert layer.requests_per_s > 0.6 * tensor.requests_per_s


def test_pcie_cards_without_peer_access_prefer_the_pipeline() -> None:
    # 4x RTX 4090: tensor parallel all-reduces are staged through host memory; the pipeline passes one
    # activation vector per hop
    kw = {"gpus": 4, "precision": "awq", "concurrency": 64, "context_in": 1000, "context_out": 500}
    layer = estimate("llama-3.1-70b", "RTX 4090", parallel="layer", **kw)
    tensor = estimate("llama-3.1-70b", "RTX 4090", parallel="tensor", **kw)
    assert layer.output_tokens_per_s_total > tensor.output_tokens_per_s_total


def test_llama_cpp_keeps_one_batch() -> None:
    kw = {"gpus": 4, "precision": "q4_k_m", "engine": "llama.cpp", "context_in": 1000, "context_out": 500}
    at16 = estimate("llama-3.1-70b", "RTX 4090", parallel="layer", concurrency=16, **kw)
    at4 = estimate("llama-3.1-70b", "RTX 4090", parallel="layer", concurrency=4, **kw)
    # no batches in flight: 16 users share one batch's steps, not four batches of 4
    assert at16.requests_per_s < 3.0 * at4.requests_per_s
    assert "batches in flight" not in _step_parts(at16)


def test_no_more_batches_than_the_memory_holds_sequences() -> None:
    # 405B FP8 on 8 H100s at 126k tokens: the KV cache holds 2 sequences; 8 clients run 2, not 8
    kw = {"gpus": 8, "parallel": "layer", "precision": "fp8", "context_in": 125_000, "context_out": 1_000}
    two = estimate("llama-3.1-405b", "H100", concurrency=2, **kw)
    eight = estimate("llama-3.1-405b", "H100", concurrency=8, **kw)
    assert two.max_batch == 2 and eight.batch == 2
    assert eight.requests_per_s == pytest.approx(two.requests_per_s, rel=0.01)
    assert eight.queue_ms > 0
    rate = estimate("llama-3.1-405b", "H100", request_rate=1, **kw)
    # (0.0044 until stop 76: its FP8 GEMMs now prefill the 125k-token prompts at the measured 1.56x the
    # bf16 rate, not 2.07x)
    assert any("capacity of 0.0041 requests/s" in w for w in rate.warnings), rate.warnings


def test_a_cap_that_does_not_divide_by_the_gpus_is_dealt_out_whole() -> None:
    # 70B bf16 at 91k tokens on 4 H100s holds 5 sequences: batches of 2, 1, 1, 1 run all 5
    kw = {"gpus": 4, "parallel": "layer", "context_in": 90_000, "context_out": 1_000}
    est = estimate("llama-3.1-70b", "H100", batch="max", **kw)
    assert est.max_running == 5 and est.batch == 5
    assert not any("the rest queue" in w for w in est.warnings)
