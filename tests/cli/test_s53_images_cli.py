"""`gpuscout images` after the renter review: the speed says it is a prior (as `recommend batch` does), a
pipeline the GPU cannot hold gets no speed but what would fit, and an unknown image model is not answered
with another model as if it were the one named."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.estimate.diffusion import PROFILES, estimate_images

runner = CliRunner()
WIDE = {"COLUMNS": "400"}  # one line per note: no wrapping inside the phrases looked for


def _prior(warnings: list[str]) -> list[str]:
    return [w for w in warnings if w.startswith("image speed is not calibrated")]


def test_the_table_warns_that_the_speed_is_not_calibrated() -> None:
    result = runner.invoke(app, ["images", "sdxl", "--gpu", "RTX4090"], env=WIDE)
    assert result.exit_code == 0, result.output
    (said,) = _prior(estimate_images("sdxl", "RTX4090").warnings)
    assert f"warning: {said}" in " ".join(result.output.split())  # wrapped at the console width
    assert "s (compute-bound)" in result.output  # the speed is still given


def test_the_json_carries_the_warning() -> None:
    result = runner.invoke(app, ["images", "sdxl", "--gpu", "RTX4090", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(_prior(data["warnings"])) == 1 and data["speed_calibrated"] is False


def test_a_pipeline_that_does_not_fit_gets_no_speed_but_what_would_fit() -> None:
    result = runner.invoke(app, ["images", "flux.1-dev", "--gpu", "RTX4090", "--images", "1000"], env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "no (weights)" in out and "does not fit: needs" in out and "no speed is given" in out
    # no figure that reads as a speed: neither per image, nor per hour, nor for the 1,000 asked
    assert "-bound)" not in out and "images per hour" not in out and "time for 1,000 images" not in out
    assert "would fit: " in out and "--precision fp8" in out and "--cpu-offload" in out
    assert not _prior(out.splitlines())  # no speed to qualify


def test_the_json_of_a_pipeline_that_does_not_fit_has_null_speeds() -> None:
    result = runner.invoke(app, ["images", "flux.1-dev", "--gpu", "RTX4090", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["fits"] is False
    assert data["seconds_per_image"] is None and data["images_per_s"] is None and data["bound"] is None
    assert "--cpu-offload" in data["assumptions"]["would_fit"]


def test_cpu_offload_that_fits_is_timed_and_said_a_prior() -> None:
    result = runner.invoke(app, ["images", "flux.1-dev", "--gpu", "RTX4090", "--cpu-offload"], env=WIDE)
    assert result.exit_code == 0, result.output
    est = estimate_images("flux.1-dev", "RTX4090", cpu_offload=True)
    assert est.seconds_per_image is not None
    assert f"{est.seconds_per_image:,.2f} s" in result.output and "images per hour" in result.output
    (said,) = _prior(est.warnings)
    assert f"warning: {said}" in " ".join(result.output.split())  # wrapped at the console width


def test_sd3_is_said_not_to_be_in_the_image_registry() -> None:
    result = runner.invoke(app, ["images", "sd3", "--gpu", "L4"], env=WIDE)
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "Traceback" not in said
    assert "error: model: unknown name 'sd3': not in the image-model registry" in said
    assert f"known image models: {', '.join(PROFILES)}" in said
    assert "closest known: sdxl" not in said
