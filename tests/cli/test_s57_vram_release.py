"""``vram``'s fits table said "sglang cannot run mxfp4-moe on them" of every GPU where the release named
predates the model (stop 57: `vram gpt-oss-20b --engine "sglang 0.4.6"`; gpt-oss fits in 15 GiB): the
cause is the release, said as the refusal says it; a release refused on some hardware names the release."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()


def _left_out(*args: str) -> dict[str, list[str]]:
    result = runner.invoke(app, ["vram", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return {entry["reason"]: entry["gpus"] for entry in data["fits_on_left_out"]}


def test_a_release_older_than_the_model_is_the_cause_said() -> None:
    causes = _left_out("gpt-oss-20b", "--engine", "sglang 0.4.6")
    assert "SGLang 0.4.6 predates this model's architecture" in causes
    assert not any("cannot run mxfp4" in why for why in causes)


def test_a_release_refused_on_some_hardware_is_said_too_old_for_them() -> None:
    """The card is the cause, not the precision ("vllm 0.6.3 cannot run bf16 on them" blamed bf16); the
    engine is named as written, without its launch flags (review)."""
    causes = _left_out("llama-3.1-8b", "--engine", "vllm 0.6.3 --max-num-seqs 64")
    too_old = causes.get("vllm 0.6.3 is too old a release for them (a later one runs them)", [])
    assert "B200" in too_old and "H100-SXM" not in too_old
    assert "K80" not in too_old  # no release runs there: its own cause
    assert not any("--max-num-seqs" in why for why in causes)
