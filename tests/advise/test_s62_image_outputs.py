"""An image batch says how big its outputs are and how moving them out is costed (stop 62).

``recommend batch flux.1-dev --images 1M --deadline 2h`` showed an egress of 0 and said nothing of the
outputs: a million 1024x1024 PNGs are over a terabyte. The header now says their approximate size (from
the resolution, at a recalled PNG bytes-per-pixel) and that --egress-gb counts moving them out; the cost
is unchanged unless --egress-gb is given."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuscout.advise.answer import PNG_BYTES_PER_PIXEL, image_outputs_text
from gpuscout.advise.option_words import api_words, python_words
from gpuscout.advise.workload import Workload
from gpuscout.cli import app

FLUX = ("recommend", "batch", "flux.1-dev", "--images", "1M", "--deadline", "2h")


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_header_says_the_outputs_size_and_the_egress_option() -> None:
    out = " ".join(_run(*FLUX).split())
    expected = 1_000_000 * 1024 * 1024 * PNG_BYTES_PER_PIXEL / 1e12
    assert 1.0 <= expected <= 1.6  # the order the reviewer measured: 1 to 1.5 TB
    assert f"outputs: about {expected:.2g} TB of PNG at 1024x1024" in out
    assert "approximate" in out and "--egress-gb counts moving them out (not costed here)" in out


def test_the_size_follows_the_resolution_and_the_count() -> None:
    w = {"kind": "batch", "model": "flux.1-dev", "images_total": 1000, "width": 512, "height": 512}
    text = image_outputs_text(Workload.from_dict(w))  # type: ignore[arg-type]
    # 512 x 512 x 1.3 bytes = 340,787 bytes an image; 1,000 of them 341 MB
    assert PNG_BYTES_PER_PIXEL == 1.3
    assert "about 341 MB of PNG at 512x512 (about 0.34 MB an image, approximate)" in text


def test_the_cost_is_unchanged_unless_egress_is_given() -> None:
    rows = json.loads(_run(*FLUX, "--json"))["recommendations"]
    assert rows and all(r["cost"]["egress"] == 0 for r in rows)
    given = json.loads(_run(*FLUX, "--egress-gb", "1400", "--json"))
    assert any(r["cost"]["egress"] > 0 for r in given["recommendations"])  # where egress is not free
    assert any("--egress-gb 1400 is costed as moving them out" in t for t in given["targets"])


def test_the_api_and_python_name_the_field() -> None:
    line = "outputs: about 1.4 TB of PNG; --egress-gb counts moving them out"
    assert '"egress_gb" counts' in api_words(line) and "egress_gb= counts" in python_words(line)
    assert '"egress_gb": 1400 is costed' in api_words("--egress-gb 1400 is costed")
