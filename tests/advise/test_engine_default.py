"""An inference workload that names no engine runs a GGUF precision on llama.cpp (its own file format)
and everything else on vLLM: the rule the CLI's `estimate` and the JSON API's /estimate follow too."""

from __future__ import annotations

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.workload import BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability
from gpuscout.estimate.engines import default_engine
from tests.advise.helpers import NOW, offer


@pytest.mark.parametrize(
    ("precision", "engine"),
    [
        ("q4_k_m", "llama.cpp"),
        ("gguf-q8_0", "llama.cpp"),
        ("f16", "llama.cpp"),
        ("bf16", "vllm"),
        (None, "vllm"),
    ],
)
def test_the_default_engine_follows_the_precision(precision: str | None, engine: str) -> None:
    assert default_engine(precision) == engine
    assert ServeWorkload(model="llama-3.1-8b", precision=precision).run_engine == engine
    batch = BatchWorkload(model="llama-3.1-8b", precision=precision, output_tokens_total=1e6)
    assert batch.run_engine == engine


def test_a_named_engine_is_kept_and_an_unnamed_one_is_not_written_out() -> None:
    w = ServeWorkload(model="llama-3.1-8b", precision="q4_k_m", engine="sglang")
    assert w.run_engine == "sglang"
    assert "engine" not in ServeWorkload(model="llama-3.1-8b", precision="q4_k_m").to_dict()
    assert default_engine("fp17") == "vllm"  # an unknown precision: the estimate names the field


def test_a_gguf_workload_is_served_by_llama_cpp_without_a_substitution() -> None:
    """Asked for Q4_K_M with no engine, a 4090 row runs llama.cpp as asked: no "vLLM cannot load GGUF,
    runs int4 instead" substitution, no warning about it."""
    box = offer("example", "RTX4090", memory=24.0, price=0.4, availability=Availability.AVAILABLE)
    w = ServeWorkload(model="llama-3.1-8b", precision="q4_k_m", concurrency=4, prompt_tokens=1000)
    (row,) = advise(w, [box], top=5, now=NOW).rows
    assert row.estimate is not None
    assert row.estimate.engine == "llama.cpp" and row.estimate.precision == "gguf-q4_k_m"
    assert row.substitution is None


def test_the_python_api_follows_the_same_rule() -> None:
    """`estimate` and `memory_needed` without an engine: llama.cpp for a GGUF precision, vLLM for the
    rest (the checkpoint's own format included); a named engine is taken at its word."""
    from gpuscout.estimate.api import estimate, memory_needed

    assert estimate("llama-3.1-8b", "RTX4090", precision="q4_k_m").engine == "llama.cpp"
    assert estimate("llama-3.1-8b", "RTX4090").engine == "vllm"
    assert memory_needed("llama-3.1-8b", "RTX4090", precision="q4_k_m").engine == "llama.cpp"
    named = estimate("llama-3.1-8b", "RTX4090", precision="q4_k_m", engine="vllm")
    assert named.engine == "vllm" and not named.supported
