"""An error of the Python API quotes a bad value briefly, and names a number given as text.

Before stop 65 the estimate's argument errors echoed the whole value (a 5,000-digit string came back in a
5,000-character message) and ``batch="8"`` answered "expected an integer or 'max', got '8'", which reads as
if 8 were not an integer.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpuscout.catalog.query import check_sort
from gpuscout.errors import QUOTED_NAME_CHARS, InvalidInputError, quoted_value
from gpuscout.estimate import estimate
from gpuscout.estimate.diagnose import diagnose
from gpuscout.estimate.diffusion import estimate_images
from gpuscout.estimate.training import estimate_training
from gpuscout.estimate.transcription import estimate_transcription

#: the message's fixed words, the field and the accepted range: well under this
MESSAGE_ROOM = 160


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"batch": "9" * 5000}, "batch"),
        ({"concurrency": "9" * 3000}, "concurrency"),
        ({"concurrency": [1] * 1000}, "concurrency"),
        ({"request_rate": "abc" * 999}, "request_rate"),
        ({"parallel": "x" * 300}, "parallel"),
        ({"gpus": {"a": list(range(1000))}}, "gpus"),
    ],
)
def test_a_long_bad_value_is_quoted_briefly(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", **kwargs)  # type: ignore[arg-type]
    assert err.value.field == field
    assert len(str(err.value)) < MESSAGE_ROOM, str(err.value)


def test_a_long_text_says_how_long_it_was() -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", batch="9" * 5000)
    assert "(5,000 characters)" in str(err.value)


@pytest.mark.parametrize(("kwargs", "number"), [({"batch": "8"}, 8), ({"concurrency": " +12 "}, 12)])
def test_a_number_given_as_text_is_named(kwargs: dict[str, object], number: int) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", **kwargs)  # type: ignore[arg-type]
    assert f"(pass the number {number}, not text)" in str(err.value)


@pytest.mark.parametrize("text", ["abc", "²", "1.5", "9" * 40, "-3"])
def test_other_text_gets_no_number_hint(text: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        estimate("llama-3.1-8b", "H100", batch=text)
    assert "pass the number" not in str(err.value)


def test_quoted_value_cuts_any_repr() -> None:
    assert quoted_value(2.5) == "2.5"
    assert quoted_value("H100") == "'H100'"
    assert len(quoted_value(10**500)) <= QUOTED_NAME_CHARS + 3
    assert len(quoted_value([list(range(100))] * 100)) <= QUOTED_NAME_CHARS + 3


LONG = "z" * 4000


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: estimate_training("llama-3.1-8b", "H100", attention_kernel=LONG), "attention_kernel"),
        (lambda: estimate_training("llama-3.1-8b", "H100", method=LONG), "method"),
        (lambda: estimate_images("sdxl", "H100", engine=LONG), "engine"),
        (lambda: diagnose("llama-3.1-8b", "H100", measured_tps=LONG), "measured_tps"),  # type: ignore[arg-type]
        (lambda: estimate_transcription("whisper-large-v3", "H100", engine=LONG), "engine"),
        (lambda: estimate("llama-3.1-8b", "H100", precision=LONG), "precision"),
        (lambda: check_sort(LONG), "sort"),
    ],
)
def test_every_entry_point_quotes_a_long_value_briefly(call: Callable[[], object], field: str) -> None:
    with pytest.raises(InvalidInputError) as err:
        call()
    assert err.value.field == field
    assert "(4,000 characters)" in str(err.value)
    assert LONG[:100] not in str(err.value)
