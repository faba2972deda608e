"""Kimi K2.5 has a row (stop 69), read in its config.json copy (tests/fixtures/reference/hf_configs, which
imports equal to the row: test_hf_config.py): Kimi K2's text model with int4 experts, under a multimodal
wrapper whose first releases are its own."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params


def test_it_is_kimi_k2_thinking_s_architecture_and_format() -> None:
    k25, thinking = resolve_model("moonshotai/Kimi-K2.5"), resolve_model("kimi-k2-thinking")
    assert k25.name == "kimi-k2.5" and k25.family == "kimi_k25"
    assert k25.native_precision == "int4-moe" and k25.max_position_embeddings == 262_144
    assert count_params(k25) == count_params(thinking)


@pytest.mark.parametrize(
    ("engine", "runs"),
    [
        ("vllm 0.14.1", False),
        ("vllm 0.16.0", True),
        ("sglang 0.5.8", False),
        ("sglang 0.5.9", True),
        ("transformers 5.12.1", False),
        ("transformers 5.13.0", True),
    ],
)
def test_releases_before_it_are_refused(engine: str, runs: bool) -> None:
    est = estimate("kimi-k2.5", "H200", gpus=8, engine=engine)
    assert est.supported is runs, est.unsupported_reason
    if not runs:
        assert "predates this model's architecture" in est.unsupported_reason
