"""A model mixing sliding-window and full layers keeps the window saving only where the engine keeps a
cache per layer kind (``EngineProfile.keeps_layer_windows``).

Regression: ``gpuscout vram gemma-2-27b --context 8192 --engine "vllm 0.6"`` gave 2.16 GiB of KV cache, as
if the 23 sliding layers kept 4,096 tokens; vLLM's V0 block manager gives every layer the whole context:
46 layers x 8192 tokens x 8192 B (16 KV heads x 128 x K and V x 2 B) = 2.875 GiB. TGI (one equal KV
tensor per layer) and llama.cpp before its SWA cache did the same (recalled).
"""

from __future__ import annotations

import pytest

import gpuscout
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.kv_cache import kv_bytes_per_sequence, kv_read_bytes_per_step
from gpuscout.estimate.precision import resolve_kv_dtype
from gpuscout.knowledge.models import resolve_model

PER_LAYER_TOKEN = 2 * 16 * 128 * 2  # K and V, 16 KV heads x 128, bf16
FULL = 46 * 8192 * PER_LAYER_TOKEN  # every layer the whole 8,192 tokens: 2.875 GiB
WINDOWED = 23 * 8192 * PER_LAYER_TOKEN + 23 * 4096 * PER_LAYER_TOKEN  # 2.156 GiB


def _kv(engine: str, model: str = "gemma-2-27b") -> float:
    return memory_needed(model, "H100-SXM", engine=engine, context=8192).memory.kv_cache_gb * 1e9


@pytest.mark.parametrize("engine", ["vllm 0.6", "vllm 0.6.3", "vllm 0.9", "tgi", "tgi 2.0", "llama.cpp 2024"])
def test_engines_without_per_layer_windows_hold_the_whole_context_in_every_layer(engine: str) -> None:
    assert _kv(engine) == pytest.approx(FULL)
    assert FULL == 2.875 * 2**30


@pytest.mark.parametrize("engine", ["vllm", "vllm 0.10", "llama.cpp", "sglang", "hf"])
def test_engines_with_per_layer_windows_keep_the_window(engine: str) -> None:
    assert _kv(engine) == pytest.approx(WINDOWED)


def test_the_estimate_says_which_and_carries_it() -> None:
    old = gpuscout.estimate("gemma-2-27b", "H100-SXM", engine="vllm 0.6", context_in=8000, context_out=192)
    assert old.memory.kv_layer_windows is False
    assert "sizes every layer's cache at the whole context" in old.assumptions["kv_allocation"]
    assert "0.9.1" in old.assumptions["kv_allocation"] and "read in" in old.assumptions["kv_allocation"]
    new = gpuscout.estimate("gemma-2-27b", "H100-SXM", engine="vllm", context_in=8000, context_out=192)
    assert new.memory.kv_layer_windows is True
    assert "keep their last 4,096 tokens" in new.assumptions["kv_allocation"]
    # a model without sliding layers says nothing of them
    plain = gpuscout.estimate("llama-3.1-8b", "H100-SXM", engine="vllm 0.6", context_in=8000, context_out=192)
    assert "sliding" not in plain.assumptions["kv_allocation"]


def test_a_model_windowed_in_every_layer_is_not_concerned() -> None:
    # Mistral 7B v0.1 (every layer a 4,096 window): V0's block manager kept the window (recalled)
    assert _kv("vllm 0.6", "mistral-7b-v0.1") == pytest.approx(_kv("vllm", "mistral-7b-v0.1"))


def test_decode_reads_stay_the_windows() -> None:
    # the attention kernel is given each layer's window: what a step reads does not change
    spec, kv = resolve_model("gemma-2-27b"), resolve_kv_dtype("bf16")
    read = kv_read_bytes_per_step(spec, kv, 8192)
    assert read == pytest.approx(WINDOWED)
    assert kv_bytes_per_sequence(spec, kv, 8192, layer_windows=False) == pytest.approx(FULL)
    assert not resolve_engine("vllm 0.6").keeps_layer_windows()
    assert resolve_engine("vllm 0.6").kv_layer_windows_source.startswith("read in")  # stop 61


def test_the_cli_kv_line_says_no_window_where_the_engine_keeps_none() -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    args = ["estimate", "gemma-2-27b", "--gpu", "H100-SXM", "--context-in", "7000", "--context-out", "1192"]
    old = CliRunner().invoke(app, [*args, "--engine", "vllm 0.6"], terminal_width=200)
    assert old.exit_code == 0, old.output
    assert "2.88 GiB (368.0 KiB/token)" in old.output
    new = CliRunner().invoke(app, [*args, "--engine", "vllm"], terminal_width=200)
    assert "276.0 KiB/token at 8,192 tokens" in new.output
