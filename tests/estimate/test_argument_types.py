"""``gpuscout.estimate`` with a value of any type in any argument: a result, or an
``InvalidInputError`` naming the argument; never ``AttributeError`` / ``TypeError``.

Regression for the audit's defect 15 (Python API): ``estimate(precision=None|5, engine=None,
kv_dtype=5)`` raised ``AttributeError: 'NoneType' object has no attribute 'strip'``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gpuscout
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.precision import resolve_kv_dtype, resolve_precision

ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.binary(max_size=8),
    st.tuples(st.integers()),
)
ARGUMENTS = [
    "precision",
    "engine",
    "kv_dtype",
    "parallel",
    "task",
    "batch",
    "gpus",
    "context_in",
    "context_out",
]


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("precision", 5),
        ("kv_dtype", 5),
        ("precision", ["bf16"]),
        ("kv_dtype", {}),
        ("engine", 3.5),
    ],
)
def test_the_audits_arguments_are_invalid_input_naming_the_field(argument: str, value: Any) -> None:
    with pytest.raises(InvalidInputError) as exc:
        gpuscout.estimate("llama-3.1-8b", "H100", **{argument: value})
    assert exc.value.field == argument and exc.value.accepted


def test_no_precision_means_the_checkpoint_format() -> None:
    """precision=None is the model's own format (the audit's None now has a meaning, not a crash)."""
    assert gpuscout.estimate("llama-3.1-8b", "H100", precision=None).precision == "bf16"
    assert gpuscout.estimate("gpt-oss-120b", "H100", precision=None).precision.startswith("mxfp4")


def test_no_engine_means_the_precisions_default() -> None:
    """engine=None (the default since GGUF formats run on llama.cpp unless told otherwise) is vLLM for
    16-bit weights and llama.cpp for a GGUF format, like precision=None a meaning, not a crash."""
    assert gpuscout.estimate("llama-3.1-8b", "H100", engine=None).engine == "vllm"
    assert gpuscout.estimate("llama-3.1-8b", "H100", engine=None, precision="q8_0").engine == "llama.cpp"


@pytest.mark.parametrize("argument", ARGUMENTS)
@settings(max_examples=40, deadline=None)
@given(value=ANY_VALUE)
def test_any_value_gives_a_result_or_an_error_naming_the_argument(argument: str, value: Any) -> None:
    try:
        est = gpuscout.estimate("llama-3.1-8b", "H100", **{argument: value})
    except InvalidInputError as exc:
        # (context_in + context_out < 1 is reported on context_out)
        assert exc.field in (argument, "context_out"), (exc.field, str(exc))
        assert len(str(exc)) < 2000
        return
    assert est.memory.total_gb > 0 and math.isfinite(est.memory.total_gb)


@settings(max_examples=100, deadline=None)
@given(value=ANY_VALUE)
def test_the_resolvers_refuse_every_non_name_by_field(value: Any) -> None:
    for resolve, field in (
        (resolve_precision, "precision"),
        (resolve_kv_dtype, "kv_dtype"),
        (resolve_engine, "engine"),
    ):
        try:
            resolve(value)
        except InvalidInputError as exc:
            assert exc.field == field
