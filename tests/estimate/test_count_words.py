"""The estimators' notes and warnings agree with their counts: one request, one sequence, one GPU,
one step, one window read in the singular, as more did in the plural already."""

from __future__ import annotations

import pytest

from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.api import estimate, memory_needed
from gpuscout.estimate.diffusion import estimate_images
from gpuscout.estimate.training import describe_layout, estimate_training
from gpuscout.estimate.transcription import estimate_transcription


def _queue_warning(num_requests: int) -> str:
    est = estimate("llama-3.1-8b", "H100-SXM", request_rate=100.0, num_requests=num_requests)
    return next(w for w in est.warnings if "exceeds the capacity" in w)


def test_a_queue_over_one_request_says_one_request() -> None:
    assert _queue_warning(1).endswith(" over 1 request")
    assert _queue_warning(2).endswith(" over 2 requests")


def test_a_memory_warning_where_one_sequence_fits_says_it_fits() -> None:
    need = memory_needed("llama-3.1-8b", "RTX4090", batch=4, context=32768)
    assert need.max_batch == 1
    assert any(w.endswith("; 1 sequence of this length fits") for w in need.warnings), need.warnings


def test_a_sharded_layout_on_one_gpu_says_one_gpu() -> None:
    assert describe_layout("fsdp", False, "full", 1, 2048, 1).startswith(
        "FSDP across 1 GPU (per-parameter sharding);"
    )
    assert describe_layout("zero3", False, "full", 1, 2048, 1).startswith("ZERO3 across 1 GPU;")
    assert describe_layout("zero3", False, "full", 2, 2048, 1).startswith("ZERO3 across 2 GPUs;")
    assert describe_layout("fsdp", False, "selective", 3, 4096, 2, 40).endswith(
        "micro-batch 2 x 4,096 tokens per GPU, 40 accumulated per step (2 x 3 GPUs x 40 = 240 sequences, "
        "983,040 tokens per optimizer step)"
    )


def test_a_layout_one_gpu_cannot_hold_says_one_gpu_does_not_split() -> None:
    with pytest.raises(ConfigurationRejected, match=r"1 GPU does not split into TP 2 x PP 1 x CP 1"):
        estimate_training("llama-3.1-8b", "H100-SXM", gpus=1, tp=2)


def test_sharding_over_one_data_parallel_gpu_says_one_gpu() -> None:
    res = estimate_training("llama-3.1-8b", "H100-SXM", gpus=2, tp=2, sharding="fsdp")
    assert res.assumptions["sharding"].startswith("fsdp across 1 data-parallel GPU (")


def test_one_denoising_step_is_one_step_of_one_pass() -> None:
    steps = estimate_images("flux.1-dev", "H100-SXM", steps=1).assumptions["steps"]
    assert steps.startswith("1 step x 1 pass ") and "(es)" not in steps


def test_audio_of_one_window_is_one_window() -> None:
    est = estimate_transcription("whisper-large-v3", "L4", audio_s=20.0, batch=4)
    assert est.assumptions["windows"].startswith("1 x 30 s chunk, 1 at a time (batch 4 asked: only 1 chunk)")
    fw = estimate_transcription("whisper-large-v3", "L4", audio_s=20.0, batch=4, engine="faster-whisper")
    assert fw.assumptions["windows"].startswith(
        "1 x 30 s window, no overlap (BatchedInferencePipeline), 1 at a time (batch 4 asked: only 1 window)"
    )
