"""``offers --region ""`` is an error naming the field, as a blank ``--gpu`` is and the API's ``region=``
is (stop 59, renter pass): it listed every offer, the filter silently dropped."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuscout.cli import app


@pytest.mark.parametrize("value", ["", " ", " , "])
def test_a_blank_region_is_refused(value: str) -> None:
    out = CliRunner().invoke(app, ["offers", "--region", value])
    assert out.exit_code != 0
    assert "region" in out.output and "is empty" in out.output
