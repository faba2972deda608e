"""Speed physics: roofline decode, MoE expert reads, TP all-reduce, layer split, prefill, serving."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.parallel import allreduce_seconds, gpu_link
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision
from gpuscout.estimate.throughput import Setup, decode_step, prefill_seconds
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.estimate.physics_specs import DEEPSEEK_V3, LLAMA2_7B, LLAMA3_8B, LLAMA3_70B


def setup(
    spec=LLAMA3_8B, gpu="H100 SXM", precision="bf16", engine="vllm", gpus=1, parallel="tensor"
) -> Setup:
    fmt = resolve_precision(precision)
    return Setup(
        spec, resolve_gpu(gpu), fmt, resolve_kv_dtype("bf16"), resolve_engine(engine), gpus, parallel
    )


def test_batch1_decode_is_memory_bound_and_below_roofline() -> None:
    st = setup()
    step = decode_step(st, 1, 512)
    assert step.bound == "memory"
    roofline = 16.06e9 / (3350e9)  # all bf16 weights at peak bandwidth
    assert step.total > roofline
    assert step.total < 3 * roofline


def test_large_batch_turns_compute_bound() -> None:
    st = setup()
    assert decode_step(st, 1, 512).bound == "memory"
    assert decode_step(st, 1024, 64).bound == "compute"  # short contexts: KV reads stay small


def test_aggregate_throughput_grows_with_batch_per_sequence_falls() -> None:
    one = estimate(LLAMA3_8B, "H100 SXM", batch=1, context_in=128, context_out=128)
    many = estimate(LLAMA3_8B, "H100 SXM", batch=64, context_in=128, context_out=128)
    assert many.output_tokens_per_s_total > 10 * one.output_tokens_per_s_total
    assert many.decode_tokens_per_s < one.decode_tokens_per_s


def test_moe_reads_active_experts_at_batch1_and_more_with_batch() -> None:
    c = model_consts(DEEPSEEK_V3)
    assert c.expected_experts_read(1) == pytest.approx(8)
    assert 8 < c.expected_experts_read(16) < 256
    assert c.expected_experts_read(10_000) == pytest.approx(256, rel=1e-3)
    assert c.body_read(1) == pytest.approx(c.active_body)


def test_quantisation_speeds_up_memory_bound_decode() -> None:
    bf16 = estimate(LLAMA3_8B, "RTX 4090", precision="bf16", context_in=0, context_out=256)
    int4 = estimate(LLAMA3_8B, "RTX 4090", precision="int4", context_in=0, context_out=256)
    assert int4.decode_tokens_per_s > 1.8 * bf16.decode_tokens_per_s


def test_tensor_parallel_speeds_up_decode_but_pays_all_reduce() -> None:
    one = decode_step(setup(LLAMA3_70B, "H100 SXM", "fp8", "tensorrt-llm"), 1, 512)
    two = decode_step(setup(LLAMA3_70B, "H100 SXM", "fp8", "tensorrt-llm", gpus=2), 1, 512)
    assert two.total < one.total
    assert two.comm > 0
    assert two.total > one.total / 2  # never a perfect 2x


def test_nvlink_all_reduce_cheaper_than_pcie() -> None:
    nv = gpu_link(resolve_gpu("H100 SXM"), 4)
    pcie = gpu_link(resolve_gpu("L40S"), 4)
    assert nv.kind == "nvlink" and pcie.kind == "pcie"
    msg = 8192 * 2 * 64
    assert allreduce_seconds(nv, 4, msg) < allreduce_seconds(pcie, 4, msg)
    assert allreduce_seconds(nv, 1, msg) == 0.0


def test_layer_split_gives_no_batch1_speedup() -> None:
    one = decode_step(setup(LLAMA3_8B, "RTX 3090", "q4_k_m", "llama.cpp"), 1, 512)
    four = decode_step(setup(LLAMA3_8B, "RTX 3090", "q4_k_m", "llama.cpp", gpus=4, parallel="layer"), 1, 512)
    assert four.total >= one.total


def test_prefill_is_compute_bound_and_attention_grows_with_context() -> None:
    st = setup(LLAMA3_8B, "H100 SXM", "bf16", "vllm")
    short = 512 / prefill_seconds(st, 512)
    long = 32768 / prefill_seconds(st, 32768)
    assert long < short  # attention FLOPs grow with context
    flops = 2 * 8.03e9 * short
    assert flops < 989.5e12  # below the bf16 peak


def test_more_bandwidth_same_compute_is_faster_decode() -> None:
    base = resolve_gpu("L40S")
    faster = dataclasses.replace(base, bandwidth_gbps=base.bandwidth_gbps * 2)
    a = estimate(LLAMA2_7B, base, context_in=0, context_out=128)
    b = estimate(LLAMA2_7B, faster, context_in=0, context_out=128)
    assert b.decode_tokens_per_s > a.decode_tokens_per_s


def test_ttft_includes_prefill() -> None:
    short = estimate(LLAMA3_8B, "H100 SXM", context_in=128, context_out=1)
    long = estimate(LLAMA3_8B, "H100 SXM", context_in=8191, context_out=1)  # the model's whole window
    # the extra 8063 prompt tokens add their prefill time (the per-request API overhead is in both)
    extra_prefill_ms = 1000 * (8191 / long.prefill_tokens_per_s - 128 / short.prefill_tokens_per_s)
    assert long.ttft_ms - short.ttft_ms == pytest.approx(extra_prefill_ms, rel=0.25)
    assert long.ttft_ms > 3 * short.ttft_ms > 0


def test_llama_cpp_layer_split_pipelines_long_prompts_only() -> None:
    one = setup(LLAMA3_8B, "RTX 3090", "q4_k_m", "llama.cpp")
    four = setup(LLAMA3_8B, "RTX 3090", "q4_k_m", "llama.cpp", gpus=4, parallel="layer")
    # one 512-token micro-batch cannot overlap across GPUs: no gain, hand-offs cost a little
    assert prefill_seconds(four, 512) >= prefill_seconds(one, 512)
    # 2048 tokens = 4 micro-batches flowing through 4 GPUs: (4 + 3) / 4 of one micro-batch each
    assert prefill_seconds(four, 2048) < 0.6 * prefill_seconds(one, 2048)


def test_sliding_window_caps_decode_kv_reads() -> None:
    from tests.estimate.physics_specs import GEMMA2_9B

    st = setup(GEMMA2_9B, "H100 SXM")
    at_8k = decode_step(st, 64, 8192)
    windowed = dataclasses.replace(GEMMA2_9B, layer_types=("sliding",) * 42)
    capped = decode_step(setup(windowed, "H100 SXM"), 64, 8192)
    assert capped.memory < at_8k.memory
