"""One answer to "is this layer split a pipeline": the serving physics and the estimate's words and
calibration flag ask the same predicate (``EngineProfile.has_pipeline``), and a named release older than
its engine's first pipeline is refused, not timed as one (stop 55)."""

from __future__ import annotations

import pytest

from gpuscout.estimate import estimate
from gpuscout.estimate.api import pipelines
from gpuscout.estimate.engines import resolve_engine

KW = dict(gpus=4, parallel="pipeline", concurrency=32, context_in=512, context_out=256)


@pytest.mark.parametrize("engine", ["vllm 0.4.2", "vllm 0.5.0", "sglang 0.4.1"])
def test_a_release_before_its_engines_pipeline_is_refused(engine: str) -> None:
    e = estimate("llama-3-70b", "A100-SXM-80GB", engine=engine, **KW)  # type: ignore[arg-type]
    assert not e.supported
    assert e.unsupported_field == "parallel"
    assert "has no pipeline" in e.unsupported_reason
    assert resolve_engine(engine).pipeline_since in e.unsupported_reason


@pytest.mark.parametrize(
    "engine", ["vllm 0.5.1", "vllm 0.6.3", "vllm", "sglang", "tensorrt-llm", "tensorrt-llm 0.9"]
)
def test_a_pipeline_is_said_and_flagged_uncalibrated_wherever_it_is_timed_as_one(engine: str) -> None:
    e = estimate("llama-3-70b", "A100-SXM-80GB", engine=engine, **KW)  # type: ignore[arg-type]
    assert e.supported and e.fits
    assert pipelines(resolve_engine(engine))
    # the static-batch TensorRT-LLM era is timed as a pipeline too: its words and flag now say so
    assert e.assumptions["parallel"].startswith("pipeline over 4 GPUs")
    assert not e.speed_calibrated


@pytest.mark.parametrize("engine", ["llama.cpp", "hf-transformers"])
def test_engines_without_a_pipeline_keep_their_calibrated_layer_split(engine: str) -> None:
    assert not pipelines(resolve_engine(engine))
