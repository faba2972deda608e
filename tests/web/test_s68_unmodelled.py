"""Names of architectures gpuscout does not model say so (stop 68; ``gpuscout.knowledge.unmodelled``).

"Qwen3.5-35B-A3B" was an unknown name with qwen3-30b-a3b first among the closest: a renter could take that
row and size the wrong architecture (Qwen3.5's Gated DeltaNet layers keep a fixed-size state, not a KV
cache). The error now says what the model is and why it has no row, on every face, and an imported
config.json of such a model type is refused with the same reason.

Stop 69 models Qwen3-Next and Qwen3.5 (Gated DeltaNet: tests/estimate/test_s69_linear_attention.py); a
Qwen3.5 size without a row now says that and points to the import (test_s69_gated_deltanet_import.py).
"""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.errors import UnknownNameError
from gpuscout.knowledge.hf_config import parse_hf_config
from gpuscout.knowledge.models import all_models, resolve_model
from gpuscout.knowledge.unmodelled import FAMILIES, unmodelled_name, unmodelled_type


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "Nemotron-H"),
        ("NVIDIA-Nemotron-Nano-9B-v2", "Nemotron-H"),
        ("granite-4.0-h-small", "Granite 4.0 H"),
        ("Falcon-H1-7B-Instruct", "Falcon-H1"),
        ("AI21-Jamba-Mini-1.7", "Jamba"),
        ("MiniMax-M1-80k", "MiniMax-Text-01"),
        ("Kimi-Linear-48B-A3B-Instruct", "Kimi Linear"),
        ("google/gemma-3n-E4B-it", "Gemma 3n"),
        ("gemma-4-e2b-it", "Gemma 4"),
        ("deepseek-ai/DeepSeek-V4-Flash", "DeepSeek-V4"),
        ("mistralai/Mistral-Large-4-1T-A52B", "Mistral Large 4"),
        ("zai-org/GLM-5.3-Flash", "GLM-5 Flash"),
    ],
)
def test_an_unmodelled_architecture_is_named_with_its_reason(name: str, label: str) -> None:
    with pytest.raises(UnknownNameError) as err:
        resolve_model(name)
    assert err.value.field == "model" and err.value.reason
    text = str(err.value)
    assert f"unknown name {name!r}: {label}" in text and "does not represent" in text
    assert "closest known:" in text  # the suggestions stay


@pytest.mark.parametrize(
    "name",
    # rows of the table, and names that only look alike: a Llama 3.1 fine-tune named Nemotron Nano, the 2023
    # Nemotron-3 8B, Granite without the H, MiniMax-M2 (a row), Gemma 3 4B, Mistral Large 2
    [
        "nemotron-3-8b",
        "Llama-3.1-Nemotron-Nano-8B-v1",
        "granite-4.0-micro",
        "minimax-m2",
        "gemma-3-4b",
        "mistral-large-2407",
    ],
)
def test_look_alikes_are_not_taken_for_them(name: str) -> None:
    assert unmodelled_name(name) is None


def test_no_row_of_the_table_is_called_unmodelled() -> None:
    for spec in all_models():
        assert unmodelled_name(spec.name) is None, spec.name
        assert all(unmodelled_name(alias) is None for alias in spec.aliases), spec.name


def test_a_plain_unknown_name_has_no_reason() -> None:
    with pytest.raises(UnknownNameError) as err:
        resolve_model("llama-9")
    assert err.value.reason == "" and "does not represent" not in str(err.value)


def test_every_family_names_a_model_type_and_what_it_has() -> None:
    for family in FAMILIES:
        # a modelled family (a size without a row) imports: no model type of it is refused
        assert (bool(family.model_types) != bool(family.modelled_as)) and family.has and family.read
        for model_type in family.model_types:
            assert unmodelled_type(model_type) is family


def test_an_imported_config_of_such_a_type_is_refused_with_the_reason() -> None:
    with pytest.raises(Exception) as err:
        parse_hf_config({"model_type": "kimi_linear", "hidden_size": 2048, "num_hidden_layers": 48})
    assert "'kimi_linear' is not supported: Kimi Linear" in str(err.value)
    nested = {"model_type": "gemma3n", "text_config": {"model_type": "gemma3n_text"}}
    with pytest.raises(Exception) as err:
        parse_hf_config(nested)
    assert "per-layer input embeddings" in str(err.value)


def test_the_estimate_and_the_web_say_it(client) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnknownNameError) as err:
        estimate("Kimi-Linear-48B-A3B-Instruct", "H100")
    assert "Kimi Linear" in str(err.value)
    api = client.get("/api/v1/models/Kimi-Linear-48B-A3B-Instruct")
    assert api.status_code == 404 and "Kimi Delta Attention" in api.json()["message"]
    page = client.get("/advise", params={"kind": "serve", "model": "Kimi-Linear-48B-A3B-Instruct"})
    assert "Kimi Delta Attention" in page.text and "the closest it models" in page.text
    # a Qwen3.5 size without a row (stop 69): modelled, not refused; its config imports
    api = client.get("/api/v1/models/Qwen3.5-9B")
    assert api.status_code == 404 and "gpuscout models import" in api.json()["message"]
