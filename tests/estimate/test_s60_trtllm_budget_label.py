"""TensorRT-LLM's memory budget says what is computed: kv_cache_free_gpu_mem_fraction (0.9) of the memory
left free once the weights, the activations and the runtime are in, not 0.9 of the card.

Regression: Llama-3.1-70B FP8 on 2 x H100-SXM at 32,768 tokens said "0.90 of 79.6 GiB ..." (71.6 GiB)
beside a usable figure of 80.88 GB (75.3 GiB).
"""

from __future__ import annotations

import re

import pytest

from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.memory import gib


def test_the_budget_reads_as_the_usable_figure() -> None:
    need = memory_needed(
        "llama-3.1-70b", "H100-SXM", gpus=2, precision="fp8", engine="tensorrt-llm", context=32768
    )
    m, budget = need.memory, need.assumptions["memory_budget"]
    found = re.search(
        r"([\d.]+) of the ([\d.]+) GiB left free of ([\d.]+) GiB .*: ([\d.]+) GiB usable", budget
    )
    assert found, budget
    share, free, card, usable = (float(x) for x in found.groups())
    assert "kv_cache_free_gpu_mem_fraction" in budget
    assert share == 0.9
    assert card == pytest.approx(gib(m.capacity_gb), abs=0.05)
    assert usable == pytest.approx(gib(m.usable_gb), abs=0.05)  # 75.3 GiB
    # what is free: the card less weights, activations and the runtime; 0.1 of it is left unused
    assert free == pytest.approx(
        gib(m.capacity_gb - m.weights_gb - m.activations_gb - m.overhead_gb), abs=0.05
    )
    assert card - 0.1 * free == pytest.approx(usable, abs=0.1)
    assert not budget.startswith("0.90 of 79.6")
