"""What the engines refuse to start, and measurements no setup can produce.

* Tensor parallelism needs whole attention heads per rank: vLLM, SGLang, TensorRT-LLM, TGI and
  gpt-fast refuse a TP degree that does not divide ``num_attention_heads``; vLLM and SGLang shard the
  KV heads below TP = ``num_key_value_heads`` (they must divide) and copy them above it (TP a multiple).
  llama.cpp's layer split has no such rule.
* A context past the model's window (``max_position_embeddings``) is an input error.
* A KV cache dtype the engine has no kernels for is an input error naming those it has.
* A measured decode speed above the roofline is said to be impossible, with what it more likely was.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.api import estimate, memory_needed
from gpuscout.estimate.diagnose import ABOVE_ROOFLINE, diagnose
from gpuscout.estimate.parallel import tp_head_conflict
from gpuscout.knowledge.accelerators import assumed_variant_warning, resolve_gpu
from tests.estimate.physics_specs import LLAMA3_8B

# ---- A: tensor parallel degrees the engine refuses ------------------------------------------------


def test_70b_on_three_h100s_is_refused_with_the_reason_and_layouts_that_start() -> None:
    # 64 attention heads / 3 ranks: vLLM's "Total number of attention heads (64) must be divisible by
    # tensor parallel size (3)"
    est = estimate("llama-3.1-70b", "H100", gpus=3)
    assert not est.supported and est.support == "unsupported" and est.binding_limit == "unsupported"
    assert "64 attention heads do not divide by tensor parallel size 3" in est.unsupported_reason
    assert est.decode_tokens_per_s == 0 and est.ttft_ms == 0 and not est.fits
    # the reason, then the variant "H100" was read as (the family's others named)
    assert est.warnings == [est.unsupported_reason, assumed_variant_warning("H100")]
    assert "verify_with_parallel_config" in est.assumptions["support"]
    # the nearest degrees that divide 64 (2 and 4), a pipeline split over the same 3 GPUs
    would = est.assumptions["alternatives"]
    assert "tensor parallel over 2 x H100-SXM" in would and "tensor parallel over 4 x H100-SXM" in would
    assert "pipeline parallel over 3 x H100-SXM" in would
    assert "3 x" not in would.replace("over 3 x H100-SXM (--parallel layer", "")


def test_six_a100_40gb_suggest_four_and_eight() -> None:
    est = estimate("llama-3.1-70b", "A100-40GB", gpus=6)
    assert not est.supported and "tensor parallel size 6" in est.unsupported_reason
    would = est.assumptions["alternatives"]
    assert "over 4 x A100-SXM4-40GB" in would and "over 8 x A100-SXM4-40GB" in would


def test_the_same_gpus_split_by_layers_or_replicas_run() -> None:
    assert estimate("llama-3.1-70b", "H100", gpus=3, parallel="layer").supported
    assert estimate("llama-3.1-8b", "H100", gpus=3, parallel="replicas").supported
    # llama.cpp's layer split, and its row split: no head rule
    assert estimate("llama-3.1-70b", "H100", gpus=3, precision="q4_k_m", engine="llama.cpp").supported
    row = estimate("llama-3.1-70b", "H100", gpus=3, precision="q4_k_m", engine="llama.cpp", parallel="tensor")
    assert row.supported and any("do not divide by TP=3" in w for w in row.warnings)


def test_each_server_refuses_a_split_of_its_heads() -> None:
    for engine in ("vllm", "sglang", "tensorrt-llm", "tgi", "gpt-fast"):
        est = estimate("llama-3.1-70b", "H100", gpus=3, engine=engine)
        assert not est.supported, engine
        assert f"{est.engine}: llama-3.1-70b's 64 attention heads" in est.unsupported_reason
    # TGI and gpt-fast offer no pipeline parallelism to suggest instead
    assert (
        "pipeline" not in estimate("llama-3.1-70b", "H100", gpus=3, engine="tgi").assumptions["alternatives"]
    )


def test_kv_heads_must_shard_or_replicate_evenly() -> None:
    # phi-4: 40 attention heads, 10 KV heads. TP 4 divides the 40 but not the 10: vLLM's
    # QKVParallelLinear divide(10, 4) fails
    phi4 = estimate("phi-4", "L4", gpus=4)
    assert (
        not phi4.supported
        and "10 KV heads do not divide by tensor parallel size 4" in phi4.unsupported_reason
    )
    assert estimate("phi-4", "L4", gpus=2).supported  # 40 / 2, 10 / 2
    # TensorRT-LLM: only the attention heads are checked (no KV rule is claimed for it)
    assert estimate("phi-4", "L4", gpus=4, engine="tensorrt-llm").supported
    # above TP = KV heads they are copied: TP 16 over 8 KV heads runs, TP 12 over 8 cannot
    assert tp_head_conflict(LLAMA3_8B, "vllm", 16) == ""  # 32 / 16 heads, 16 = 2 x 8 KV heads
    odd = dataclasses.replace(LLAMA3_8B, num_attention_heads=24)  # 24 heads, 8 KV heads
    assert "cannot be replicated evenly over tensor parallel size 12" in tp_head_conflict(odd, "vllm", 12)
    assert tp_head_conflict(odd, "tensorrt-llm", 12) == ""
    assert tp_head_conflict(odd, "llama.cpp", 5) == "" and tp_head_conflict(odd, "vllm", 1) == ""
    # MLA: no KV heads to shard, the attention heads still split
    assert tp_head_conflict(dataclasses.replace(odd, kv_lora_rank=512, qk_rope_head_dim=64), "vllm", 12) == ""


def test_strict_raises_naming_gpus_and_memory_needed_says_unsupported() -> None:
    with pytest.raises(ConfigurationRejected) as err:
        estimate("llama-3.1-70b", "H100", gpus=3, strict=True)
    assert err.value.field == "gpus" and "tensor parallel over 4" in str(err.value)
    need = memory_needed("llama-3.1-70b", "H100", gpus=3)
    assert not need.supported and not need.fits and need.binding_constraint == "unsupported"
    assert "tensor parallel over 4" in need.assumptions["alternatives"]


def test_would_fit_never_proposes_a_split_the_engine_refuses() -> None:
    # qwen2.5-7b: 28 attention heads, 4 KV heads; on 5 GiB cards bf16 needs 5.9 GB per GPU on 4 and
    # 3.9 GB on 8, but 28 heads do not divide by 8: vLLM cannot start there
    small = dataclasses.replace(resolve_gpu("L4"), name="L4-5G", memory_gb=5.0, usable_memory_mib=None)
    est = estimate("qwen2.5-7b", small, gpus=2)
    assert est.supported and not est.fits
    assert "8 x" not in est.assumptions["would_fit"]
    # a layer split has no head rule: 8 GPUs split by layers are proposed (the first of them holds the
    # 1.1 GB embedding table and 3 layers: 4.1 GiB, more than a 4.5 GiB card leaves)
    layer = estimate("qwen2.5-7b", small, gpus=2, parallel="layer")
    assert "on 8 x L4-5G (layer parallel" in layer.assumptions["would_fit"]
    # qwen3-30b-a3b on 3 x L4 (32 heads): refused, and what it proposes starts
    three = estimate("qwen3-30b-a3b", "L4", gpus=3)
    assert not three.supported and "on 3 x" not in three.assumptions["alternatives"]
    assert "tensor parallel over 4 x L4" in three.assumptions["alternatives"]


# ---- B: a context past the model's window --------------------------------------------------------


def test_context_past_the_window_names_the_field_and_the_maximum() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", context_in=200_000, context_out=100)
    assert err.value.field == "context_in"
    assert err.value.accepted == "context_in + context_out <= 131072"
    assert "200,100" in str(err.value) and "131,072" in str(err.value)
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", context_in=100, context_out=131_000)
    assert err.value.field == "context_out"
    # the whole window is served: 131,072 tokens in all
    assert estimate("llama-3.1-8b", "H100", context_in=131_071, context_out=1).fits
    with pytest.raises(InvalidInputError) as err:
        memory_needed("llama-3.1-8b", "H100", context=131_073)
    assert err.value.field == "context" and err.value.accepted == "<= 131072"


def test_a_spec_with_a_scaled_window_is_estimated_past_the_original() -> None:
    # served with RoPE scaling (YaRN x4): the spec states the scaled window
    scaled = dataclasses.replace(LLAMA3_8B, max_position_embeddings=4 * 8192)
    assert estimate(scaled, "H100", context_in=20_000, context_out=100).fits
    with pytest.raises(InvalidInputError):
        estimate(LLAMA3_8B, "H100", context_in=20_000, context_out=100)


# ---- C: KV cache dtypes the engine offers --------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "kv", "offered"),
    [
        ("vllm", "q4_0", "fp8"),
        ("vllm", "q8_0", "fp8"),
        ("vllm", "int8", "fp8"),
        ("sglang", "q4_0", "fp8"),
        ("tgi", "q8_0", "fp8"),
        ("hf-transformers", "fp8", "bf16"),
        ("gpt-fast", "fp8", "bf16"),
        ("llama.cpp", "fp8", "q8_0"),
    ],
)
def test_a_kv_dtype_the_engine_lacks_is_refused(engine: str, kv: str, offered: str) -> None:
    precision = "q4_k_m" if engine == "llama.cpp" else "bf16"
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", engine=engine, precision=precision, kv_dtype=kv, batch="max")
    assert err.value.field == "kv_dtype"
    accepted = (err.value.accepted or "").split(", ")
    assert offered in accepted and kv not in accepted


def test_kv_dtypes_each_engine_offers_size_the_cache() -> None:
    # Llama-3.1-8B: 32 layers x 2 x 8 KV heads x 128 = 65,536 elements per token
    def per_token(**kw: object) -> float:
        return estimate("llama-3.1-8b", "H100", **kw).memory.kv_bytes_per_token  # type: ignore[arg-type]

    assert per_token(engine="vllm", kv_dtype="fp8") == 65_536
    assert per_token(engine="sglang", kv_dtype="fp8_e4m3") == 65_536
    assert per_token(engine="tensorrt-llm", kv_dtype="int8") == 65_536
    assert per_token(engine="vllm", kv_dtype="auto") == 131_072  # the model's bf16
    q4 = dict(engine="llama.cpp", precision="q4_k_m")
    assert per_token(**q4, kv_dtype="q4_0") == 65_536 * 18 / 32
    assert per_token(**q4, kv_dtype="q4_1") == 65_536 * 20 / 32
    assert per_token(**q4, kv_dtype="int8") == 65_536 * 34 / 32  # llama.cpp's 8-bit cache is q8_0
    assert estimate("llama-3.1-8b", "H100", **q4, kv_dtype="int8").kv_dtype == "q8_0"  # type: ignore[arg-type]


def test_a_bad_kv_dtype_is_an_input_error_before_any_support_verdict() -> None:
    # vLLM FP8 on a V100 is unsupported; the q4_0 cache is still the first thing wrong with the request
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "V100", precision="fp8", kv_dtype="q4_0")
    assert err.value.field == "kv_dtype"


def test_sparse_mla_cache_only_where_the_engine_has_it() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("deepseek-v3.2", "H200", gpus=8, engine="sglang", kv_dtype="fp8_ds_mla")
    assert err.value.field == "kv_dtype" and "fp8_ds_mla" not in (err.value.accepted or "")


# ---- D: a measurement above the roofline ---------------------------------------------------------


def test_a_speed_above_the_roofline_is_called_impossible_not_memory_bound() -> None:
    d = diagnose(LLAMA3_8B, "A10G", measured_tps=500)
    assert d.bound == ABOVE_ROOFLINE
    assert d.measured_tps > d.roofline_tps and d.bandwidth_fraction > 1
    assert d.verdict.startswith("Above the roofline") and "Memory-bound" not in d.verdict
    text = " ".join(d.suggestions)
    assert "Faster memory" not in text and "Quantise to" not in text  # no remedies for it
    assert "Total throughput of a batch" in text and "Speculative decoding" in text
    assert "more than speculation gives" in text  # 12x: not speculation alone


def test_the_batch_it_points_to_is_the_first_whose_total_reaches_the_figure() -> None:
    d = diagnose(LLAMA3_8B, "A10G", measured_tps=500)
    line = next(s for s in d.suggestions if s.startswith("Total throughput"))
    n = int(line.split(" summed over ")[1].split(" ")[0])
    # 500 tokens/s shared by n sequences is within the ceiling at batch n, not at n - 1
    assert diagnose(LLAMA3_8B, "A10G", measured_tps=500 / n, batch=n).bound != ABOVE_ROOFLINE
    assert diagnose(LLAMA3_8B, "A10G", measured_tps=500 / (n - 1), batch=n - 1).bound == ABOVE_ROOFLINE


def test_just_above_the_roofline_may_be_speculative_decoding_and_below_is_diagnosed_as_before() -> None:
    roof = diagnose(LLAMA3_8B, "A10G", measured_tps=10).roofline_tps
    near = diagnose(LLAMA3_8B, "A10G", measured_tps=roof * 1.5)
    assert near.bound == ABOVE_ROOFLINE
    assert any("within what long accepted drafts give" in s for s in near.suggestions)
    below = diagnose(LLAMA3_8B, "A10G", measured_tps=roof * 0.8)
    assert below.bound == "memory" and any("Faster memory" in s for s in below.suggestions)


def test_diagnose_context_past_the_window_names_context() -> None:
    with pytest.raises(InvalidInputError) as err:
        diagnose(LLAMA3_8B, "A10G", measured_tps=20, context=9000)
    assert err.value.field == "context" and err.value.accepted == "<= 8192"
    assert diagnose(LLAMA3_8B, "A10G", measured_tps=20, context=8192).context == 8192
