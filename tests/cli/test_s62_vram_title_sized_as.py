"""``gpuscout vram`` names the weight format, engine and KV-cache dtype it sized, as ``estimate``'s title
does (stop 62): ``vram deepseek-v3 --gpus 8 --gpu H200-SXM`` showed 78 GiB of weights per GPU and never
said they were FP8, and ``vram llama-3.1-8b --engine ollama`` never said it sized llama.cpp's GGUF F16;
only ``--json`` (``assumptions.precision``, ``engine``, ``kv_dtype``) did."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import memory_needed

runner = CliRunner()


def _title(*args: str, columns: str = "200") -> str:
    result = runner.invoke(app, ["vram", *args], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split("┏")[0].split())  # the title, on as many lines as the table is wide


def test_the_title_says_the_precision_engine_and_kv_dtype_sized() -> None:
    args = ("deepseek-v3", "--gpus", "8", "--gpu", "H200-SXM", "--context", "32000", "--batch", "16")
    need = memory_needed("deepseek-v3", "H200-SXM", gpus=8, batch=16, context=32000)
    said = f"{need.precision}, {need.engine}, KV {need.kv_dtype}"
    assert need.precision.startswith("fp8"), "premise: deepseek-v3 is sized in its own FP8"
    assert _title(*args) == f"deepseek-v3 — infer, 32000 tokens, batch 16, on 8 x H200-SXM: {said}"
    # at 80 columns too (the title wraps at its phrases, none dropped)
    assert _title(*args, columns="80").endswith(f"on 8 x H200-SXM: {said}")
    # the JSON says the same sizing in its assumptions' words
    data = json.loads(runner.invoke(app, ["vram", *args, "--json"]).output)
    assert data["assumptions"]["precision"].startswith("FP8")


def test_an_engine_and_kv_dtype_asked_are_said() -> None:
    assert _title("llama-3.1-8b", "--engine", "ollama").endswith(
        "on 1 x H100-SXM: gguf-f16, llama.cpp, KV fp16"
    )
    assert _title("llama-3.1-8b", "--kv-dtype", "fp8").endswith("on 1 x H100-SXM: bf16, vllm, KV fp8")
    # training: its own assumptions say how the base and adapters are held, not an engine's
    assert _title("llama-3.1-8b", "--task", "qlora").endswith("batch 1, on 1 x H100-SXM")
