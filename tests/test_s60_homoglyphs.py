"""Cyrillic and Greek letters drawn as Latin ones read as those (stop 60, faces pass): ``--gpu Н100``
typed with U+041D (a Cyrillic keyboard layout) answered "unknown name; closest known: V100-SXM2-16GB,
..., P100" in every face, never H100."""

from __future__ import annotations

import pytest

from gpuscout.errors import fold_name
from gpuscout.estimate.api import estimate


@pytest.mark.parametrize(
    ("typed", "read"),
    [("\u041d100", "H100"), ("\u0391100", "A100"), ("\u0422\u0420U-v5e", "TPU-v5e"), ("ll\u0430ma", "llama")],
)
def test_look_alike_letters_fold_to_latin(typed: str, read: str) -> None:
    assert fold_name(typed) == read


def test_a_gpu_typed_with_a_cyrillic_h_is_the_h100() -> None:
    assert estimate("llama-3.1-8b", "\u041d100").gpu == estimate("llama-3.1-8b", "H100").gpu == "H100-SXM"


def test_other_scripts_are_left_alone() -> None:
    assert fold_name("\u0416100") == "\u0416100"  # Zhe looks like no Latin letter
