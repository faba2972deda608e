"""The estimate's load line never reads as a cap exceeded: where more sequences run than the KV cache
holds at their whole length (staggered requests hold prompt + part of their output), it says so, and a
"cap" it names is never below what runs (real estimator)."""

from __future__ import annotations

import re

import pytest

from gpuscout.estimate.api import estimate

# the renter's case: a 4-card layer split whose staggered requests fit more than full-length ones
RENTER = {"gpus": 4, "engine": "vllm", "precision": "awq", "parallel": "layer"}


def _running_and_cap(line: str) -> tuple[int, int | None]:
    running = re.search(r"(\d[\d,]*) running", line)
    cap = re.search(r"\(cap (\d[\d,]*),", line)
    assert running is not None, line
    return int(running.group(1).replace(",", "")), None if cap is None else int(cap.group(1).replace(",", ""))


@pytest.mark.parametrize("batch", ["max", 200, 64, 1])
def test_no_cap_said_is_below_the_sequences_running(batch: int | str) -> None:
    line = estimate("llama-3.1-70b", "RTX4090", batch=batch, **RENTER).assumptions["load"]
    running, cap = _running_and_cap(line)
    assert cap is None or cap >= running, line


def test_more_running_than_fit_at_full_length_says_the_requests_are_staggered() -> None:
    from types import SimpleNamespace
    from typing import Any

    from gpuscout.estimate.api import _load_line

    point: Any = SimpleNamespace(running=145, cap=132, cap_reason="kv_cache", requests_per_s=0.91)
    assert _load_line(point, 2, "max (145 sequences per replica)") == (
        "max (145 sequences per replica): 145 running on the busiest replica (132 fit at full length; "
        "staggered requests hold less, KV cache), 1.82 requests/s"
    )
    point.running = 132
    assert _load_line(point, 1, "batch 132") == (
        "batch 132: 132 running per replica (cap 132, KV cache), 0.91 requests/s"
    )


def test_a_load_within_the_cap_keeps_its_short_words() -> None:
    line = estimate("llama-3.1-8b", "A100-SXM4-80GB", batch=8).assumptions["load"]
    assert re.search(r"8 running per replica \(cap \d[\d,]*, [\w ]+\)", line), line
    assert "full length" not in line
