"""Without ``parallel``, every face splits a model over several GPUs the engine's own way.

Regression: ``gpuscout.estimate`` (and ``memory_needed``, the JSON API) defaulted to tensor parallel
while the CLI and the advisor took the engine's default (a layer split for llama.cpp and HF
transformers): Llama-3.1-70B Q4_K_M on 4x RTX 4090 came out at 47.5 tokens/s in Python (tensor) and
18.1 in the CLI (layer); llama.cpp's layer split is measured near 19 on 2x 4090.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import gpuscout
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import memory_needed, parallel_mode
from gpuscout.estimate.engines import resolve_engine


@pytest.mark.parametrize(
    ("engine", "mode"), [("llama.cpp", "layer"), ("hf-transformers", "layer"), ("vllm", "tensor")]
)
def test_parallel_none_is_the_engines_own(engine: str, mode: str) -> None:
    assert parallel_mode(None, engine) == mode == resolve_engine(engine).default_parallel
    assert parallel_mode(None, resolve_engine(engine)) == mode
    assert parallel_mode("tp", engine) == "tensor"  # a stated mode stands


def test_a_bad_parallel_still_names_the_field() -> None:
    with pytest.raises(InvalidInputError) as exc:
        parallel_mode("diagonal", "vllm")
    assert exc.value.field == "parallel"


def test_the_python_api_splits_a_gguf_model_by_layers_as_the_cli_does() -> None:
    args = {"gpus": 4, "precision": "q4_k_m"}
    est = gpuscout.estimate("llama-3.1-70b", "RTX 4090", **args)
    assert est.engine == "llama.cpp" and est.parallel == "layer"
    layer = gpuscout.estimate("llama-3.1-70b", "RTX 4090", parallel="layer", **args)
    tensor = gpuscout.estimate("llama-3.1-70b", "RTX 4090", parallel="tensor", **args)
    assert est.output_tokens_per_s_total == pytest.approx(layer.output_tokens_per_s_total)
    assert est.output_tokens_per_s_total < tensor.output_tokens_per_s_total
    res = CliRunner().invoke(
        app,
        ["estimate", "llama-3.1-70b", "--gpu", "RTX 4090", "--gpus", "4", "--precision", "q4_k_m", "--json"],
    )
    assert res.exit_code == 0, res.output
    cli = json.loads(res.stdout)
    assert cli["parallel"] == "layer"
    assert cli["output_tokens_per_s_total"] == pytest.approx(est.output_tokens_per_s_total)


def test_the_servers_default_stays_tensor_parallel() -> None:
    est = gpuscout.estimate("llama-3.1-70b", "H100", gpus=4)
    assert est.engine == "vllm" and est.parallel == "tensor"


def test_memory_needed_splits_the_engines_way() -> None:
    need = memory_needed("llama-3.1-70b", "RTX 4090", gpus=4, precision="q4_k_m")
    layer = memory_needed("llama-3.1-70b", "RTX 4090", gpus=4, precision="q4_k_m", parallel="layer")
    assert need.memory.total_gb == pytest.approx(layer.memory.total_gb)
