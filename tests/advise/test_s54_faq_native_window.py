"""The FAQ says once, in the estimator's words, what every estimate behind it says of the model at the
user's context: a context past the checkpoint's native window needs YaRN rope scaling (real estimator)."""

from __future__ import annotations

from typer.testing import CliRunner

from gpuscout.advise.faq import faq
from gpuscout.cli import app
from tests.advise.helpers import NOW
from tests.advise.test_faq import OFFERS

MODEL = "qwen2.5-32b-instruct"  # native window 32,768 in config.json; YaRN to 131,072 on its model card


def test_a_context_past_the_native_window_is_warned_of_once_as_the_estimates_word_it() -> None:
    answers = faq(MODEL, OFFERS, context=64_000, users=4, now=NOW)
    assert len(answers.warnings) == 1, answers.warnings
    said = answers.warnings[0]
    assert "YaRN" in said and "32,768" in said and "64,000 tokens" in said
    # the words are an estimate's own: an offer the answers cite carries the same warning
    cited = [r for a in answers.answers for r in a.offers]
    assert any(said in r.warnings for r in cited), [r.warnings for r in cited]
    # and not an answer's sentence repeated per offer
    assert not any("YaRN" in a.answer or any("YaRN" in d for d in a.details) for a in answers.answers)


def test_a_context_within_the_native_window_has_no_such_warning() -> None:
    assert faq(MODEL, OFFERS, context=16_000, users=4, now=NOW).warnings == ()


def test_the_cli_faq_text_says_the_yarn_warning_once() -> None:
    result = CliRunner().invoke(app, ["faq", MODEL, "--context", "64k", "--users", "4"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the console wraps long lines
    assert text.count("native window of 32,768") == 1, text[:2000]
    assert "it needs YaRN rope scaling configured" in text
    assert "warning: 64,000 tokens exceed" in text
