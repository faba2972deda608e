"""A pre-release names the release it is a candidate of (stop 58): "vllm 0.10.1a1" was read as 0.10 (the
".1a1" was cut), so it was refused as predating gpt-oss (first in 0.10.1); "vllm 0.9.0rc1" was read as 0.9
silently. Both are now read as their release and say so."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.engines import resolve_engine


@pytest.mark.parametrize(
    ("name", "release", "era"),
    [
        ("vllm 0.10.1a1", "0.10.1", ""),
        ("vllm 0.9.0rc1", "0.9.0", ""),
        ("vllm 0.9.0-rc1", "0.9.0", ""),
        ("vllm v0.6.3.dev116", "0.6.3", "v0"),
        ("tensorrt-llm 0.17.0b1", "0.17.0", "pt-2025"),
    ],
)
def test_a_pre_release_is_read_as_its_release_and_said(name: str, release: str, era: str) -> None:
    p = resolve_engine(name)
    assert (p.version, p.era) == (release, era)
    assert p.version_note.startswith(f"{name.split()[-1].lstrip('v')} is a pre-release of {release}")


@pytest.mark.parametrize("name", ["vllm 0.8.5.post1", "sglang 0.4.3.post2", "vllm 0.6.3"])
def test_a_post_release_or_plain_release_says_nothing(name: str) -> None:
    assert resolve_engine(name).version_note == ""


def test_the_estimate_warns_and_judges_the_release() -> None:
    e = estimate("gpt-oss-20b", "H100-SXM", engine="vllm 0.10.1a1")
    assert e.supported
    assert any("pre-release of 0.10.1" in w for w in e.warnings)
    assert not estimate("gpt-oss-20b", "H100-SXM", engine="vllm 0.10.0").supported


@pytest.mark.parametrize(
    ("name", "release"),
    [
        ("vllm 0.6.3-a100", "0.6.3"),
        ("sglang 0.4.3-b200", "0.4.3"),
        ("tensorrt-llm 0.17.0-a100 build", "0.17.0"),
    ],
)
def test_a_gpu_name_after_a_hyphen_is_no_pre_release(name: str, release: str) -> None:
    """ "0.6.3-a100" is a release and a GPU (review, stop 58: it was read as a pre-release)."""
    p = resolve_engine(name)
    assert (p.version, p.version_note) == (release, "")


def test_a_pre_release_newer_than_the_profile_says_once_how_it_is_timed() -> None:
    note = resolve_engine("vllm 0.99.0rc1").version_note
    assert "timed as 0.33" in note and "pre-release" not in note
