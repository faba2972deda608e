"""A speech engine is judged on the accelerator before it is timed (stop 59, renter pass): faster-whisper
(CTranslate2: CPU and NVIDIA CUDA backends, float16 on compute capability 7.0+, int8 6.1+, bfloat16
8.0+) was given a speed on a TPU, Trainium, Inferentia and Gaudi, and transformers (PyTorch) on a K80,
which ``images`` refuses for the same PyTorch."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.transcription import estimate_transcription


@pytest.mark.parametrize("gpu", ["TPU-v5e", "Gaudi2", "Inferentia2"])
def test_faster_whisper_is_refused_where_ctranslate2_has_no_backend(gpu: str) -> None:
    e = estimate_transcription("whisper-large-v3", gpu, engine="faster-whisper")
    assert not e.supported and not e.fits
    assert e.realtime_factor is None and e.seconds is None and e.rtf is None
    assert "CTranslate2" in e.unsupported_reason and "[inferred]" in e.unsupported_reason
    assert "transformers engine" in e.assumptions["alternatives"]
    assert e.warnings[0] == e.unsupported_reason


def test_transformers_whisper_is_refused_on_kepler_as_diffusers_is() -> None:
    e = estimate_transcription("whisper-large-v3", "K80")
    assert not e.supported and e.realtime_factor is None
    assert "Kepler" in e.unsupported_reason and "PyTorch" in e.unsupported_reason


@pytest.mark.parametrize(
    ("gpu", "precision", "runs"),
    [
        ("P100-PCIe-16GB", "fp16", False),  # cc 6.0: no efficient float16 in CTranslate2
        ("P100-PCIe-16GB", "int8", False),  # int8 on a GPU needs 6.1
        ("P100-PCIe-16GB", "fp32", True),
        ("P40", "int8", True),  # cc 6.1
        ("T4", "fp16", True),
        ("T4", "bf16", False),  # bfloat16 needs 8.0
        ("L4", "bf16", True),
    ],
)
def test_ctranslate2_compute_types_follow_the_compute_capability(
    gpu: str, precision: str, runs: bool
) -> None:
    e = estimate_transcription("whisper-large-v3", gpu, engine="faster-whisper", precision=precision)
    assert e.supported is runs
    assert (e.realtime_factor is not None) is runs


def test_an_unchecked_platform_runs_with_its_caveat_said() -> None:
    e = estimate_transcription("whisper-large-v3", "MI300X", engine="faster-whisper")
    assert e.supported and e.realtime_factor
    assert any("ROCm build of CTranslate2" in w and "[unverified]" in w for w in e.warnings)


def test_a_supported_gpu_gets_no_platform_warning() -> None:
    e = estimate_transcription("whisper-large-v3", "H100-SXM")
    assert e.supported and e.realtime_factor and e.realtime_factor > 0
    assert not any("not supported" in w or "PyTorch" in w for w in e.warnings)


def test_the_cli_gives_the_reason_and_no_speed() -> None:
    runner = CliRunner()
    args = ["transcribe", "whisper-large-v3", "--gpu", "tpu-v5e", "--engine", "faster-whisper"]
    out = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    assert "not supported" in out.output and "would run" in out.output
    assert "faster than real time" not in out.output
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert data["supported"] is False and data["realtime_factor"] is None and data["seconds"] is None
