"""llama.cpp today and as its 2023-2024 builds ran: the llama-bench tables of January-May 2024 pay
~2.6 ms of fixed cost per token of an 8B model and no flash attention; today's builds run flash attention
by default and less fixed cost. Both are read from the engine name ("llama.cpp" vs "llama.cpp 2024")."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.estimate.physics_specs import LLAMA3_8B

TODAY = resolve_engine("llama.cpp")
PAST = resolve_engine("llama.cpp 2024")


@pytest.mark.parametrize(
    ("name", "era"),
    [
        ("llama.cpp", ""),
        ("ollama", ""),
        ("llama.cpp b4000", ""),  # a build number is not a year
        ("llama.cpp 2024", "2024"),
        ("llama.cpp (2023 build)", "2024"),
        ("llama-server 2024", "2024"),
    ],
)
def test_the_era_is_read_from_the_engine_name(name: str, era: str) -> None:
    assert resolve_engine(name).era == era


def test_the_past_era_keeps_its_fitted_costs_and_no_flash_attention() -> None:
    assert PAST.step_overhead_us > 2 * TODAY.step_overhead_us
    assert PAST.layer_overhead_us > 2 * TODAY.layer_overhead_us
    assert PAST.attn_score_bytes > 0.0 and TODAY.attn_score_bytes == 0.0
    # the kernels' efficiencies are the same code in both: only the era's overrides differ
    assert PAST.bandwidth_efficiency == TODAY.bandwidth_efficiency
    assert PAST.compute_efficiency == TODAY.compute_efficiency


def test_batch_one_decode_differs_by_the_fixed_costs_alone() -> None:
    """Same weights, same bandwidth: each token of the 2024 build takes exactly the difference of the
    per-token and per-layer costs longer (32 layers for Llama-3-8B)."""
    kw = dict(gpu="RTX4090", precision="q4_k_m", context_in=0, context_out=128)
    today = estimate("llama-3-8b", engine="llama.cpp", **kw)  # type: ignore[arg-type]
    past = estimate("llama-3-8b", engine="llama.cpp 2024", **kw)  # type: ignore[arg-type]
    extra_us = (PAST.step_overhead_us - TODAY.step_overhead_us) + 32 * (
        PAST.layer_overhead_us - TODAY.layer_overhead_us
    )
    extra = 1e6 / past.decode_tokens_per_s - 1e6 / today.decode_tokens_per_s
    assert extra == pytest.approx(extra_us, rel=1e-6)
    assert today.decode_tokens_per_s > past.decode_tokens_per_s


def test_without_flash_attention_a_prompt_pays_its_score_traffic() -> None:
    """Prefill of 4,096 tokens on one GPU: the 2024 build writes and reads back every causal score
    (32 heads x 32 layers x 4096^2 / 2 scores x its bytes per score) at the achieved bandwidth, and pays
    its fixed costs (per layer in each of the 8 micro-batches of 512 tokens, per step once); the GEMMs
    are the same work."""
    kw = dict(gpu="RTX4090", precision="q4_k_m", context_in=4096, context_out=1)
    today = estimate("llama-3-8b", engine="llama.cpp", **kw)  # type: ignore[arg-type]
    past = estimate("llama-3-8b", engine="llama.cpp 2024", **kw)  # type: ignore[arg-type]
    scores = 32 * 32 * 4096 * 4096 / 2
    bw = PAST.achieved_bandwidth_gbps("gguf-quant", resolve_gpu("RTX4090").bandwidth_gbps) * 1e9
    fixed_us = 8 * 32 * (PAST.layer_overhead_us - TODAY.layer_overhead_us) + (
        PAST.step_overhead_us - TODAY.step_overhead_us
    )
    extra_s = 4096 / past.prefill_tokens_per_s - 4096 / today.prefill_tokens_per_s
    assert extra_s == pytest.approx(scores * PAST.attn_score_bytes / bw + fixed_us * 1e-6, rel=1e-6)
    # a prompt riding in decode steps (the serving path of the TTFT) pays it too
    assert past.ttft_ms > today.ttft_ms + 0.8 * extra_s * 1000


def test_flash_attention_frees_the_score_buffer() -> None:
    """Llama-3-8B F16 with an 8,192-token context on a 16 GiB card: 15.0 GB of weights on the GPU (the
    token embedding stays in host RAM), 1.07 GB of KV cache, 0.4 GB of CUDA context, and a compute
    buffer. The 2024 build's buffer holds a 512 x 8192 fp32 score matrix per head (32 x 0.54 GB / 32:
    0.54 GB) and tips it over; today's flash attention keeps the scores on chip and it fits."""
    card = dataclasses.replace(resolve_gpu("RTX 4090"), name="test-16GB", memory_gb=16)
    kw = dict(precision="f16", context_in=0, context_out=8192)
    today = estimate(LLAMA3_8B, card, engine="llama.cpp", **kw)  # type: ignore[arg-type]
    past = estimate(LLAMA3_8B, card, engine="llama.cpp 2024", **kw)  # type: ignore[arg-type]
    assert today.fits and not past.fits
    score_buffer_gb = 32 * 512 * 8192 * 4 / 1e9
    freed = past.memory.activations_gb - today.memory.activations_gb
    assert freed == pytest.approx(score_buffer_gb, rel=1e-6)


def test_an_moe_layer_pays_the_kernels_around_its_experts() -> None:
    """Qwen3-30B-A3B has 48 MoE layers: under llama.cpp each pays the small kernels around the expert
    matmuls (router, top-k, gather, weighted sum) on top of a dense layer's, at the physics prior every
    CUDA-graph engine without MoE rows carries, and the estimate says the figure is not calibrated."""
    kw = dict(gpu="RTX4090", precision="q4_k_m", context_in=0, context_out=128)
    with_moe = estimate("qwen3-30b-a3b", engine=TODAY, **kw)  # type: ignore[arg-type]
    without = estimate("qwen3-30b-a3b", engine=dataclasses.replace(TODAY, moe_layer_overhead_us=0.0), **kw)  # type: ignore[arg-type]
    extra_us = 1e6 / with_moe.decode_tokens_per_s - 1e6 / without.decode_tokens_per_s
    assert TODAY.moe_layer_overhead_us == 50.0
    assert extra_us == pytest.approx(48 * TODAY.moe_layer_overhead_us, rel=1e-6)
    assert "moe_layer_overhead_us" in with_moe.assumptions["uncalibrated"]
