"""The no-fit hint's ``--precision X`` in each face's words: the JSON API's field, the web form's label and
the Python keyword, as every other option of the advisor's texts; and the web's durations are the CLI's."""

from __future__ import annotations

from gpuscout.advise.option_words import api_words, form_words, python_words
from gpuscout.advise.reasons import duration
from gpuscout.web.advise_view import duration as web_duration

HINT = "--precision fp8 would fit: the cheapest is 8x RTX4090 at Vast.ai"


def test_precision_hint_in_each_face() -> None:
    assert api_words(HINT).startswith('"precision": "fp8" would fit')
    assert form_words(HINT).startswith("“Precision” fp8 would fit")
    assert python_words(HINT).startswith('precision="fp8" would fit')
    assert "--precision" not in api_words("try --precision q4_k_m or --precision gguf-q8_0.")


def test_web_duration_is_the_cli_one() -> None:
    for seconds in (8.0, 600.0, 5000.0, 4 * 86400.0, 411390.4 * 86400):
        assert web_duration(seconds) == duration(seconds)
    assert web_duration(8.0) == "8 s"  # a request's latency, was "0 min"
    assert web_duration(411390.4 * 86400) == "1,127 years"
    assert web_duration(None) == "—"
