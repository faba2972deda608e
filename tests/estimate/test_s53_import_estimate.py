"""``from gpuscout.estimate import estimate`` (the spelling a Python user tries first) gives the function."""

from __future__ import annotations

import pytest


def test_from_package_import_estimate() -> None:
    from gpuscout.estimate import estimate
    from gpuscout.estimate.api import estimate as api_estimate

    assert estimate is api_estimate
    assert estimate("llama-3.1-8b", "H100").tpot_ms > 0


def test_unknown_name_still_an_import_error() -> None:
    with pytest.raises(ImportError):
        from gpuscout.estimate import no_such_name  # noqa: F401
