"""The model registry and the model name resolver."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.models import (
    CHECKPOINT_WINDOWS,
    all_models,
    expand_layer_pattern,
    model_names,
    resolve_model,
    resolve_model_detail,
)
from tests.conftest import CALIBRATION, REFERENCE

EXACT = {
    "llama-3.1-8b": "llama-3.1-8b",
    "meta-llama/Llama-3.1-8B": "llama-3.1-8b",
    "META-LLAMA/LLAMA-3.1-8B": "llama-3.1-8b",
    "meta-llama/Meta-Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "Llama 3.1 8B Instruct": "llama-3.1-8b",
    "Llama 3 8B": "llama-3-8b",
    "llama-3-8b": "llama-3-8b",
    "Meta-Llama-3-8B": "llama-3-8b",
    "Meta-Llama-3-8B-Instruct": "llama-3-8b",
    "Llama 3 70B": "llama-3-70b",
    "Llama-2-7B": "llama-2-7b",
    "meta-llama/Llama-2-7b-chat-hf": "llama-2-7b",
    "Mixtral 8x7B Instruct": "mixtral-8x7b",
    "Qwen/Qwen3-30B-A3B": "qwen3-30b-a3b",
    "Qwen3 30B A3B": "qwen3-30b-a3b",
    "deepseek-ai/DeepSeek-V3": "deepseek-v3",
    "gpt-oss-120b": "gpt-oss-120b",
    "openai/gpt-oss-20b": "gpt-oss-20b",
    "google/gemma-2-9b-it": "gemma-2-9b",
    "SDXL 1.0 base": "sdxl",
    "stabilityai/stable-diffusion-xl-base-1.0": "sdxl",
    "FLUX.1-dev": "flux.1-dev",
    "FLUX.1 [dev]": "flux.1-dev",
    "whisper large v3": "whisper-large-v3",
    "LLaMA 7B (codellama-7b)": "codellama-7b",
}


@pytest.mark.parametrize(("name", "canonical"), sorted(EXACT.items()))
def test_resolves(name: str, canonical: str) -> None:
    res = resolve_model_detail(name)
    assert res.model.name == canonical
    assert res.exact


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("LLaMA 7B", "llama-2-7b"),
        ("LLaMA 70B", "llama-2-70b"),
        ("DeepSeek-R1", "deepseek-v3"),
        ("Mistral 7B", "mistral-7b-v0.3"),
        ("mistralai/Mistral-7B-Instruct-v0.2", "mistral-7b-v0.3"),
    ],
)
def test_historical_names_map_with_a_note(name: str, canonical: str) -> None:
    res = resolve_model_detail(name)
    assert res.model.name == canonical
    assert not res.exact and res.note


def test_original_llama_7b_has_llama2_7b_architecture() -> None:
    llama1 = resolve_model("LLaMA 7B")
    assert (llama1.hidden_size, llama1.num_hidden_layers, llama1.num_key_value_heads, llama1.vocab_size) == (
        4096,
        32,
        32,
        32000,
    )


def test_codellama_differs_from_llama2_where_it_does() -> None:
    code, base = resolve_model("codellama-7b"), resolve_model("llama-2-7b")
    assert code.vocab_size == 32016 and base.vocab_size == 32000
    assert code.max_position_embeddings == 16384


@pytest.mark.parametrize("name", ["Llama 3", "LLaMA 65B", "gpt-5", "", "   "])
def test_unknown_names_raise_with_suggestions(name: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_model(name, field="--model")
    assert info.value.field == "--model"
    assert info.value.suggestions
    assert all(s in model_names() for s in info.value.suggestions)


def test_unknown_llama_suggests_llamas() -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_model("Llama 3")
    assert {"llama-3-8b", "llama-3-70b"} <= set(info.value.suggestions)


def test_spec_passes_through() -> None:
    spec = resolve_model("llama-3-8b")
    assert resolve_model(spec) is spec


def test_registry_covers_the_reference_table() -> None:
    with open(REFERENCE / "models.csv", newline="") as fh:
        ref = list(csv.DictReader(fh))
    assert len(ref) == 44
    by_id = {m.hf_id: m for m in all_models()}
    for row in ref:
        spec = by_id[row["hf_id"]]
        for key in ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads"):
            if row[key]:
                assert getattr(spec, key) == int(row[key]), (spec.name, key)
        if row["head_dim"]:
            assert spec.head_dim == int(row["head_dim"])
        for key in ("num_experts", "experts_per_token", "moe_intermediate_size", "kv_lora_rank"):
            if row[key]:
                assert getattr(spec, key) == int(row[key]), (spec.name, key)
    # + codellama-7b; + 17 models of the training calibration rows (MPT, Qwen-1, GPT-3, Nemotron...);
    # + 10 inference models of the 2026-12 calibration set; + Kimi K2 and Qwen3-Coder-480B-A35B (renters'
    # models without a calibration row); + whisper-large-v2 (faster-whisper's README benchmark, the speech
    # calibration rows of stop 62); + megatron-gpt2-1.2b (Megatron-LM 2019's single-GPU baseline, the one
    # Volta training row); + Llama 4 Scout and Maverick, GLM-4.5-Air, GLM-4.5 and GLM-4.6 (renters'
    # models, stop 67); + Gemma 3 1B / 4B / 12B, Mistral Small 3.1, MiniMax-M2, Kimi-K2-Thinking, Mistral
    # Small 4 and GLM-5 (stop 68); + Qwen3-Next-80B-A3B and Qwen3.5 27B / 35B-A3B / 122B-A10B / 397B-A17B
    # (stop 69: linear attention) and Kimi K2.5
    assert len(all_models()) == 45 + 17 + 10 + 2 + 1 + 1 + 2 + 3 + 8 + 6


def test_registry_is_consistent() -> None:
    names = model_names()
    assert len(names) == len(set(names))
    for spec in all_models():
        assert spec.name == spec.name.lower() and " " not in spec.name
        assert spec.kind in {"llm", "diffusion", "audio"}
        assert spec.source
        if spec.kind == "llm":
            assert spec.num_attention_heads % spec.num_key_value_heads == 0, spec.name
            assert spec.head_dim > 0
            if spec.layer_types:
                assert len(spec.layer_types) == spec.num_hidden_layers
                assert spec.sliding_window or spec.linear_layers  # windows, or linear-attention layers
        else:
            assert spec.total_params_b


def test_attention_shapes() -> None:
    assert resolve_model("qwen3-8b").head_dim == 128
    assert resolve_model("gemma-2-9b").head_dim == 256  # explicit, != 3584 / 16
    assert resolve_model("llama-3.2-1b").head_dim == 64
    v3 = resolve_model("deepseek-v3")
    assert v3.is_mla and (v3.kv_lora_rank, v3.qk_rope_head_dim) == (512, 64)
    assert v3.first_dense_layers == 3 and v3.shared_experts == 1
    assert resolve_model("qwen2.5-7b").sliding_window is None  # configured but disabled


def test_layer_patterns() -> None:
    gemma2 = resolve_model("gemma-2-9b")
    assert gemma2.layer_types[:4] == ("sliding", "full", "sliding", "full")
    assert gemma2.sliding_layers == 21
    gemma3 = resolve_model("gemma-3-27b")
    assert gemma3.layer_types[:6] == ("sliding",) * 5 + ("full",)
    assert gemma3.sliding_layers == 62 - 10
    oss = resolve_model("gpt-oss-120b")
    assert oss.sliding_window == 128 and oss.sliding_layers == 18
    assert resolve_model("mistral-7b-v0.1").sliding_layers == 32
    assert resolve_model("llama-3-8b").layer_types == ()
    assert resolve_model("llama-3-8b").layer_kind(5) == "full"
    with pytest.raises(ValueError):
        expand_layer_pattern("every-third", 12)


# Calibration model names that name no model the registry can represent, and why.
CALIBRATION_SKIP = {
    "(microbenchmark)": "a GPU microbenchmark row, no model",
    "Step-3.5-Flash": "StepFun MoE whose config.json is in no reference material and not reliably recalled; "
    "a guessed architecture would be worse than none",
    "NVIDIA Nemotron-3-Nano-30B-A3B": "hybrid Mamba-2 / attention MoE: ModelSpec has no state-space layers, "
    "so its parameters, KV cache (6 of 52 layers) and per-sequence SSM state cannot be represented",
}


def test_every_calibration_model_resolves() -> None:
    with open(CALIBRATION, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for name in sorted({r["model"] for r in rows} - set(CALIBRATION_SKIP)):
        resolve_model(name)
    for name in CALIBRATION_SKIP:
        with pytest.raises(UnknownNameError):
            resolve_model(name)


@pytest.mark.parametrize(
    ("name", "canonical", "precision"),
    [
        ("Qwen3-14B-AWQ", "qwen3-14b", "awq"),  # int4, as an AWQ checkpoint
        # the -Instruct checkpoint's own entry: its config.json window (32,768) is not the base's
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "qwen2.5-7b-instruct", "int8"),
        ("Qwen/Qwen3-8B-FP8", "qwen3-8b", "fp8-block"),  # Qwen's FP8 checkpoints: 128x128 blocks
        ("Qwen/Qwen3-30B-A3B-FP8", "qwen3-30b-a3b", "fp8-block"),
        ("RedHatAI/Qwen3-8B-FP8-dynamic", "qwen3-8b", "fp8"),  # llm-compressor: per-channel scales
        ("meta-llama-3.1-8b-instruct-fp8", "llama-3.1-8b", "fp8"),  # per-tensor (Neural Magic)
        ("TheBloke/Llama-2-70B-GPTQ", "llama-2-70b", "gptq"),
    ],
)
def test_quantized_checkpoint_names_resolve_to_the_base_with_their_precision(
    name: str, canonical: str, precision: str
) -> None:
    res = resolve_model_detail(name)
    assert (res.model.name, res.precision) == (canonical, precision)
    assert canonical in res.note


def test_native_precision_comes_from_the_checkpoint() -> None:
    assert resolve_model("DeepSeek-R1").native_precision == "fp8-block"
    assert resolve_model("deepseek-v3.2").native_precision == "fp8-block"
    assert resolve_model("gpt-oss-120b").native_precision == "mxfp4-moe"
    assert resolve_model("llama-3.1-8b").native_precision == ""  # 16-bit (torch_dtype)


def test_new_inference_models_match_their_published_sizes() -> None:
    from gpuscout.knowledge.params import count_params

    for name, total_b in (
        ("codellama-34b", 33.7),
        ("qwen1.5-32b", 32.5),
        ("qwen3-14b", 14.8),
        ("qwen3-0.6b", 0.6),
        ("stablelm-base-alpha-3b", 3.6),
        ("phi-1.5", 1.42),
    ):
        assert count_params(resolve_model(name)).total / 1e9 == pytest.approx(total_b, rel=0.02), name
    moe = count_params(resolve_model("Qwen2-57B-A14B-Instruct"))
    assert moe.total / 1e9 == pytest.approx(57.4, rel=0.01)
    assert moe.active / 1e9 == pytest.approx(14.2, rel=0.02)


@settings(max_examples=200, deadline=None)
@given(
    spec=st.sampled_from(all_models()),
    sep=st.sampled_from([" ", "-", "_", "  "]),
    suffix=st.sampled_from(["", "-Instruct", " Chat", "-hf", " base"]),
    data=st.data(),
)
def test_case_separators_and_checkpoint_suffixes_do_not_matter(
    spec: ModelSpec, sep: str, suffix: str, data: st.DataObject
) -> None:
    label = data.draw(st.sampled_from((spec.name, spec.hf_id, *spec.aliases)))
    flags = data.draw(st.lists(st.booleans(), min_size=len(label), max_size=len(label)))
    mangled = "".join(c.upper() if f else c.lower() for c, f in zip(label, flags, strict=True))
    mangled = mangled.replace("-", sep).replace(" ", sep) + suffix
    found = resolve_model(mangled)
    if found is not spec:  # a checkpoint whose config.json window is its own: its entry, of the row's shape
        own = {resolve_model(cw.checkpoint) for cw in CHECKPOINT_WINDOWS if cw.model == spec.name}
        assert suffix == "-Instruct" and found in own, (mangled, found.name)
