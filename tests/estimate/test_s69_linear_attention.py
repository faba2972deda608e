"""Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5) is modelled (stop 69).

Before, both were refused by name (``knowledge.unmodelled``): a renter asking for Qwen3.5-35B-A3B got no
answer. Now their linear-attention layers have their weights (read in transformers 5.25.0's
``Qwen3NextGatedDeltaNet``), keep no KV cache but a fixed-size state per sequence in the dtype each engine
keeps it in, move that state every decode step, and cost linear (not quadratic) prefill FLOPs; the engines
whose source shows them loading these models run them, from the release that first did, and the others
are refused with the reason. Every figure below is worked by hand from the config.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate import estimate
from gpuscout.estimate.kv_cache import (
    kv_bytes_per_token,
    kv_read_bytes_per_step,
    kv_shape,
    layer_cached_tokens,
    linear_state_bytes,
    linear_state_dtypes,
    linear_state_step_bytes,
    sequence_cache_bytes,
    vllm_gdn_checkpoint_tokens,
    vllm_hybrid_pages,
)
from gpuscout.estimate.precision import resolve_kv_dtype
from gpuscout.estimate.throughput import _prefill_attention_flops, decode_step
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.layout import model_layout
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params
from tests.estimate.setups import make_setup

NEXT = "qwen3-next-80b-a3b"
Q35 = "qwen3.5-35b-a3b"
BF16 = resolve_kv_dtype("bf16")
FP8 = resolve_kv_dtype("fp8")


def test_every_fourth_layer_attends_the_others_are_linear() -> None:
    spec = resolve_model(NEXT)
    assert spec.layer_types[:4] == ("linear", "linear", "linear", "full")
    assert (spec.linear_layers, spec.attention_layers) == (36, 12)
    assert (resolve_model(Q35).linear_layers, resolve_model(Q35).attention_layers) == (30, 10)


def test_a_linear_layer_has_the_gated_deltanet_weights() -> None:
    """Per layer: in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824; in_proj_ba 2048 x 64 = 131,072;
    out_proj 4096 x 2048 = 8,388,608; conv1d 8,192 x 4 = 32,768; dt_bias and A_log 64; norm 128:
    33,718,464 a layer."""
    groups = {g.name: g for g in model_layout(resolve_model(NEXT)).groups}
    per_layer = sum(g.size for name, g in groups.items() if name.startswith("linear_attn."))
    assert per_layer == 25_165_824 + 131_072 + 8_388_608 + 32_768 + 64 + 128
    assert groups["linear_attn.out_proj"].count == 36
    # the gated attention's q_proj: 16 heads x 256 x 2 (query and output gate), on the 12 attention layers
    assert (groups["q_proj"].out_features, groups["q_proj"].count) == (8_192, 12)


def test_the_totals_match_the_published_sizes() -> None:
    assert count_params(resolve_model(NEXT)).total / 1e9 == pytest.approx(80, rel=0.005)  # 79.67B
    assert count_params(resolve_model(Q35)).total / 1e9 == pytest.approx(34.66, abs=0.01)


def test_only_the_attention_layers_cache_tokens() -> None:
    """12 layers x 2 (K, V) x 2 KV heads x 256 x 2 B = 24,576 B a token (48 full layers would be 98,304)."""
    spec = resolve_model(NEXT)
    shape = kv_shape(spec)
    assert (shape.full_layers, shape.linear_layers, shape.layers) == (12, 36, 12)
    assert kv_bytes_per_token(spec, BF16) == 24_576
    held = layer_cached_tokens(spec, 1000, 16)
    assert held[:4] == (0, 0, 0, 1008) and sum(held) == 12 * 1008


def test_the_state_is_fixed_per_sequence_and_sized_by_hand() -> None:
    """vLLM, bf16: 36 layers x (32 x 128 x 128 x 2 B + 8,192 x 3 x 2 B) = 39,518,208 B, at any length."""
    spec = resolve_model(NEXT)
    state = linear_state_bytes(spec, BF16, "vllm")
    assert state == 36 * (32 * 128 * 128 * 2 + 8_192 * 3 * 2)
    assert linear_state_bytes(spec, BF16, "vllm", tp=4) == state / 4  # split by value heads
    assert linear_state_step_bytes(spec, BF16, "vllm") == 2 * state  # read and written back
    assert linear_state_bytes(resolve_model("qwen3-30b-a3b"), BF16, "vllm") == 0.0


@pytest.mark.parametrize(
    ("engine", "model", "conv", "recurrent"),
    [
        ("vllm", NEXT, 2.0, 2.0),  # --mamba-cache-dtype auto: the model's dtype
        ("vllm", Q35, 2.0, 4.0),  # the checkpoint's mamba_ssm_dtype float32
        ("sglang", NEXT, 2.0, 4.0),  # conv bf16, --mamba-ssm-dtype default float32
        ("hf-transformers", NEXT, 2.0, 4.0),  # the gated delta rule's state computed and cached in fp32
        ("llama.cpp", NEXT, 4.0, 4.0),  # type_r / type_s f32
    ],
)
def test_each_engine_keeps_the_state_in_its_own_dtype(
    engine: str, model: str, conv: float, recurrent: float
) -> None:
    dtypes = linear_state_dtypes(resolve_model(model), BF16, engine)
    assert (dtypes.conv, dtypes.recurrent) == (conv, recurrent)


def test_an_fp8_kv_cache_leaves_the_state_in_the_model_dtype() -> None:
    spec = resolve_model(NEXT)
    assert linear_state_bytes(spec, FP8, "vllm") == linear_state_bytes(spec, BF16, "vllm")
    assert kv_bytes_per_token(spec, FP8) == kv_bytes_per_token(spec, BF16) / 2


def test_memory_counts_the_state_beside_the_attention_cache() -> None:
    """64 sequences of up to 4,500 tokens, vLLM on one H200: per sequence 12 layers x 2,048 B a token of
    KV in the hybrid cache's blocks of 576 tokens (a multiple of 64, FlashInfer's GDN checkpoint alignment on
    Hopper, whose page in one attention layer holds one linear layer's 1,097,728 B state: 64 x 9), and 36
    states, each padded to that page (1,179,648 B). Less the states, what is left is a whole number of
    blocks of a context between the prompt and the whole sequence."""
    est = estimate(NEXT, "H200", precision="fp8", engine="vllm", batch=64, context_in=4000, context_out=500)
    spec = resolve_model(NEXT)
    assert vllm_hybrid_pages(spec, BF16, 16, checkpoint_tokens=64) == (576, 36 * 576 * 2048)
    per_seq = est.memory.kv_cache_gb * 1e9 / 64
    tokens = (per_seq - 36 * 576 * 2048) / (12 * 2048)
    assert tokens == pytest.approx(round(tokens), abs=1e-6) and round(tokens) % 576 == 0
    assert 4000 <= tokens <= 4500 + 575


def test_vllm_pages_follow_the_gpu_the_shards_and_the_cache_dtype() -> None:
    """Without the checkpoint alignment (an A100: Triton's GDN prefill) blocks of 16 x 34 = 544. TP 8: 2 KV
    heads replicated, one per GPU (1,024 B a token and layer), a state of 137,216 B a layer: blocks of 144.
    An FP8 cache halves the token's page and doubles the block; the state stays 16-bit."""
    spec = resolve_model(NEXT)
    assert vllm_gdn_checkpoint_tokens((9, 0)) == 64 and vllm_gdn_checkpoint_tokens((8, 0)) == 1
    assert vllm_hybrid_pages(spec, BF16, 16) == (544, 36 * 544 * 2048)
    assert vllm_hybrid_pages(spec, BF16, 16, tp=8) == (144, 36 * 144 * 1024)
    assert vllm_hybrid_pages(spec, FP8, 16)[0] == 1072
    assert vllm_hybrid_pages(resolve_model("qwen3-30b-a3b"), BF16, 16) == (16, 0.0)


def test_a_decode_step_moves_the_state_of_every_sequence() -> None:
    """The state is read and written whole every step, whatever the context: a recurrent state kept in
    fp32 rather than bf16 moves 64 x 2 x 36 x 524,288 x 2 B = 4.83 GB more a step at 64 sequences, and the
    step's memory time grows by exactly that over the achieved bandwidth; a longer context adds only the
    attention layers' cache."""
    st = make_setup(NEXT, "H200", precision="fp8")
    wide = dataclasses.replace(st, spec=dataclasses.replace(st.spec, linear_state_dtype="fp32"))
    extra = 64 * 2 * 36 * 32 * 128 * 128 * 2.0
    gap = decode_step(wide, 64, 1000).memory - decode_step(st, 64, 1000).memory
    assert gap * st.achieved_bandwidth == pytest.approx(extra, rel=1e-6)
    longer = decode_step(st, 64, 20_100).memory - decode_step(st, 64, 100).memory
    kv_extra = 64 * (
        kv_read_bytes_per_step(st.spec, BF16, 20_100) - kv_read_bytes_per_step(st.spec, BF16, 100)
    )
    assert longer * st.achieved_bandwidth == pytest.approx(kv_extra, rel=1e-6)


def test_prefill_attention_grows_with_the_square_in_attention_layers_only() -> None:
    """Per prompt token the 36 linear layers cost 32 heads x (6 x 128 x 128 + 2 x 64 x (2 x 128 + 128))
    = 4.72 MFLOP each; the 12 attention layers the causal square."""
    spec = resolve_model(NEXT)
    tokens = 32_768.0
    linear = 36 * 32 * (6 * 128 * 128 + 2 * 64 * 384) * tokens
    square = 2.0 * 16 * 512 * 12 * (tokens * tokens / 2.0)
    assert _prefill_attention_flops(spec, tokens) == pytest.approx(linear + square)


@pytest.mark.parametrize(("engine", "model"), [("tgi", Q35), ("tgi", NEXT), ("tensorrt-llm", NEXT)])
def test_engines_with_no_source_for_it_are_refused_with_the_reason(engine: str, model: str) -> None:
    est = estimate(model, "H200", engine=engine, precision="fp8")
    assert not est.supported and est.decode_tokens_per_s == 0
    assert "Gated DeltaNet" in est.unsupported_reason and "no source" in est.unsupported_reason


def test_tensorrt_llm_seen_running_qwen3_5_is_refused_for_what_was_not_read() -> None:
    est = estimate(Q35, "H100", engine="tensorrt-llm")
    assert not est.supported and "no source" not in est.unsupported_reason
    assert (
        "TensorRT-LLM 1.3.0rc20 as passing" in est.unsupported_reason
        and "was not read" in est.unsupported_reason
    )


@pytest.mark.parametrize(
    ("engine", "model", "runs"),
    [
        ("vllm 0.10.1", NEXT, False),
        ("vllm 0.10.2", NEXT, True),
        ("vllm 0.16.0", Q35, False),
        ("vllm 0.17.0", Q35, True),
        ("sglang 0.5.8", Q35, False),
        ("sglang 0.5.9", Q35, True),
        ("transformers 4.56", NEXT, False),
        ("transformers 4.57.0", NEXT, True),
        ("transformers 5.1.0", Q35, False),
        ("llama.cpp 2024", NEXT, False),
        ("llama.cpp", Q35, True),
    ],
)
def test_a_release_before_the_architecture_is_refused(engine: str, model: str, runs: bool) -> None:
    est = estimate(model, "H200", engine=engine, precision="fp8" if model == NEXT else None)
    assert est.supported is runs, est.unsupported_reason
    if not runs:
        assert "predates this model's architecture" in est.unsupported_reason


def test_it_serves_with_a_speed_on_the_engines_that_run_it() -> None:
    for engine in ("vllm", "sglang", "hf-transformers", "llama.cpp"):
        est = estimate(Q35, "H100", engine=engine, concurrency=8, context_in=2000, context_out=300)
        assert est.supported and est.fits and est.decode_tokens_per_s > 0, engine
        assert "Gated DeltaNet" in est.assumptions["linear_attention"], engine


def test_training_is_refused_not_guessed() -> None:
    with pytest.raises(ConfigurationRejected) as err:
        estimate_training(Q35, "H100", method="qlora")
    assert err.value.field == "model" and "not modelled" in str(err.value)


@pytest.mark.parametrize("gpu", ["TPU-v6e", "Gaudi3", "Trainium2"])
def test_accelerators_whose_kernels_were_not_read_are_refused(gpu: str) -> None:
    """vLLM 0.33.0 picks its gated delta rule kernels for CUDA and ROCm only (``qwen_gdn_linear_attn.py``);
    TPU, Gaudi and Neuron run vLLM through plugins not read."""
    est = estimate(Q35, gpu)
    assert not est.supported and "NVIDIA and AMD GPUs only" in est.unsupported_reason
    assert estimate(Q35, "MI300X").supported


def test_its_speed_says_it_is_uncalibrated() -> None:
    est = estimate(NEXT, "H200", precision="fp8", concurrency=16)
    assert "Gated DeltaNet" in est.assumptions["uncalibrated"]
    assert any("linear-attention layers" in w and "not calibrated" in w for w in est.warnings)
    assert "Gated DeltaNet" not in estimate("qwen3-30b-a3b", "H200", concurrency=16).assumptions.get(
        "uncalibrated", ""
    )


def test_sglang_splits_its_pool_between_states_and_kv() -> None:
    """SGLang 0.5.10 gives the states 0.9 / 1.9 of the cache memory and the KV cache the rest: a
    Qwen3.5-35B-A3B sequence's state (30 x (524,288 x 4 + 24,576 x 2) B = 64.4 MB, fp32 by default) takes
    64.4 x 1.9 / 0.9 = 135.9 MB of the whole where its 2,500 tokens of KV (51.2 MB) would take 97.3 MB."""
    spec = resolve_model(Q35)
    state = linear_state_bytes(spec, BF16, "sglang")
    assert state == 30 * (524_288 * 4 + 24_576 * 2)
    assert sequence_cache_bytes("sglang", 51.2e6, state) == pytest.approx(state * 1.9 / 0.9)
    assert sequence_cache_bytes("sglang", 80e6, state) == pytest.approx(80e6 * 1.9)  # the KV pool binds
    assert sequence_cache_bytes("vllm", 51.2e6, state) == 51.2e6 + state  # one pool
    est = estimate(Q35, "H200", engine="sglang", batch=4, context_in=2000, context_out=500)
    assert est.memory.kv_cache_gb * 1e9 == pytest.approx(4 * state * 1.9 / 0.9, rel=1e-6)


def test_the_allocation_assumption_says_how_states_are_kept() -> None:
    vllm = estimate(NEXT, "H200", precision="fp8", engine="vllm", concurrency=4)
    assert "enlarged to 576 tokens" in vllm.assumptions["kv_allocation"]  # Hopper: multiples of 64
    a100 = estimate(NEXT, "A100-80GB", gpus=2, engine="vllm", concurrency=4)
    assert "enlarged to 544 tokens" in a100.assumptions["kv_allocation"]
    sglang = estimate(NEXT, "H200", precision="fp8", engine="sglang", concurrency=4)
    assert "pool of their own, 0.9 : 1" in sglang.assumptions["kv_allocation"]
    assert "linear" not in estimate("qwen3-30b-a3b", "H200", concurrency=4).assumptions["kv_allocation"]


def test_hf_transformers_says_which_kernels_it_is_timed_with() -> None:
    hf = estimate(Q35, "H100", engine="hf-transformers", concurrency=4)
    assert any("flash-linear-attention" in w and "PyTorch loop" in w for w in hf.warnings)
    assert not any("flash-linear-attention" in w for w in estimate(Q35, "H100", concurrency=4).warnings)
