"""``diagnose`` with no precision takes the one ``estimate`` takes, and says which.

``diagnose("deepseek-v3", "H200", gpus=8, ...)`` sized 16-bit weights (a 9.2 GB step, "Quantise to fp8:
~115 tokens/s") where ``estimate`` sizes DeepSeek-V3 as published, in block-scaled FP8; gpt-oss's MXFP4
experts and a quantized checkpoint's name ("qwen3-14b-awq") were lost the same way. The default is now
``estimate``'s (``estimate.api._model_and_precision``), and the verdict names the format it assumed.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import diagnose

SIZED = "Sized for {} weights, the checkpoint's own format (--precision names the one that ran)."


@pytest.mark.parametrize(
    ("model", "gpu", "gpus", "native"),
    [
        ("deepseek-v3", "H200", 8, "fp8-block"),
        ("gpt-oss-120b", "H100", 1, "mxfp4-moe"),
        ("qwen3-14b-awq", "L4", 1, "int4"),  # the name implies its checkpoint's format
        ("llama-3.1-8b", "H100", 1, "bf16"),
    ],
)
def test_no_precision_is_the_estimates_default(model: str, gpu: str, gpus: int, native: str) -> None:
    d = diagnose(model, gpu, measured_tps=20, gpus=gpus)
    est = estimate(model, gpu, gpus=gpus, context_in=1023, context_out=1)
    assert d.precision == est.precision == native
    assert d.verdict.endswith(SIZED.format(native))
    # the same diagnosis as naming that format
    named = diagnose(model, gpu, measured_tps=20, gpus=gpus, precision=native)
    assert d.bytes_per_step == pytest.approx(named.bytes_per_step)
    assert d.expected_tps == pytest.approx(named.expected_tps)


def test_fp8_is_not_offered_to_a_model_already_in_fp8() -> None:
    d = diagnose("deepseek-v3", "H200", measured_tps=20, gpus=8)
    assert not any(s.startswith("Quantise to fp8") for s in d.suggestions), d.suggestions
    sixteen = diagnose("deepseek-v3", "H200", measured_tps=20, gpus=8, precision="bf16")
    assert d.bytes_per_step < 0.6 * sixteen.bytes_per_step  # 1-byte weights, not 2


@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_a_named_precision_is_not_said_to_be_assumed(precision: str) -> None:
    d = diagnose("deepseek-v3", "H200", measured_tps=20, gpus=8, precision=precision)
    assert "Sized for" not in d.verdict


@pytest.mark.parametrize("word", ["native", "auto"])
def test_native_asks_for_the_default(word: str) -> None:
    d = diagnose("gpt-oss-120b", "H100", measured_tps=20, precision=word)
    assert d.precision == "mxfp4-moe" and d.verdict.endswith(SIZED.format("mxfp4-moe"))


def test_a_format_the_engine_cannot_run_there_is_said_and_not_priced() -> None:
    """vLLM FP8 on a V100 (CC 7.0) does not run: the diagnosis says so, and neither compares the user's
    speed with "what vLLM usually reaches here" nor prices speculative decoding from that speed."""
    d = diagnose("llama-3.1-8b", "V100", measured_tps=28, precision="fp8", engine="vllm")
    assert d.verdict.startswith("Not runnable as given")
    assert "compute capability" in d.verdict
    assert not any("usually reaches" in s for s in d.suggestions)
    assert not any(s.startswith("Speculative") for s in d.suggestions)
    runs = diagnose("llama-3.1-8b", "A10G", measured_tps=10, precision="bf16", engine="vllm")
    assert not runs.verdict.startswith("Not runnable")
    assert any("usually reaches" in s for s in runs.suggestions)


def test_the_cli_takes_the_checkpoints_format_and_names_it_in_the_title() -> None:
    import json

    from typer.testing import CliRunner

    from gpuscout.cli import app

    args = ["diagnose", "deepseek-v3", "--gpu", "H200", "--gpus", "8", "--measured-tps", "20"]
    out = CliRunner().invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["precision"] == "fp8-block"
    shown = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert "fp8-block" in shown.output
