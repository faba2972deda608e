"""``gpuscout estimate --prompt 0``: a run without a prompt shows no prefill speed.

Regression (renter review, stop 48): it showed "prefill (one prompt) 136 tokens/s", the speed of a
one-token prompt nobody asked for.
"""

from __future__ import annotations

from typer.testing import CliRunner

from gpuscout.cli import app

runner = CliRunner()


def _row(output: str, label: str) -> str:
    lines = [line for line in output.splitlines() if label in line]
    assert len(lines) == 1, output
    return lines[0]


def test_no_prompt_prints_a_dash_for_the_prompt_lines() -> None:
    res = runner.invoke(
        app, ["estimate", "llama-3.1-8b", "--gpu", "H100", "--prompt", "0"], env={"COLUMNS": "120"}
    )
    assert res.exit_code == 0, res.output
    prefill = _row(res.output, "prefill (one prompt)")
    assert "— (no prompt)" in prefill and "tokens/s" not in prefill
    assert "(no prompt)" in _row(res.output, "time to first token")
    # a one-token prompt is a prompt: its prefill speed is shown
    one = runner.invoke(
        app, ["estimate", "llama-3.1-8b", "--gpu", "H100", "--prompt", "1"], env={"COLUMNS": "120"}
    )
    assert one.exit_code == 0, one.output
    assert "tokens/s" in _row(one.output, "prefill (one prompt)") and "no prompt" not in one.output
