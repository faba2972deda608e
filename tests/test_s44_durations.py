"""Long durations read as years with thousands separators ("1,127 years"), not "411390.4 days", in every
face that says how long something takes: the advisor's tables and texts (``advise.reasons.duration``),
``gpuscout images`` and ``gpuscout transcribe``."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from gpuscout.advise.reasons import duration
from gpuscout.cli import app

DAY = 86400.0


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (45, "45 s"),
        (12 * 60, "12 min"),
        (3.4 * 3600, "3.4 h"),
        (5.2 * DAY, "5.2 days"),
        (364 * DAY, "364.0 days"),
        (365 * DAY, "1.0 years"),
        (1.3 * 365 * DAY, "1.3 years"),
        (47421.8 * DAY, "130 years"),
        (411390.4 * DAY, "1,127 years"),
        (2238780.9 * DAY, "6,134 years"),
    ],
)
def test_duration_says_years_beyond_a_year_with_separators(seconds: float, said: str) -> None:
    assert duration(seconds) == said


def test_no_face_prints_an_unseparated_count_of_days() -> None:
    runner = CliRunner()
    long = re.compile(r"\d{4,}(\.\d)? (days|min)")
    pretrain = runner.invoke(app, ["recommend", "pretrain", "llama-3.1-8b", "--tokens", "1e15", "--top", "3"])
    assert pretrain.exit_code == 0, pretrain.output
    assert "years" in pretrain.output and not long.search(pretrain.output)
    images = runner.invoke(app, ["images", "sdxl", "--gpu", "T4", "--images", "1000000000"])
    assert images.exit_code == 0, images.output
    assert "years" in images.output and not long.search(images.output)
    speech = runner.invoke(app, ["transcribe", "whisper-large-v3", "--gpu", "T4", "--audio-hours", "27000"])
    assert speech.exit_code == 0, speech.output
    assert "days" in speech.output and not long.search(speech.output)
    # transformers' pipeline: 30 s chunks every 20 s (its default 5 s strides), 1.5x the 3,240,000 windows
    assert "4,860,000 x 30 s chunks" in speech.output
