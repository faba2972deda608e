"""Checkpoint names the resolver reads as their model: a GGUF repo ("-GGUF": the quantization is not in
the name) as an AWQ or FP8 checkpoint is, and Qwen3-30B-A3B's July 2025 update ("-Instruct-2507": the
row's architecture, its own 262,144-token window). A dated name the registry has no checkpoint of stays
unknown, with its undated model first among the suggestions; a typo stays an error."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.models import resolve_model, resolve_model_detail

# what a checkpoint's entry may change of its row's spec: nothing of the architecture
OWN = {"name", "hf_id", "max_position_embeddings", "native_context", "aliases", "source", "notes"}


@pytest.mark.parametrize(
    "typed",
    [
        "Llama-3.1-70B-Instruct-GGUF",
        "llama-3.1-70b-instruct-gguf",
        "bartowski/Meta-Llama-3.1-70B-Instruct-GGUF",
    ],
)
def test_a_gguf_repo_resolves_to_its_model_as_the_other_quantized_suffixes_do(typed: str) -> None:
    res = resolve_model_detail(typed)
    assert res.model is resolve_model_detail("Llama-3.1-70B-Instruct-AWQ").model
    assert res.model.name == "llama-3.1-70b"
    # a GGUF repo holds several quantizations: Q4_K_M assumed, and the note says so and how to name another
    assert res.precision == "gguf-q4_k_m"
    assert "gguf-q4_k_m assumed" in res.note and "--precision gguf-q8_0" in res.note


def test_the_awq_suffix_still_implies_its_precision() -> None:
    assert resolve_model_detail("Llama-3.1-70B-Instruct-AWQ").precision == "awq"


@pytest.mark.parametrize("typed", ["Llama-3.1-70B-Instrct-GGUF", "GGUF", "llama-3.1-70b-gguf-q9"])
def test_a_misspelt_model_before_the_gguf_suffix_is_still_unknown(typed: str) -> None:
    with pytest.raises(UnknownNameError) as exc:
        resolve_model(typed)
    if typed != "GGUF":
        assert exc.value.suggestions[0] == "llama-3.1-70b"


@pytest.mark.parametrize(
    "typed",
    ["Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B-Instruct-2507", "qwen3 30b a3b instruct 2507"],
)
def test_the_2507_update_has_the_rows_architecture_and_its_own_window(typed: str) -> None:
    base = resolve_model("qwen3-30b-a3b")
    spec = resolve_model(typed)
    assert spec.name == "qwen3-30b-a3b-instruct-2507"
    assert spec.hf_id == "Qwen/Qwen3-30B-A3B-Instruct-2507"
    assert spec.max_position_embeddings == 262_144 and spec.native_context == 0
    for f in dataclasses.fields(spec):
        if f.name not in OWN:
            assert getattr(spec, f.name) == getattr(base, f.name), f.name


def test_a_quantized_2507_checkpoint_keeps_its_window() -> None:
    res = resolve_model_detail("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8")
    assert res.model.name == "qwen3-30b-a3b-instruct-2507" and res.precision == "fp8-block"
    assert res.model.max_position_embeddings == 262_144


@pytest.mark.parametrize(
    ("typed", "first"),
    [
        ("qwen3-30b-a3b-2507", "qwen3-30b-a3b"),  # no such checkpoint: Instruct-2507 or Thinking-2507
        ("Qwen/Qwen3-8B-Instruct-2507", "qwen3-8b"),
        ("Qwen/Qwen3-32B-Instruct-2507", "qwen3-32b"),  # (235B-A22B's is a checkpoint since stop 67)
        ("mistral-large-2411", "mistral-large-2407"),
    ],
)
def test_a_dated_name_without_a_checkpoint_is_unknown_with_its_model_suggested_first(
    typed: str, first: str
) -> None:
    with pytest.raises(UnknownNameError) as exc:
        resolve_model(typed)
    assert exc.value.suggestions[0] == first, exc.value.suggestions


def test_hugging_quants_awq_int4_repos_resolve_as_awq() -> None:
    res = resolve_model_detail("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4")
    assert (res.model.name, res.precision) == ("llama-3.1-70b", "awq")
