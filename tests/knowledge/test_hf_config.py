"""Importing a model from a Hugging Face config.json (files, dicts, and the Hub offline)."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuscout.errors import GpuscoutError, InvalidInputError
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params
from gpuscout.loaders import model_from_hf_config, model_from_hub
from tests.conftest import REFERENCE

CONFIGS = sorted((REFERENCE / "hf_configs").glob("*.json"))
# Fields that legitimately differ between an import and the curated row (names and provenance).
PROVENANCE = {
    "name",
    "hf_id",
    "family",
    "source",
    "notes",
    "aliases",
    "official_total_params_b",
    "official_active_params_b",
    "params_source",
    "imported",
    "torch_dtype",
}


def test_there_are_reference_configs() -> None:
    assert len(CONFIGS) >= 20


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_import_equals_the_registry(path: Path) -> None:
    imported = model_from_hf_config(path)
    registry = resolve_model(path.stem.replace("--", "/"))
    assert imported.imported and not registry.imported
    assert count_params(imported) == count_params(registry)
    for field in dataclasses.fields(imported):
        if field.name in PROVENANCE:
            continue
        assert getattr(imported, field.name) == getattr(registry, field.name), field.name


def test_import_from_a_dict_and_naming() -> None:
    raw = json.loads((REFERENCE / "hf_configs" / "meta-llama--Meta-Llama-3.1-8B.json").read_text())
    spec = model_from_hf_config(raw, name="my-llama")
    assert spec.name == "my-llama"
    assert count_params(spec).total == 8_030_261_248
    raw.pop("_name_or_path", None)
    assert model_from_hf_config(raw).name == "imported-llama"


def test_name_from_file_or_folder(tmp_path: Path) -> None:
    raw = json.loads((REFERENCE / "hf_configs" / "Qwen--Qwen3-8B.json").read_text())
    raw.pop("_name_or_path", None)
    folder = tmp_path / "My-Qwen"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(raw))
    assert model_from_hf_config(folder / "config.json").name == "my-qwen"


def _llama(**changes: Any) -> dict[str, Any]:
    path = REFERENCE / "hf_configs" / "meta-llama--Llama-2-7b-hf.json"
    raw: dict[str, Any] = json.loads(path.read_text())
    raw.update(changes)
    return {k: v for k, v in raw.items() if v is not None}


@pytest.mark.parametrize(
    "key",
    [
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "vocab_size",
        "intermediate_size",
        "model_type",
    ],
)
def test_missing_required_key_is_named(key: str) -> None:
    raw = _llama()
    del raw[key]
    with pytest.raises(InvalidInputError) as info:
        model_from_hf_config(raw)
    assert info.value.field == key


def test_bad_values_and_unsupported_architectures() -> None:
    with pytest.raises(InvalidInputError) as info:
        model_from_hf_config(_llama(hidden_size=-4096))
    assert info.value.field == "hidden_size"
    with pytest.raises(InvalidInputError) as info:
        model_from_hf_config(_llama(model_type="whisper"))
    assert info.value.field == "model_type" and "llama" in str(info.value)
    with pytest.raises(InvalidInputError) as info:
        model_from_hf_config(_llama(num_local_experts=8))  # MoE without experts-per-token
    assert info.value.field == "num_experts_per_tok"


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no such file"):
        model_from_hf_config(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InvalidInputError) as info:
        model_from_hf_config(bad)
    assert info.value.field == "config"


def test_gemma3_text_config_nesting_and_defaults() -> None:
    raw = {
        "model_type": "gemma3",
        "architectures": ["Gemma3ForConditionalGeneration"],
        "text_config": {
            "model_type": "gemma3_text",
            "hidden_size": 5376,
            "intermediate_size": 21504,
            "num_hidden_layers": 62,
            "num_attention_heads": 32,
            "num_key_value_heads": 16,
            "head_dim": 128,
            "sliding_window": 1024,
            "max_position_embeddings": 131072,
        },
        "vision_config": {"hidden_size": 1152},
    }
    spec = model_from_hf_config(raw)
    registry = resolve_model("gemma-3-27b")
    assert spec.vocab_size == 262208 and spec.tie_word_embeddings and spec.qk_norm
    assert spec.layer_types == registry.layer_types
    assert count_params(spec).total == count_params(registry).total


def test_falcon_old_and_new_key_names() -> None:
    old = {
        "model_type": "RefinedWeb",
        "n_layer": 60,
        "hidden_size": 8192,
        "n_head": 128,
        "n_head_kv": 8,
        "vocab_size": 65024,
        "parallel_attn": True,
        "bias": False,
    }
    new = {
        "model_type": "falcon",
        "num_hidden_layers": 60,
        "hidden_size": 8192,
        "num_attention_heads": 128,
        "num_kv_heads": 8,
        "vocab_size": 65024,
        "new_decoder_architecture": True,
        "bias": False,
    }
    registry = count_params(resolve_model("falcon-40b")).total
    assert count_params(model_from_hf_config(old)).total == registry
    assert count_params(model_from_hf_config(new)).total == registry


def test_hub_reads_only_config_json(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    calls: list[tuple[str, str]] = []
    local = REFERENCE / "hf_configs" / "Qwen--Qwen3-8B.json"

    def fake_download(repo_id: str, filename: str, **_: Any) -> str:
        calls.append((repo_id, filename))
        return str(local)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    spec = model_from_hub("Qwen/Qwen3-8B")
    assert calls == [("Qwen/Qwen3-8B", "config.json")]
    assert spec.hf_id == "Qwen/Qwen3-8B" and spec.name == "qwen3-8b"
    assert count_params(spec) == count_params(resolve_model("qwen3-8b"))


def test_hub_offline_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    def offline(*_: Any, **__: Any) -> str:
        raise OSError("network unreachable")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", offline)
    with pytest.raises(InvalidInputError) as info:
        model_from_hub("Qwen/Qwen3-8B")
    assert info.value.field == "hub" and "network unreachable" in str(info.value)
    with pytest.raises(InvalidInputError):
        model_from_hub("not-a-repo-id")


def test_hub_without_huggingface_hub_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(GpuscoutError, match="huggingface_hub"):
        model_from_hub("Qwen/Qwen3-8B")


# Config dicts written the way these families' config.json files spell them (no reference copy on disk).
HANDWRITTEN = {
    "phi-3-mini-4k": {
        "model_type": "phi3",
        "hidden_size": 3072,
        "intermediate_size": 8192,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "vocab_size": 32064,
        "max_position_embeddings": 4096,
        "sliding_window": 2047,
        "tie_word_embeddings": False,
    },
    "mistral-7b-v0.1": {
        "model_type": "mistral",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 32000,
        "max_position_embeddings": 32768,
        "sliding_window": 4096,
        "tie_word_embeddings": False,
    },
    "gemma-2-9b": {
        "model_type": "gemma2",
        "hidden_size": 3584,
        "intermediate_size": 14336,
        "num_hidden_layers": 42,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "vocab_size": 256000,
        "max_position_embeddings": 8192,
        "sliding_window": 4096,
    },
    "qwen2.5-0.5b": {
        "model_type": "qwen2",
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "vocab_size": 151936,
        "max_position_embeddings": 32768,
        "sliding_window": 32768,
        "use_sliding_window": False,
        "tie_word_embeddings": True,
    },
}


@pytest.mark.parametrize("name", sorted(HANDWRITTEN))
def test_family_field_names(name: str) -> None:
    imported = model_from_hf_config(HANDWRITTEN[name])
    registry = resolve_model(name)
    assert count_params(imported) == count_params(registry)
    assert imported.layer_types == registry.layer_types
    assert imported.sliding_window == registry.sliding_window
    assert imported.head_dim == registry.head_dim
