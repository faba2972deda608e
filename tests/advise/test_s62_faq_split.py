"""The FAQ states the prompt/answer split its estimates take (stop 62).

Every TTFT and speed it quotes is at a prompt of 7/8 of the conversation and an answer of 1/8
(``OUTPUT_SHARE``), yet no face said so: the summary (the CLI's first line, the web page's note, the
JSON's ``summary``) said only "8 users x 4,096 tokens". It now says the split where it states the load,
and the JSON carries it as numbers.
"""

from __future__ import annotations

from gpuscout.advise.faq import OUTPUT_SHARE, faq, split_context
from gpuscout.cli.plain_output import to_jsonable
from tests.advise.helpers import NOW
from tests.advise.test_faq import OFFERS


def test_the_summary_states_the_split_the_estimates_take() -> None:
    f = faq("llama-3.1-8b", OFFERS, now=NOW)
    assert (
        "for 8 users x 4,096 tokens, each a 3,584-token prompt and a 512-token answer, at bf16" in f.summary
    )
    data = to_jsonable(f)  # what --json prints
    assert (data["prompt_tokens"], data["output_tokens"]) == (3584, 512)


def test_the_split_follows_the_context() -> None:
    f = faq("llama-3.1-8b", OFFERS, now=NOW, context=1000)
    assert "each a 875-token prompt and a 125-token answer" in f.summary
    assert split_context(1000) == (875, 125) == (1000 - int(1000 * OUTPUT_SHARE), int(1000 * OUTPUT_SHARE))
    assert split_context(64) == (56, 8)
