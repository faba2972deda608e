"""An imported config.json's context window weighs its ``rope_scaling`` (YaRN, linear, dynamic, llama3).

Hand-checkable: Qwen's model cards have users add ``{"type": "yarn", "factor": 4.0,
"original_max_position_embeddings": 32768}`` to a config stating ``max_position_embeddings: 32768``,
for 4 x 32,768 = 131,072 tokens; Llama 3.1 states 131,072 already with ``rope_type: llama3`` (factor 8
over 8,192), which must not be multiplied again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import estimate
from gpuscout.knowledge import hf_config
from gpuscout.knowledge.hf_config import spec_from_hf_config
from gpuscout.loaders import model_from_hf_config
from gpuscout.user_models import import_model, load_imported
from tests.conftest import REFERENCE

CONFIGS = REFERENCE / "hf_configs"
YARN_4 = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
runner = CliRunner()


def _config(stem: str, **changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((CONFIGS / f"{stem}.json").read_text())
    raw.update(changes)
    return raw


def _qwen(rope: dict[str, Any] | None, max_pos: int = 32768) -> dict[str, Any]:
    """Qwen2.5-7B's architecture as its Hub config states it: 32,768 positions, plus ``rope``."""
    return _config("Qwen--Qwen2.5-7B", max_position_embeddings=max_pos, rope_scaling=rope)


@pytest.mark.parametrize("key", ["type", "rope_type"])
def test_yarn_factor_4_over_32k_gives_131072(key: str) -> None:
    rope = {key: "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    spec = spec_from_hf_config(_qwen(rope), name="qwen-yarn")
    assert spec.max_position_embeddings == 131_072  # 4 x 32,768
    # the spec says which figure it took and why
    assert "131,072" in spec.notes and "yarn" in spec.notes and "factor 4" in spec.notes
    assert "32,768" in spec.notes and "unscaled" in spec.notes
    assert hf_config.context_window(_qwen(rope)).tokens == 131_072


def test_the_architecture_is_otherwise_the_same() -> None:
    plain = spec_from_hf_config(_qwen(None), name="q")
    scaled = spec_from_hf_config(_qwen(YARN_4), name="q")
    assert plain.max_position_embeddings == 32_768
    assert scaled.num_hidden_layers == plain.num_hidden_layers and scaled.head_dim == plain.head_dim


@pytest.mark.parametrize("stem", ["meta-llama--Meta-Llama-3.1-8B", "meta-llama--Llama-3.3-70B-Instruct"])
def test_llama3_rope_states_the_scaled_window_already(stem: str) -> None:
    raw = _config(stem)
    assert raw["rope_scaling"]["rope_type"] == "llama3" and raw["rope_scaling"]["factor"] == 8.0
    spec = spec_from_hf_config(raw)
    assert spec.max_position_embeddings == 131_072  # not 8 x 131,072, nor 8 x 8,192 re-derived wrongly
    assert "llama3" in spec.notes and "as stated" in spec.notes


@pytest.mark.parametrize(
    ("stem", "window"),
    [("deepseek-ai--DeepSeek-V3", 163_840), ("openai--gpt-oss-20b", 131_072)],
)
def test_a_yarn_config_that_states_the_scaled_window_is_kept(stem: str, window: int) -> None:
    """DeepSeek-V3: 163,840 = 40 x 4,096; gpt-oss: 131,072 = 32 x 4,096 (max_position_embeddings
    already exceeds original_max_position_embeddings)."""
    spec = spec_from_hf_config(_config(stem))
    assert spec.max_position_embeddings == window
    assert "already" in spec.notes and f"{window:,}" in spec.notes


@pytest.mark.parametrize(
    ("stem", "window"),
    [
        ("Qwen--Qwen3-8B", 40_960),
        ("meta-llama--Llama-2-7b-hf", 4_096),
        ("mistralai--Mixtral-8x7B-v0.1", 32_768),
    ],
)
def test_no_rope_scaling_leaves_the_window_unchanged(stem: str, window: int) -> None:
    raw = _config(stem)
    assert raw.get("rope_scaling") is None
    spec = spec_from_hf_config(raw)
    assert spec.max_position_embeddings == window
    assert "context window" not in spec.notes
    assert hf_config.context_window(raw) == (window, "")


@pytest.mark.parametrize("kind", ["linear", "dynamic"])
def test_linear_and_dynamic_without_an_original_stretch_max_position_embeddings(kind: str) -> None:
    raw = _config("meta-llama--Llama-2-7b-hf", rope_scaling={"type": kind, "factor": 2.0})
    spec = spec_from_hf_config(raw)
    assert spec.max_position_embeddings == 8_192  # 2 x 4,096
    assert kind in spec.notes and "factor 2" in spec.notes


def test_yarn_with_the_original_stated_at_the_top_level() -> None:
    raw = _qwen({"rope_type": "yarn", "factor": 4.0})
    raw["original_max_position_embeddings"] = 32768
    assert spec_from_hf_config(raw).max_position_embeddings == 131_072


def test_a_factor_of_one_extends_nothing() -> None:
    assert spec_from_hf_config(_qwen({"type": "linear", "factor": 1.0})).max_position_embeddings == 32_768


def test_transformers_5_rope_parameters_are_read_too() -> None:
    raw = _qwen(None)
    raw.pop("rope_scaling")
    raw["rope_parameters"] = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    assert spec_from_hf_config(raw).max_position_embeddings == 131_072
    raw["rope_parameters"] = {"rope_type": "default", "rope_theta": 1e6}
    assert spec_from_hf_config(raw).max_position_embeddings == 32_768


def test_gemma3_linear_factor_is_not_multiplied_into_its_stated_window() -> None:
    """Gemma 3 states 131,072 with a linear factor 8 for its global layers: the window is 131,072."""
    raw = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 34,
        "hidden_size": 2560,
        "intermediate_size": 10240,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "max_position_embeddings": 131072,
        "sliding_window": 1024,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
    }
    spec = spec_from_hf_config(raw)
    assert spec.max_position_embeddings == 131_072
    assert "gemma3" in spec.notes


@pytest.mark.parametrize("factor", ["four", -2, None, True])
def test_a_bad_factor_is_an_error_naming_rope_scaling(factor: object) -> None:
    rope: dict[str, Any] = {"type": "yarn", "original_max_position_embeddings": 32768}
    if factor is not None:
        rope["factor"] = factor
    with pytest.raises(InvalidInputError) as err:
        spec_from_hf_config(_qwen(rope))
    assert err.value.field == "rope_scaling"


def test_the_scaled_window_is_what_the_estimate_allows() -> None:
    scaled = spec_from_hf_config(_qwen(YARN_4), name="qwen-yarn")
    plain = spec_from_hf_config(_qwen(None), name="qwen-plain")
    est = estimate(scaled, "H100", context_in=100_000, context_out=1_000)
    assert est.context_in == 100_000
    with pytest.raises(InvalidInputError) as err:  # the unscaled config stops at 32,768
        estimate(plain, "H100", context_in=100_000, context_out=1_000)
    assert err.value.field == "context_in" and "32768" in str(err.value)
    with pytest.raises(InvalidInputError) as err:  # past the scaled window: still an input error
        estimate(scaled, "H100", context_in=131_000, context_out=1_000)
    assert err.value.field == "context_in" and "131072" in str(err.value) and "131,072" in str(err.value)


def test_a_file_and_an_imported_model_keep_the_scaled_window_and_say_why(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_qwen(YARN_4)))
    assert model_from_hf_config(path).max_position_embeddings == 131_072
    done = import_model(str(path), name="qwen-long")
    (spec,) = load_imported().specs
    assert done.spec.max_position_embeddings == spec.max_position_embeddings == 131_072
    assert spec.notes.startswith("imported ") and "rope_scaling yarn factor 4" in spec.notes


def test_the_cli_estimates_a_yarn_config_past_its_unscaled_window(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_qwen(YARN_4)))
    args = ["estimate", "x", "--gpu", "H100", "--config", str(path), "--context-in", "100000", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["context_in"] == 100_000
    path.write_text(json.dumps(_qwen(None)))
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "--context-in:" in res.stderr and "32768" in res.stderr
