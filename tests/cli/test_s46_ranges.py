"""Every numeric option of ``estimate``, ``vram``, ``diagnose`` and ``images`` says its range when it refuses
a value, the range the estimator checks, read from the one place the limits are stated
(:mod:`gpuscout.estimate.arguments`).

Regressions: ``images --steps 0`` said "(accepted: a whole number >= 1)" and ``--steps abc`` the same, where
``--steps 100000000`` said "1..10000"; ``vram --context 0`` "(accepted: a token count of at least 1)";
``--gpus abc``, ``--concurrency abc``, ``--width abc`` "(accepted: a whole number)"; ``--request-rate abc``
"(accepted: a number)"; ``vram --batch abc`` "1..4096 or max" where ``vram --batch 5000`` is sized (its
range is 1..1,000,000); ``images --images`` took 1..10^9 where a batch workload takes 10^12 images.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate import arguments
from gpuscout.estimate.arguments import (
    MAX_BATCH,
    MAX_CONCURRENCY,
    MAX_CONTEXT,
    MAX_GPUS,
    MAX_IMAGE_BATCH,
    MAX_IMAGE_PX,
    MAX_IMAGES,
    MAX_STEPS,
    MIN_IMAGE_PX,
)

runner = CliRunner()
M = "llama-3.1-8b"
ESTIMATE = ["estimate", M, "--gpu", "H100"]
VRAM = ["vram", M]
DIAGNOSE = ["diagnose", M, "--gpu", "H100", "--measured-tps", "50"]
IMAGES = ["images", "sdxl", "--gpu", "H100"]

ERROR_LINE = re.compile(r"^error: (?P<option>--[a-z-]+): (?P<message>.+) \(accepted: (?P<accepted>.+)\)$")


def _refused(argv: list[str]) -> re.Match[str]:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    found = ERROR_LINE.match(lines[0])
    assert found is not None, result.output
    return found


# ---- the reported cases -----------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["0", "abc", "100000000", "-3"])
def test_images_steps_says_its_range_whatever_the_value(value: str) -> None:
    said = _refused([*IMAGES, "--steps", value])
    assert said["option"] == "--steps" and said["accepted"] == f"1..{MAX_STEPS}"  # was "a whole number >= 1"


@pytest.mark.parametrize("value", ["0", "-1", "1e30", str(MAX_CONTEXT + 1)])
def test_vram_context_says_both_ends_of_its_range(value: str) -> None:
    said = _refused([*VRAM, "--context", value])
    assert said["option"] == "--context"
    assert said["accepted"] == f"a token count from 1 to {MAX_CONTEXT:,}"  # was "of at least 1" for 0
    at_limit = _refused([*VRAM, "--context", str(MAX_CONTEXT)])  # in range: refused by the model's window
    assert "context window of 131,072 tokens" in at_limit["message"]


# ---- every whole-number option: text that is not a number says the range too -----------------------
RANGES = [
    (ESTIMATE, "--gpus", f"1..{MAX_GPUS}"),
    (ESTIMATE, "--concurrency", f"1..{MAX_CONCURRENCY}"),
    (ESTIMATE, "--users", f"1..{MAX_CONCURRENCY}"),
    (ESTIMATE, "--num-requests", f"1..{MAX_CONCURRENCY}"),
    (VRAM, "--gpus", f"1..{MAX_GPUS}"),
    (DIAGNOSE, "--gpus", f"1..{MAX_GPUS}"),
    (DIAGNOSE, "--batch", f"1..{MAX_BATCH}"),  # was MAX_CONCURRENCY, where 5000 said 1..4096 (stop 62)
    # --images reads a count as the token options do (100k): its words are tested in test_s51_image_counts
    (IMAGES, "--width", f"{MIN_IMAGE_PX}..{MAX_IMAGE_PX}"),
    (IMAGES, "--height", f"{MIN_IMAGE_PX}..{MAX_IMAGE_PX}"),
    (IMAGES, "--batch", f"1..{MAX_IMAGE_BATCH}"),
]


@pytest.mark.parametrize(("base", "option", "accepted"), RANGES, ids=lambda v: str(v))
@pytest.mark.parametrize("value", ["abc", "0", "1e30", "2.5"])
def test_a_whole_number_option_says_its_range(
    base: list[str], option: str, accepted: str, value: str
) -> None:
    said = _refused([*base, option, value])
    assert said["accepted"] == accepted, said.group(0)  # was "a whole number" for abc and 2.5


def test_a_decimal_option_checked_by_the_estimator_says_its_words_for_text() -> None:
    said = _refused([*ESTIMATE, "--request-rate", "abc"])
    assert said["message"] == "'abc' is not a number" and said["accepted"] == "> 0, <= 1e+06"  # "a number"
    assert _refused([*ESTIMATE, "--rps", "0"])["accepted"] == "> 0, <= 1e+06"  # the estimator's own words
    said = _refused(["diagnose", M, "--gpu", "H100", "--measured-tps", "fast"])
    assert said["accepted"] == arguments.MEASURED_TPS_ACCEPTED  # was "a number"
    # inf is still all at once (the estimator's, with --num-requests), not refused as text
    result = runner.invoke(app, [*ESTIMATE, "--rps", "inf", "--num-requests", "10", "--json"])
    assert result.exit_code == 0, result.output


def test_batch_says_the_range_of_the_command_it_is_given_to() -> None:
    # vram sizes the memory of any number of sequences (memory_needed: MAX_CONCURRENCY); an estimate's batch
    # is the requests in flight over every replica, as its --concurrency (stop 62: it was MAX_BATCH);
    # diagnose times them all in one engine's step (MAX_BATCH)
    assert _refused([*VRAM, "--batch", "abc"])["accepted"] == f"1..{MAX_CONCURRENCY} or max"  # was 1..4096
    assert _refused([*ESTIMATE, "--batch", "abc"])["accepted"] == f"1..{MAX_CONCURRENCY} or max"
    assert _refused([*VRAM, "--batch", "2e6"])["accepted"] == f"1..{MAX_CONCURRENCY}"
    assert _refused([*ESTIMATE, "--batch", "2e6"])["accepted"] == f"1..{MAX_CONCURRENCY}"
    assert _refused([*DIAGNOSE, "--batch", "1e4"])["accepted"] == f"1..{MAX_BATCH}"
    result = runner.invoke(app, [*VRAM, "--batch", "5e3", "--json"])  # a count in any notation, as --gpus
    assert result.exit_code == 0, result.output


def test_the_images_limits_are_those_of_the_batch_workload() -> None:
    from gpuscout.advise.workload import BatchWorkload

    fields = BatchWorkload.model_fields
    for name, low, high in (
        ("width", MIN_IMAGE_PX, MAX_IMAGE_PX),
        ("height", MIN_IMAGE_PX, MAX_IMAGE_PX),
        ("steps", 1, MAX_STEPS),
        ("images_total", 1, MAX_IMAGES),
    ):
        meta = fields[name].metadata
        assert (meta[0].ge, meta[1].le) == (low, high), name  # was 64..8192 and 1..1000 steps
    # what `gpuscout images` takes, a batch workload takes: --steps 5000 / --width 12000 were refused
    assert BatchWorkload(model="sdxl", images_total=10, steps=5000, width=12_000).steps == 5000
