"""A ``config.json`` that describes no possible model is refused by the field at fault.

``gpuscout models import`` took num_key_value_heads 5 with 32 attention heads (transformers refuses it:
5 KV heads cannot serve 32 query heads in equal groups) as a 7.93 B model; hidden_size 1e9 as
"80,001,632,833.00 B parameters" that `vram` then sized at 160,003,265,666 GB; rope_theta NaN (Python's
JSON reader takes ``NaN``) as if it were a number. Each is now an ``InvalidInputError`` naming the field
and what is accepted, on every path that reads a config: the parser, ``gpuscout.loaders`` (the Python
API), ``gpuscout.user_models.import_model`` and the CLI; nothing is kept.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.hf_config import (
    MAX_HIDDEN_SIZE,
    MAX_TOTAL_PARAMS,
    parse_hf_config,
    spec_from_hf_config,
)
from gpuscout.knowledge.params import count_params
from gpuscout.loaders import model_from_hf_config
from gpuscout.user_models import import_model, load_imported, models_dir

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "reference" / "hf_configs"
runner = CliRunner()

LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "_name_or_path": "t/t-model",
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rope_theta": 500000.0,
}


def _cfg(**changes: Any) -> dict[str, Any]:
    return {**LLAMA, **changes}


def _refused(cfg: dict[str, Any]) -> InvalidInputError:
    with pytest.raises(InvalidInputError) as exc:
        spec_from_hf_config(cfg)
    return exc.value


def test_kv_heads_must_divide_the_attention_heads() -> None:
    err = _refused(_cfg(num_key_value_heads=5))
    assert err.field == "num_key_value_heads"
    assert "5 does not divide num_attention_heads 32" in err.message
    assert err.accepted == "a divisor of 32: 1, 2, 4, 8, 16, 32"
    assert _refused(_cfg(num_key_value_heads=64)).field == "num_key_value_heads"  # more KV than query heads
    assert _refused(_cfg(num_key_value_heads="8")).field == "num_key_value_heads"  # a string, not a number
    for kv in (1, 2, 4, 8, 16, 32):
        assert spec_from_hf_config(_cfg(num_key_value_heads=kv)).num_key_value_heads == kv


def test_falcon_kv_heads_are_checked_under_their_own_name() -> None:
    falcon = {
        "model_type": "falcon",
        "n_layer": 60,
        "hidden_size": 8192,
        "n_head": 128,
        "n_head_kv": 7,
        "vocab_size": 65024,
        "new_decoder_architecture": True,
    }
    assert _refused(falcon).field == "n_head_kv"
    assert spec_from_hf_config({**falcon, "n_head_kv": 8}).num_key_value_heads == 8


def test_hidden_size_must_split_into_the_heads_unless_head_dim_is_given() -> None:
    err = _refused(_cfg(hidden_size=4100))
    assert err.field == "hidden_size" and "not a multiple of num_attention_heads 32" in err.message
    assert err.accepted == "a multiple of 32, or a head_dim"
    # Gemma-style: an explicit head_dim need not be hidden / heads
    assert spec_from_hf_config(_cfg(hidden_size=4100, head_dim=128)).head_dim == 128
    assert _refused(_cfg(head_dim=0)).field == "head_dim"
    assert _refused(_cfg(head_dim=128.5)).field == "head_dim"


def test_sizes_beyond_any_published_model_are_refused_by_name() -> None:
    err = _refused(_cfg(hidden_size=1_000_000_000))
    assert err.field == "hidden_size" and "1,000,000,000 is out of range" in err.message
    assert err.accepted is not None and f"{MAX_HIDDEN_SIZE:,}" in err.accepted
    assert "no published model" in err.accepted
    for field, value in (
        ("num_hidden_layers", 100_000),
        ("num_attention_heads", 1 << 20),
        ("intermediate_size", 10**9),
        ("vocab_size", 10**9),
        ("max_position_embeddings", 10**12),
    ):
        assert _refused(_cfg(**{field: value})).field == field, field
    # the largest sizes published still pass: Llama 3.1 405B's hidden 16,384 / 126 layers / 53,248 MLP
    big = spec_from_hf_config(
        _cfg(hidden_size=16384, num_hidden_layers=126, num_attention_heads=128, intermediate_size=53248)
    )
    assert 400 < count_params(big).total / 1e9 < 410


def test_a_model_larger_than_ten_trillion_parameters_is_refused() -> None:
    # every field within its own bound, the whole far beyond any published model
    cfg = _cfg(hidden_size=65536, num_hidden_layers=1024, num_attention_heads=512, intermediate_size=262144)
    err = _refused(cfg)
    assert err.field == "config" and "trillion parameters" in err.message
    assert err.accepted is not None and f"{MAX_TOTAL_PARAMS // 10**12} trillion" in err.accepted


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"rope_theta": math.nan}, "rope_theta"),
        ({"rope_theta": math.inf}, "rope_theta"),
        ({"rope_theta": -1.0}, "rope_theta"),
        ({"rms_norm_eps": math.nan}, "rms_norm_eps"),
        ({"rope_scaling": {"rope_type": "yarn", "factor": math.inf}}, "rope_scaling.factor"),
    ],
)
def test_numbers_must_be_finite(changes: dict[str, Any], field: str) -> None:
    err = _refused(_cfg(**changes))
    assert err.field == field
    assert "must be a" in err.message


def test_a_rope_factor_that_overflows_is_an_error_not_a_traceback() -> None:
    err = _refused(_cfg(rope_scaling={"rope_type": "yarn", "factor": 1e300}))
    assert err.field == "rope_scaling" and "tokens" in err.message


def test_every_published_config_in_the_fixtures_still_parses() -> None:
    paths = sorted(CONFIGS.glob("*.json"))
    assert len(paths) >= 20
    for path in paths:
        spec = parse_hf_config(json.loads(path.read_text()), name=path.stem.lower()).spec
        assert count_params(spec).total > 0, path.name


def test_the_python_api_and_the_import_refuse_it_and_keep_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_cfg(num_key_value_heads=5)))
    with pytest.raises(InvalidInputError) as exc:
        model_from_hf_config(path)
    assert exc.value.field == "num_key_value_heads"
    with pytest.raises(InvalidInputError) as exc:
        import_model(str(path), name="t-kv5")
    assert exc.value.field == "num_key_value_heads"
    assert not list(models_dir().glob("*.json"))


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (json.dumps(_cfg(num_key_value_heads=5)), "num_key_value_heads"),
        (json.dumps(_cfg(hidden_size=1_000_000_000)), "hidden_size"),
        (json.dumps(_cfg()).replace("500000.0", "NaN"), "rope_theta"),
    ],
)
def test_the_cli_says_the_field_and_exits_2(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(text)
    result = runner.invoke(app, ["models", "import", str(path), "--name", "t-bad"])
    assert result.exit_code == 2, result.output
    assert f"{field}:" in result.output and "accepted" in result.output
    assert "Traceback" not in result.output and "Imported" not in result.output
    assert not (models_dir() / "t-bad.json").exists()
    vram = runner.invoke(app, ["vram", "x", "--config", str(path)])
    assert vram.exit_code == 2 and f"{field}:" in vram.output and "Traceback" not in vram.output


def test_an_impossible_config_kept_before_is_reported_not_loaded() -> None:
    # a file that an earlier version imported: listed as unreadable, the other imports unharmed
    directory = models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    for name, cfg in (("t-kv5", _cfg(num_key_value_heads=5)), ("t-good", _cfg())):
        record = {"format": 1, "name": name, "source": "test", "config": cfg}
        (directory / f"{name}.json").write_text(json.dumps(record))
    loaded = load_imported()
    assert [s.name for s in loaded.specs] == ["t-good"]
    assert len(loaded.problems) == 1 and "num_key_value_heads" in loaded.problems[0]
