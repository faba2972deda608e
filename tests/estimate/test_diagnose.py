"""``diagnose``: measured speed -> bound, fractions of peak, remedies with numbers."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.diagnose import diagnose
from tests.estimate.physics_specs import LLAMA3_8B


def test_batch1_decode_is_memory_bound_with_low_compute_use() -> None:
    # a CUDA-graph engine: HF transformers' eager generate() pays ~25 ms of host time per token of an 8B
    # model, more than its weight reads on a 4090, so there quantising buys only ~10 % (below the 1.1x
    # a remedy must promise)
    d = diagnose(LLAMA3_8B, "RTX 4090", measured_tps=50, precision="bf16", engine="vllm")
    assert d.bound == "memory"
    # ~16 GB per token at 50 tokens/s is ~800 GB/s of the 4090's 1008 GB/s
    assert d.achieved_bandwidth_gbps == pytest.approx(d.bytes_per_step * 50 / 1e9)
    assert 0.7 < d.bandwidth_fraction < 0.9
    assert d.compute_fraction < 0.02
    assert d.roofline_tps > 50
    text = " ".join(d.suggestions)
    assert "Quantise" in text and "Batch" in text and "Speculative" in text


def test_far_below_expectation_points_at_setup() -> None:
    d = diagnose(LLAMA3_8B, "H100 SXM", measured_tps=5, precision="bf16", engine="vllm")
    assert d.bound == "overhead"
    assert any("CPU offload" in s for s in d.suggestions)


def test_large_batch_can_be_compute_bound() -> None:
    d = diagnose(
        LLAMA3_8B,
        "H100 SXM",
        measured_tps=30,
        precision="bf16",
        engine="vllm",
        batch=1024,
        context=64,
    )
    assert d.bound == "compute"
    assert d.compute_fraction > 0.3


def test_rejects_nonsense_measurement() -> None:
    with pytest.raises(InvalidInputError) as err:
        diagnose(LLAMA3_8B, "H100 SXM", measured_tps=-3)
    assert err.value.field == "measured_tps"


def test_batching_suggestion_reports_steady_state_total() -> None:
    d = diagnose(LLAMA3_8B, "H100 SXM", measured_tps=100, precision="bf16", engine="vllm")
    line = next(s for s in d.suggestions if s.startswith("Batch 8"))
    total = float(line.split("~")[1].split(" ")[0].replace(",", ""))
    assert total > 4 * 100  # eight sequences share each weight read
