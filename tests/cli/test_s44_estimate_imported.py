"""``gpuscout estimate`` for a model the curated table does not know, and its KV cache per token.

An imported model (``gpuscout models import``) was sized, then the table's title looked the name up in
the curated models alone: "error: model: unknown name 'myllama'" (``--json`` worked); so did a model
given as ``--config``. The KV line gave the full-attention bytes per token beside a cache that
sliding-window layers keep smaller: gpt-oss-120b "8.52 GB (72.0 KiB/token)" for 7 x 32,868 tokens,
which would be 17 GB.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import estimate
from gpuscout.estimate.memory import gib

runner = CliRunner()
LLAMA = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-5,
    "rope_theta": 500000.0,
    "torch_dtype": "bfloat16",
    "tie_word_embeddings": False,
}


def _flat(text: str) -> str:
    """The table's text with its borders gone and its wrapped cells joined."""
    return " ".join(re.sub(r"[│┃┏┓┗┛┡┩└┘┌┐━─╇┳┻┬┴]", " ", text).split())


@pytest.fixture()
def config(tmp_path: Path) -> Path:
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(LLAMA))
    return path


def test_an_imported_model_is_estimated_by_its_name(config: Path) -> None:
    imported = runner.invoke(app, ["models", "import", str(config), "--name", "myllama"])
    assert imported.exit_code == 0, imported.output
    res = runner.invoke(app, ["estimate", "myllama", "--gpu", "H100"])
    assert res.exit_code == 0, res.output
    assert "unknown name" not in res.output and "error" not in res.output
    assert "myllama on 1 x H100-SXM: bf16" in res.output
    assert "128.0 KiB/token" in _flat(res.output)  # 32 layers x 8 KV heads x 128 x (K + V) x 2 B


def test_a_config_file_is_estimated_under_its_own_name(config: Path) -> None:
    res = runner.invoke(app, ["estimate", "anything", "--config", str(config), "--gpu", "H100"])
    assert res.exit_code == 0, res.output
    assert "unknown name" not in res.output and "cfg on 1 x H100-SXM" in res.output


def test_a_name_sized_as_another_model_still_says_so() -> None:
    res = runner.invoke(app, ["estimate", "deepseek-r1", "--gpu", "H200", "--gpus", "8"])
    assert res.exit_code == 0, res.output
    assert "deepseek-r1 (as deepseek-v3) on 8 x H200-SXM" in res.output


def test_the_kv_bytes_per_token_times_the_tokens_held_is_the_cache_shown() -> None:
    args = {"gpus": 1, "context_in": 32768, "context_out": 100, "concurrency": 16}
    est = estimate("gpt-oss-120b", "H100", **args)  # type: ignore[arg-type]
    long_prompts = ["--prompt", "32768", "--output", "100", "--concurrency", "16"]
    res = runner.invoke(app, ["estimate", "gpt-oss-120b", "--gpu", "H100", *long_prompts])
    assert res.exit_code == 0, res.output
    flat = _flat(res.output)
    found = re.search(
        r"KV cache ([\d.]+) GiB \(([\d.]+) KiB/token at ([\d,]+) tokens: (\d+) of (\d+) layers", flat
    )
    assert found, flat
    shown_gib, per_token_kib = float(found[1]), float(found[2])
    tokens = int(found[3].replace(",", ""))
    assert tokens == 32868 and (found[4], found[5]) == ("18", "36")
    assert est.batch == 7 and shown_gib == pytest.approx(gib(est.memory.kv_cache_gb), abs=0.005)
    # 7 sequences x 32,868 tokens x the figure is the cache (to the 16-token blocks), not twice it
    assert est.batch * tokens * per_token_kib * 1024 / 2**30 == pytest.approx(shown_gib, rel=0.01)
    assert "72.0 KiB/token" not in flat
    # a context within the window keeps every token on every layer: the full figure, as before
    short = runner.invoke(
        app, ["estimate", "gpt-oss-120b", "--gpu", "H100", "--prompt", "64", "--output", "32"]
    )
    assert short.exit_code == 0, short.output
    assert "(72.0 KiB/token)" in _flat(short.output)
