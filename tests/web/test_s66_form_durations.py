"""The advisor form reads a deadline as the CLI and a workload file do (stop 66): hours, or a duration
with a unit. The workload takes "6h" and "2d" (``workload.parse_hours``; ``--deadline 6h``), but the
form's own check of each field read a deadline as a bare number and refused them: "Deadline (hours) must
be a number from 0.01 to 87,600; you typed “6h”"."""

from __future__ import annotations

import html as html_text
import re

import pytest
from fastapi.testclient import TestClient

from gpuscout.web.advise_form import field_help

BATCH = {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": "100M"}


def _plain(markup: str) -> str:
    return " ".join(html_text.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


@pytest.mark.parametrize(
    ("typed", "said"), [("6h", "6.0 h"), ("90m", "1.5 h"), ("2d", "2.0 days"), ("6", "6.0 h")]
)
def test_a_deadline_with_a_unit_is_read(client: TestClient, typed: str, said: str) -> None:
    page = _plain(client.get("/advise", params={**BATCH, "deadline_hours": typed}).text)
    assert "Deadline (hours) must be" not in page
    assert f"deadline: finish within {said}" in page


def test_a_deadline_that_is_neither_says_both_ways_to_write_it(client: TestClient) -> None:
    page = _plain(client.get("/advise", params={**BATCH, "deadline_hours": "soon"}).text)
    said = "Deadline (hours) must be a number from 0.01 to 87,600, or a duration (90m, 24h, 2d)"
    assert f"{said}; you typed “soon”" in page
    # a duration past the range is refused as a number past it: 600 weeks is 100,800 hours
    page = _plain(client.get("/advise", params={**BATCH, "deadline_hours": "600w"}).text)
    assert "Deadline (hours) must be a number from 0.01 to 87,600; you typed “600w”" in page


def test_the_hint_says_a_duration_is_taken() -> None:
    for kind in ("batch", "finetune", "pretrain"):
        assert field_help("deadline_hours", kind) == "hours (24) or a duration: 90m, 24h, 2d"


def test_a_phone_gets_letters_where_a_field_takes_a_unit(client: TestClient) -> None:
    """The decimal pad a phone shows for ``inputmode="decimal"`` has no letters: "24h" or "2B" could not
    be typed there. Fields that take a unit get the full keyboard; plain numbers keep the pad."""
    page = client.get("/advise", params={"kind": "batch"}).text
    for name in ("deadline_hours", "output_tokens_total", "prompt_tokens"):
        assert f'name="{name}" type="text" inputmode="text"' in page, name
    for name in ("checkpoint_interval_min", "budget_usd", "dataset_gb"):
        assert f'name="{name}" type="text" inputmode="decimal"' in page, name


@pytest.mark.parametrize("typed", ["1e3", "1000.0", "1,000"])
def test_a_whole_number_in_any_notation_is_read(client: TestClient, typed: str) -> None:
    """The CLI (``--concurrency 1e3``) and a workload file (``concurrency: 1e3``) read a whole number in
    any notation; the form's check read it with ``int()`` and refused "1e3" and "1000.0"."""
    q = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": typed}
    page = _plain(client.get("/advise", params=q).text)
    assert "Concurrency must be" not in page
    assert "load: 1,000 simultaneous users" in page, page[-2000:]


def test_a_fraction_is_still_not_a_whole_number(client: TestClient) -> None:
    page = _plain(
        client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b", "concurrency": "2.5"}).text
    )
    assert "Concurrency must be a whole number from 1 to 1,000,000; you typed “2.5”" in page
