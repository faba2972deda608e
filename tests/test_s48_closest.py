"""Closest-name suggestions keep the near matches, not a tail of far ones after them."""

from __future__ import annotations

from gpuscout.errors import closest


def test_far_matches_after_a_near_one_are_dropped() -> None:
    models = ["whisper-large-v3", "phi-4", "phi-3-medium-4k", "mistral-nemo-12b", "kimi-k2", "llama-3.1-8b"]
    assert closest("whisper", models) == ["whisper-large-v3"]
    assert closest("lamdba", ["lambda", "vastai", "oci"]) == ["lambda"]


def test_equally_near_matches_are_all_kept() -> None:
    near = closest("H1000", ["H100-SXM", "H100-PCIe", "H100-NVL", "A100-SXM4-80GB"])
    assert set(near[:3]) == {"H100-SXM", "H100-PCIe", "H100-NVL"}
    assert closest("zzzz", ["lambda", "oci"]) == []
