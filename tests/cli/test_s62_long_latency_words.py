"""A latency of minutes reads in seconds and minutes, not in six-digit milliseconds (stop 62).

``estimate llama-3.1-8b --gpu RTX4090 -c 200 --context-in 2k --context-out 512`` printed "time to first
token 234,709 ms" and "mean wait 234,230 ms". The table's latencies and the estimator's queue warnings
now go through one helper (``wording.ms_text``); the JSON keeps its numbers in ms.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.api import estimate
from gpuscout.wording import ms_text

runner = CliRunner()
QUEUED = ["llama-3.1-8b", "--gpu", "RTX4090", "-c", "200", "--context-in", "2k", "--context-out", "512"]


@pytest.mark.parametrize(
    ("ms", "said"),
    [
        (4.24, "4.2 ms"),
        (42.0, "42 ms"),
        (2676.4, "2,676 ms"),  # a few seconds: still compared in ms
        (23_449.0, "23.4 s"),
        (234_709.3, "235 s (3.9 min)"),
        (7_200_000.0, "7,200 s (2.0 h)"),
    ],
)
def test_ms_text(ms: float, said: str) -> None:
    assert ms_text(ms) == said


def test_a_queued_requests_wait_reads_in_seconds_and_minutes() -> None:
    res = runner.invoke(app, ["estimate", *QUEUED], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    est = estimate("llama-3.1-8b", "RTX4090", concurrency=200, context_in=2000, context_out=512)
    assert est.ttft_ms > 90_000 and est.queue_ms > 90_000, "premise: the requests wait minutes"
    ttft = next(line for line in res.output.splitlines() if "time to first token" in line)
    assert ms_text(est.ttft_ms) in ttft and re.search(r"\d+ s \(\d+\.\d min\)", ttft)
    assert not re.search(r"\d{3},\d{3} ms", res.output)  # no six-digit milliseconds anywhere
    said = " ".join(res.output.split())  # the warning wraps at 80 columns
    assert f"the rest queue for {ms_text(est.queue_ms)} on average" in said
    # the JSON keeps its figures in ms, as numbers
    data = json.loads(runner.invoke(app, ["estimate", *QUEUED, "--json"]).output)
    assert data["ttft_ms"] == pytest.approx(est.ttft_ms) and data["queue_ms"] == pytest.approx(est.queue_ms)
