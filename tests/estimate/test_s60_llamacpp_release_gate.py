""" "llama.cpp 2024" predates DeepSeek-V3 (and the other 2025 architectures) (stop 60).

The 2023-2024 llama.cpp builds (the "2024" era) took DeepSeek-V3 with its MLA latent cache and no word,
while "vllm 0.6" already said that release predates the architecture. llama.cpp numbers builds, not
releases: the era stands for the release "2024" (``EngineEra.release``) that the architecture rules
(``architecture_support.csv``'s llama.cpp rows, by year) judge.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate import estimate
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.support import release_refusal
from gpuscout.knowledge.architecture_support import PREDATES, architecture_rule
from gpuscout.knowledge.models import resolve_model


def test_llama_cpp_2024_predates_deepseek_v3() -> None:
    need = memory_needed(
        "deepseek-v3", "H200-SXM", gpus=8, engine="llama.cpp 2024", precision="q4_k_m", context=8192
    )
    assert not need.supported
    said = " ".join([need.assumptions.get("support", ""), *need.warnings])
    assert f"llama.cpp 2024 {PREDATES}" in said
    est = estimate(
        "deepseek-v3", "H200-SXM", gpus=8, engine="llama.cpp 2024", precision="q4_k_m", context_in=512
    )
    assert not est.supported and PREDATES in est.unsupported_reason
    assert "January 2025" in est.unsupported_reason


@pytest.mark.parametrize("model", ["deepseek-r1", "kimi-k2", "gpt-oss-20b", "qwen3-8b", "qwen3-30b-a3b"])
def test_llama_cpp_2024_predates_the_2025_architectures(model: str) -> None:
    spec = resolve_model(model)
    found = release_refusal(resolve_engine("llama.cpp 2024"), spec.family)
    assert found is not None and found.reason.startswith(f"llama.cpp 2024 {PREDATES}")


@pytest.mark.parametrize("engine", ["llama.cpp", "llama.cpp b4000", "llama.cpp --flash-attn"])
def test_todays_llama_cpp_and_unmapped_builds_are_not_judged(engine: str) -> None:
    assert release_refusal(resolve_engine(engine), resolve_model("deepseek-v3").family) is None


def test_older_architectures_still_run_on_the_2024_builds() -> None:
    for model in ("llama-3.1-8b", "mixtral-8x7b", "qwen2.5-7b"):
        assert release_refusal(resolve_engine("llama.cpp 2024"), resolve_model(model).family) is None
    est = estimate("llama-3-8b", "RTX4090", engine="llama.cpp 2024", precision="q4_k_m", context_in=512)
    assert est.supported


def test_the_rule_is_data() -> None:
    rule = architecture_rule("llama.cpp", "deepseek_v3")
    assert rule is not None and rule.since == "2025" and not rule.at_least
    assert resolve_engine("llama.cpp 2024").era_release == "2024"
