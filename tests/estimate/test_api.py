"""The public ``gpuscout.estimate`` entry point: names or objects, validation, assumptions, warnings."""

from __future__ import annotations

import pytest

import gpuscout
from gpuscout.errors import InvalidInputError, UnknownNameError
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.estimate.physics_specs import LLAMA3_8B


def test_names_and_objects_give_the_same_answer() -> None:
    by_name = gpuscout.estimate("llama-3-8b", "RTX 4090", precision="q4_k_m", engine="llama.cpp")
    by_obj = estimate(LLAMA3_8B, resolve_gpu("RTX 4090"), precision="q4_k_m", engine="llama.cpp")
    assert by_name.decode_tokens_per_s == pytest.approx(by_obj.decode_tokens_per_s, rel=1e-6)
    assert by_name.fits and by_name.bound == "memory"


def test_result_fields_and_assumptions() -> None:
    est = estimate(LLAMA3_8B, "H100 SXM", precision="fp8", engine="vllm", batch=8)
    for key in ("engine", "bandwidth_efficiency", "compute_efficiency", "precision", "kv_dtype"):
        assert key in est.assumptions
    assert est.decode_tokens_per_s > 0 and est.output_tokens_per_s_total > est.decode_tokens_per_s
    assert est.prefill_tokens_per_s > est.decode_tokens_per_s
    assert est.ttft_ms > 0
    assert est.memory.total_gb > 0
    assert est.batch == 8 and est.engine == "vllm"


def test_fp8_on_a100_flagged_not_native() -> None:
    est = estimate(LLAMA3_8B, "A100 SXM 80GB", precision="fp8")
    assert any("FP8" in w and "weight-only" in w for w in est.warnings)
    h100 = estimate(LLAMA3_8B, "H100 SXM", precision="fp8")
    assert not any("FP8" in w for w in h100.warnings)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"gpus": 0}, "gpus"),
        ({"gpus": 65}, "gpus"),
        ({"gpus": -1}, "gpus"),
        ({"batch": 0}, "batch"),
        ({"batch": 2_000_000}, "batch"),  # past MAX_CONCURRENCY; 100,000 is a load as concurrency (stop 62)
        ({"batch": "lots"}, "batch"),
        ({"context_in": -5}, "context_in"),
        ({"context_out": 10**9}, "context_out"),
        ({"context_in": 0, "context_out": 0}, "context_out"),
        ({"precision": "int3"}, "precision"),
        ({"kv_dtype": "int2"}, "kv_dtype"),
        ({"parallel": "diagonal"}, "parallel"),
        ({"task": "lora"}, "task"),
    ],
)
def test_bad_input_names_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate(LLAMA3_8B, "H100 SXM", **kwargs)  # type: ignore[arg-type]
    assert err.value.field == field


def test_unknown_names_suggest_closest() -> None:
    with pytest.raises(UnknownNameError) as err:
        estimate("llama-3-8bb", "H100 SXM")
    assert err.value.suggestions
    with pytest.raises(UnknownNameError) as gpu_err:
        estimate(LLAMA3_8B, "H1OO SXM")
    assert gpu_err.value.field.lstrip("-") in ("gpu", "accelerator")
    with pytest.raises(UnknownNameError) as eng_err:
        estimate(LLAMA3_8B, "H100 SXM", engine="vllmm")
    assert eng_err.value.field == "engine"
    assert "vllm" in eng_err.value.suggestions


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("llama.cpp", "llama.cpp"),
        ("llamacpp", "llama.cpp"),
        ("vLLM 0.6", "vllm"),
        ("TensorRT-LLM", "tensorrt-llm"),
        ("trtllm", "tensorrt-llm"),
        ("sglang", "sglang"),
        ("transformers", "hf-transformers"),
        ("hf", "hf-transformers"),
        ("gpt-fast", "gpt-fast"),
        ("torch.compile", "gpt-fast"),
        ("llama.cpp (llama-bench, layer split)", "llama.cpp"),
        ("TensorRT-LLM v0.6.1 (static batch)", "tensorrt-llm"),
    ],
)
def test_engine_spellings(spelling: str, name: str) -> None:
    assert resolve_engine(spelling).name == name


def test_context_above_model_maximum_is_refused() -> None:
    # vLLM refuses a max_model_len past max_position_embeddings (8192 here) unless forced
    with pytest.raises(InvalidInputError) as err:
        estimate(LLAMA3_8B, "H100 SXM", context_in=16000, context_out=1000)
    assert err.value.field == "context_in" and err.value.accepted == "context_in + context_out <= 8192"


def test_batch_max_resolves_to_a_number() -> None:
    est = estimate(LLAMA3_8B, "RTX 4090", batch="max", context_in=1000, context_out=1000)
    assert isinstance(est.batch, int) and est.batch >= 1
    assert est.fits


def test_tp_beyond_kv_heads_warns() -> None:
    est = estimate(LLAMA3_8B, "H100 SXM", gpus=16)
    assert any("replicated" in w for w in est.warnings)


def test_bf16_request_on_llama_cpp_becomes_gguf_f16() -> None:
    est = estimate(LLAMA3_8B, "RTX 4090", precision="bf16", engine="llama.cpp")
    assert est.precision == "gguf-f16"


def test_kv_dtype_engine_mismatch_is_refused() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate(LLAMA3_8B, "H100 SXM", engine="vllm", kv_dtype="q4_0")
    assert err.value.field == "kv_dtype" and "llama.cpp cache type" in str(err.value)
    assert err.value.accepted == "fp32, bf16, fp16, fp8"
    fp8 = estimate(LLAMA3_8B, "H100 SXM", engine="vllm", kv_dtype="fp8", context_in=4000, context_out=4000)
    bf16 = estimate(LLAMA3_8B, "H100 SXM", engine="vllm", kv_dtype="bf16", context_in=4000, context_out=4000)
    assert fp8.memory.kv_cache_gb == pytest.approx(bf16.memory.kv_cache_gb / 2)


def test_the_result_says_where_a_decode_step_goes() -> None:
    import dataclasses

    one = estimate("llama-3.1-8b", "H100-SXM", concurrency=1)
    step = one.step_ms
    assert set(step) == {"total", "memory", "compute", "interconnect", "fixed"}
    assert step["interconnect"] == 0.0  # one GPU: nothing to all-reduce
    # the parts overlap (reads and math run together), but none outlasts the step
    assert step["total"] >= max(step["memory"], step["compute"]) > 0
    assert step["total"] == pytest.approx(one.tpot_ms, rel=0.05)  # one user: a token per step
    # 16 GB of bf16 weights at the achieved share of 3.35 TB/s: ~7-8 ms of reads, the step's largest part
    assert 5.0 < step["memory"] < 10.0 and one.binding_limit == "bandwidth"
    # the same 70B split four ways spends more of each step on its all-reduces over PCIe than over NVLink
    h100 = resolve_gpu("H100-SXM")
    on_pcie = dataclasses.replace(h100, interconnect="PCIe Gen5 x16", interconnect_gbps=128.0)
    nvlink = estimate("llama-3.1-70b", h100, gpus=4, concurrency=1).step_ms
    pcie = estimate("llama-3.1-70b", on_pcie, gpus=4, concurrency=1).step_ms
    assert pcie["interconnect"] > 2 * nvlink["interconnect"] > 0
    assert pcie["memory"] == pytest.approx(nvlink["memory"], rel=1e-6)  # the same reads
    assert "all-reduces" in estimate("llama-3.1-70b", on_pcie, gpus=4, concurrency=1).step_summary()
    # no step is timed where nothing runs
    assert estimate("llama-3.1-8b", "V100", precision="fp8", engine="vllm").step_ms == {}


def test_one_sequence_that_fits_reads_in_the_singular() -> None:
    # a 120k-token context leaves an L40S room for one sequence: it read "max (1 sequences per
    # replica)" and "at most 1 sequences run at once"
    full = estimate("llama-3.1-8b", "L40S", batch="max", context_in=120_000, context_out=500)
    assert full.batch == 1 and full.assumptions["load"].startswith("max (1 sequence per replica): ")
    busy = estimate("llama-3.1-8b", "L40S", concurrency=8, context_in=120_000, context_out=500)
    said = "concurrency 8: at most 1 sequence runs at once per replica (KV-cache memory); the rest queue"
    assert any(w.startswith(said) for w in busy.warnings), busy.warnings
    wide = estimate("llama-3.1-8b", "L40S", concurrency=64, context_in=20_000, context_out=500)
    assert wide.batch > 1 and any(f"at most {wide.batch} sequences run at once" in w for w in wide.warnings)
