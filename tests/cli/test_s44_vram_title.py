"""``gpuscout vram deepseek-r1`` titled itself "deepseek-v3 — infer": say both names, as ``estimate`` does."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from gpuscout.cli import app
from tests.cli.llama_config import write_llama_config

runner = CliRunner()


def _title(*args: str) -> str:
    result = runner.invoke(app, ["vram", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split("┏")[0].split())  # the title, on as many lines as the table is wide


def test_vram_says_the_name_typed_and_the_entry_sized(tmp_path: Path) -> None:
    assert _title("deepseek-r1").startswith("deepseek-r1 (as deepseek-v3) — infer, 4096 tokens")
    assert _title("deepseek-r1", "--task", "lora").startswith("deepseek-r1 (as deepseek-v3) — lora")
    assert _title("deepseek-v3").startswith("deepseek-v3 — infer")  # the entry's own name: once
    assert _title("deepseek-ai/DeepSeek-V3").startswith("deepseek-v3 — infer")
    config = write_llama_config(tmp_path)
    assert runner.invoke(app, ["models", "import", str(config), "--name", "myllama"]).exit_code == 0
    assert _title("myllama").startswith("myllama — infer")  # an imported model: no "(as"
    assert "(as" not in _title("anything", "--config", str(config))  # a config's model: its own name
