"""An image size the diffusers pipeline does not generate is an error naming the side, the multiple the
model needs and the nearest sizes that are, in every face: SDXL's pipeline refuses a side that is not a
multiple of 8 (one latent per 8x8 pixels), FLUX's rounds one that is not a multiple of 16 down (its
latents are packed 2x2). Both were timed at the size asked, with a warning that "the pipeline will round
them"."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app
from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.diffusion import estimate_images


def test_sdxl_refuses_a_side_not_a_multiple_of_8_naming_the_nearest() -> None:
    with pytest.raises(InvalidInputError) as caught:
        estimate_images("sdxl", "H100", width=1001, height=777)
    err = caught.value
    assert not isinstance(err, ConfigurationRejected)  # an input error: the advisor aborts, not one row
    assert err.field == "width"
    assert "1001 is not a multiple of 8" in err.message
    assert "nearest: 1000 or 1008" in err.message
    assert "height 777 is not either (nearest: 776 or 784)" in err.message
    assert err.accepted is not None and "multiples of 8" in err.accepted


def test_flux_needs_multiples_of_16() -> None:
    with pytest.raises(InvalidInputError) as caught:
        estimate_images("flux.1-dev", "H100", width=1024, height=1000)
    assert caught.value.field == "height"
    assert "1000 is not a multiple of 16" in caught.value.message
    assert "nearest: 992 or 1008" in caught.value.message
    # 1000 is a valid SDXL side; 1008 x 992 a valid FLUX size
    assert estimate_images("sdxl", "H100", width=1000, height=1000).width == 1000
    assert estimate_images("flux.1-dev", "H100", width=1008, height=992).height == 992


def test_the_cli_names_the_flag_for_images_and_recommend() -> None:
    runner = CliRunner()
    images = runner.invoke(app, ["images", "sdxl", "--gpu", "H100", "--width", "1001"])
    assert images.exit_code != 0
    assert "--width: 1001 is not a multiple of 8" in images.output
    assert "Traceback" not in images.output
    batch = runner.invoke(app, ["recommend", "batch", "sdxl", "--images", "100", "--height", "777"])
    assert batch.exit_code != 0
    assert "--height: 777 is not a multiple of 8" in batch.output
    assert "nearest: 776 or 784" in batch.output
