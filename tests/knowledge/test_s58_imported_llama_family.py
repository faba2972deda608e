"""An imported Llama 3.x config.json is judged by the architecture rules (stop 58): its family was its
model_type ("llama"), which no rule names, so vLLM 0.4.0 was timed on Llama 3.1's config though that release
refuses its rope scaling (rope_type llama3, first run by vLLM 0.5.3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuscout import estimate
from gpuscout.knowledge.hf_config import spec_from_hf_config

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "reference" / "hf_configs"


def _config(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CONFIGS / name).read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize(
    "name", ["meta-llama--Meta-Llama-3.1-8B.json", "meta-llama--Llama-3.3-70B-Instruct.json"]
)
def test_a_llama3_rope_config_is_refused_by_releases_before_its_rope_scaling(name: str) -> None:
    spec = spec_from_hf_config(_config(name))
    assert spec.family == "llama (rope_type llama3)"
    old = estimate(spec, "H100-SXM", engine="vllm 0.4.0")
    assert not old.supported and "predates this model's architecture" in old.unsupported_reason
    assert old.assumptions["alternatives"] == "vllm 0.5.3 or later"
    assert not estimate(spec, "H100-SXM", engine="tgi 2.1.1").supported
    assert not estimate(spec, "H100-SXM", engine="transformers 4.42.0").supported
    assert estimate(spec, "H100-SXM", engine="vllm 0.5.3").supported


def test_a_llama_config_without_that_rope_scaling_keeps_its_model_type() -> None:
    cfg = _config("meta-llama--Meta-Llama-3.1-8B.json")
    cfg.pop("rope_scaling")
    spec = spec_from_hf_config(cfg)
    assert spec.family == "llama"
    assert estimate(spec, "H100-SXM", engine="vllm 0.4.0").supported
