"""An unknown precision suggests the nearest names, as an unknown GPU or model does (stop 62):
``--precision Q4_K_XL``, ``4bit``, ``exl2`` listed the 41 names accepted and suggested none. PyTorch's
dtype names read as ours (``torch.bfloat16`` is bf16); a spelling that fits several formats (``4bit``) is
answered with them all, never read as one; ExLlamaV2/V3's formats are said to be outside the model."""

from __future__ import annotations

import pytest

from gpuscout.errors import InvalidInputError
from gpuscout.estimate.precision import resolve_precision


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("torch.bfloat16", "bf16"),
        ("torch.float16", "fp16"),
        ("torch.float32", "fp32"),
        ("torch.float8_e4m3fn", "fp8"),
        ("bfloat16", "bf16"),
        ("float16", "fp16"),
    ],
)
def test_pytorch_dtype_names_read_as_ours(typed: str, name: str) -> None:
    assert resolve_precision(typed).name == name  # torch.* was "unknown precision"


def _refused(typed: str) -> InvalidInputError:
    with pytest.raises(InvalidInputError) as err:
        resolve_precision(typed)
    assert err.value.field == "precision"
    return err.value


def test_an_unknown_name_suggests_the_closest_known() -> None:
    said = _refused("Q4_K_XL").message
    assert said.startswith("unknown precision 'Q4_K_XL'; closest known: ") and "q4_k_m" in said
    assert "closest known: int4" in _refused("int4bit").message


@pytest.mark.parametrize(
    ("typed", "wanted"), [("4bit", ("int4", "nf4", "q4_k_m")), ("8-bit", ("int8", "fp8"))]
)
def test_a_bit_width_alone_is_answered_with_every_format_of_it_not_one(
    typed: str, wanted: tuple[str, ...]
) -> None:
    said = _refused(typed).message
    assert said.startswith(f"ambiguous precision {typed!r}; matches: "), said
    assert all(w in said for w in wanted), said


@pytest.mark.parametrize(
    ("typed", "engine"), [("exl2", "ExLlamaV2"), ("EXL3", "ExLlamaV3"), ("exl2-4.0bpw", "ExLlamaV2")]
)
def test_exllama_formats_are_said_to_be_outside_the_model(typed: str, engine: str) -> None:
    said = _refused(typed).message
    assert engine in said and "not modelled" in said


def test_a_name_near_nothing_still_says_what_is_accepted() -> None:
    err = _refused("zzzz")
    assert err.message == "unknown precision 'zzzz'" and err.accepted and "bf16" in err.accepted
