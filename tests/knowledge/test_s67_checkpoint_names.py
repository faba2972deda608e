"""Checkpoints renters name that are a registry row's architecture under another name (stop 67): each
resolves to that row's shape, with a note where the name maps to another model's row, and with its own
context window where its config.json states another one (``CHECKPOINT_WINDOWS``). Before, each of these
was "unknown name" with a list of close names."""

from __future__ import annotations

import pytest

from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.models import resolve_model_detail
from gpuscout.knowledge.params import count_params


@pytest.mark.parametrize(
    ("name", "row", "said"),
    [
        ("DeepSeek-V3.1", "deepseek-v3", "further trained"),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek-v3", "update of DeepSeek-V3.1"),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "llama-3.1-8b", "Llama-3.1-8B fine-tuned"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "qwen2.5-7b", "Qwen2.5-Math-7B"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "qwen2.5-14b", "Qwen2.5-14B fine-tuned"),
        ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "llama-3.1-70b", "NVIDIA's fine-tune"),
    ],
)
def test_a_fine_tune_resolves_to_its_base_with_a_note(name: str, row: str, said: str) -> None:
    found = resolve_model_detail(name)
    assert found.model.name == row and not found.exact
    assert said in found.note


@pytest.mark.parametrize(
    ("name", "row", "window", "native"),
    [
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b", 262_144, 0),
        ("Qwen3-235B-A22B-Thinking-2507", "qwen3-235b-a22b", 262_144, 0),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-30b-a3b", 262_144, 0),
        ("Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-7b", 131_072, 32_768),
        ("Qwen2.5-Coder-14B-Instruct", "qwen2.5-14b", 131_072, 32_768),
        ("Qwen2.5-Coder-32B-Instruct", "qwen2.5-32b", 131_072, 32_768),
    ],
)
def test_a_checkpoint_with_its_own_window_keeps_the_row_shape(
    name: str, row: str, window: int, native: int
) -> None:
    spec = resolve_model_detail(name).model
    base = resolve_model_detail(row).model
    assert spec.name != base.name  # its own entry, under its own name
    assert count_params(spec).total == count_params(base).total
    assert spec.max_position_embeddings == window and spec.native_context == native
    assert "recalled" in spec.source


def test_an_alias_holding_parentheses_resolves_as_a_whole() -> None:
    # the megatron-gpt2-1.2b row's alias: its parenthesised part is no model, and the name was unknown as
    # typed (found by test_models' property test on this stop's new rows)
    for typed in ("GPT-2 1.2B (Megatron-LM)", "gpt 2 1.2b (megatron lm)"):
        assert resolve_model_detail(typed).model.name == "megatron-gpt2-1.2b"
    # a parenthesised model name still wins over the rest
    assert resolve_model_detail("LLaMA 7B (codellama-7b)").model.name == "codellama-7b"


@pytest.mark.parametrize(
    ("typed", "first"),
    [
        ("llama-4", ["llama-4-scout", "llama-4-maverick"]),
        ("Llama 4", ["llama-4-scout", "llama-4-maverick"]),
        ("glm", ["glm-5", "glm-4.6", "glm-4.5", "glm-4.5-air"]),  # stop 68: GLM-5
        ("gemma 3", ["gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b"]),  # stop 68: four sizes
    ],
)
def test_a_family_name_suggests_the_family_first(typed: str, first: list[str]) -> None:
    # "llama-4" had llama-3-8b and llama-2-7b suggested before Llama 4's own models (nearest spelling)
    with pytest.raises(UnknownNameError) as exc:
        resolve_model_detail(typed, imported=False)
    assert sorted(exc.value.suggestions[: len(first)]) == sorted(first), exc.value.suggestions
