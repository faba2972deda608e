"""A quantized checkpoint's name sets the precision the advisor runs when no precision is given, as
``gpuscout estimate`` takes it: "Qwen/Qwen3-8B-AWQ" is ranked as int4 weights (it was ranked as bf16 on
vLLM), a "-GGUF" repo as its Q4_K_M file on llama.cpp; the answer says so."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability, Interconnect
from tests.advise.helpers import offer

NOW = datetime(2026, 12, 5, tzinfo=UTC)
BOX = offer(
    "example", "L40S", 1, 1.0, memory=48.0, interconnect=Interconnect.PCIE,
    availability=Availability.AVAILABLE, observed_at=NOW,
)  # fmt: skip


@pytest.mark.parametrize(
    ("model", "precision", "engine"),
    [
        ("Qwen/Qwen3-8B-AWQ", "int4", "vllm"),
        ("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "gguf-q4_k_m", "llama.cpp"),
    ],
)
def test_the_checkpoint_name_sets_the_precision(model: str, precision: str, engine: str) -> None:
    for w in (
        ServeWorkload(model=model, concurrency=4, latency_targets="none"),
        BatchWorkload(model=model, output_tokens_total=1e6),
    ):
        answer = advise(w, [BOX], top=3, now=NOW)
        (r,) = answer.rows
        assert r.estimate is not None and (r.estimate.precision, r.estimate.engine) == (precision, engine)
        assert any("as the checkpoint's name says" in t for t in answer.targets)


def test_a_precision_given_wins_over_the_name() -> None:
    w = BatchWorkload(model="Qwen/Qwen3-8B-AWQ", precision="bf16", output_tokens_total=1e6)
    answer = advise(w, [BOX], top=3, now=NOW)
    (r,) = answer.rows
    assert r.estimate is not None and r.estimate.precision == "bf16"
    assert not any("checkpoint's name" in t for t in answer.targets)
