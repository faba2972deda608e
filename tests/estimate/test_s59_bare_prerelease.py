"""A bare PEP 440 pre-release letter ("0.10.1a", normalised "0.10.1a0") names its release (stop 59): it was
read as 0.10, so "vllm 0.10.1a" was refused for gpt-oss (first in 0.10.1)."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.engines import resolve_engine


@pytest.mark.parametrize(("name", "release"), [("vllm 0.10.1a", "0.10.1"), ("vllm 0.6.3b", "0.6.3")])
def test_a_bare_pre_release_letter_is_read_as_its_release(name: str, release: str) -> None:
    p = resolve_engine(name)
    assert p.version == release
    assert p.version_note.startswith(f"{name.split()[-1]} is a pre-release of {release}")


def test_gpt_oss_on_a_bare_alpha_of_its_first_release_is_judged_as_that_release() -> None:
    assert estimate("gpt-oss-20b", "H100-SXM", engine="vllm 0.10.1a").supported
