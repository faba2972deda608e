"""`recommend pretrain --global-batch`: the workload's ``global_batch_tokens`` on the CLI (a token count:
4M), its error naming the option, and the row's explanation stating the global batch (stop 61)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()
RUN = ["recommend", "pretrain", "llama-3.2-1b", "--tokens", "20B", "--gpu", "MI300X", "--provider", "oci"]


def test_the_option_reaches_the_row() -> None:
    result = runner.invoke(app, [*RUN, "--global-batch", "4M", "--json", "--top", "1"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["recommendations"]
    assert (
        "at most 4,000,000 tokens per step, the workload's global_batch_tokens" in row["config"]["training"]
    )


def test_the_explanation_states_the_global_batch_and_its_source() -> None:
    result = runner.invoke(app, [*RUN, "--explain", "1"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # as wrapped at the terminal's width
    assert "global batch: 19,073 optimizer steps of 1,048,576 tokens" in said
    assert "DeepSeek LLM (arXiv:2401.02954, section 3.1, eq. 1)" in said


def test_a_batch_under_one_sequence_is_an_error_naming_the_option() -> None:
    result = runner.invoke(app, [*RUN, "--global-batch", "1k"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        "error: --global-batch: 1,000 tokens per optimizer step is less than one sequence of --seq-len 4,096"
    )
