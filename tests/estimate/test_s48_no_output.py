"""``context_out=0`` (``--output 0``): a prompt-only run, kept because the accuracy benchmark and the
memory tests size prefill and fit with it; it gives no output figure (0, "—" on the CLI) and says so.

Regression: it answered a time per output token and "output tokens/s" equal to its requests/s, as if a
request generated a token after its prompt.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import gpuscout
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.api import NO_OUTPUT_NOTE

runner = CliRunner()
SETUP = {"model": "llama-3.1-8b", "gpu": "H100-SXM"}


@pytest.mark.parametrize("load", [{}, {"concurrency": 8}, {"request_rate": 2.0}, {"batch": "max"}])
def test_no_output_gives_no_output_figures_and_says_so(load: dict[str, object]) -> None:
    est = gpuscout.estimate(**SETUP, context_in=2048, context_out=0, **load)  # type: ignore[arg-type]
    assert est.fits and est.supported
    assert est.tpot_ms == 0 and est.decode_tokens_per_s == 0 and est.output_tokens_per_s_total == 0
    assert est.step_ms == {} and est.step_summary() == ""
    assert NO_OUTPUT_NOTE in est.warnings
    # what a prompt-only run does have: the prompt's time and the requests it serves
    assert est.ttft_ms > 0 and est.requests_per_s > 0 and est.prefill_tokens_per_s > 0


@pytest.mark.parametrize("load", [{}, {"concurrency": 8}, {"request_rate": 2.0}])
def test_the_prompt_is_timed_as_a_one_token_request(load: dict[str, object]) -> None:
    """Where the batch is not capped by memory (one token more of context can change what "max" holds)."""
    est = gpuscout.estimate(**SETUP, context_in=2048, context_out=0, **load)  # type: ignore[arg-type]
    one = gpuscout.estimate(**SETUP, context_in=2048, context_out=1, **load)  # type: ignore[arg-type]
    assert est.ttft_ms == pytest.approx(one.ttft_ms) and est.requests_per_s == pytest.approx(
        one.requests_per_s
    )
    assert one.tpot_ms > 0 and one.output_tokens_per_s_total > 0 and NO_OUTPUT_NOTE not in one.warnings


def test_the_cli_shows_a_dash_for_the_output_figures() -> None:
    args = ["estimate", "llama-3.1-8b", "--gpu", "H100-SXM", "--prompt", "2048", "--output", "0"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in res.output.splitlines()
            if line.count("│") == 3}  # fmt: skip
    for row in ("time per output token", "per sequence", "output, all sequences"):
        assert rows[row] == "— (no output)", rows
    assert rows["time to first token"].endswith("ms") and rows["requests"].endswith("/s")
    assert "no output tokens (context_out 0)" in " ".join(res.output.split())
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert (
        data["tpot_ms"] == 0 and data["output_tokens_per_s_total"] == 0 and NO_OUTPUT_NOTE in data["warnings"]
    )


def test_no_prompt_and_no_output_is_still_refused() -> None:
    with pytest.raises(InvalidInputError, match="context_out"):
        gpuscout.estimate(**SETUP, context_in=0, context_out=0)
