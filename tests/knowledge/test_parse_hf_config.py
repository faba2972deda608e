"""``parse_hf_config`` gives the spec with the context window it took, read once: an imported model's
notes word the same window (``user_models``) without parsing the RoPE scaling again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuscout.knowledge.hf_config import context_window, parse_hf_config, spec_from_hf_config
from tests.conftest import REFERENCE

YARN_4 = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}


def _qwen(rope: dict[str, Any] | None) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((REFERENCE / "hf_configs" / "Qwen--Qwen2.5-7B.json").read_text())
    return {**raw, "max_position_embeddings": 32768, "rope_scaling": rope}


@pytest.mark.parametrize("rope", [None, YARN_4, {"type": "linear", "factor": 1.0}])
def test_the_window_comes_with_the_spec(rope: dict[str, Any] | None) -> None:
    raw = _qwen(rope)
    spec, window = parse_hf_config(raw, name="q")
    assert window == context_window(raw)
    assert spec == spec_from_hf_config(raw, name="q")
    assert spec.max_position_embeddings == window.tokens
    assert (window.note in spec.notes) if window.note else ("context window" not in spec.notes)
