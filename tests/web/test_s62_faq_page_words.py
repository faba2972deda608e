"""The web FAQ page says what ``gpuscout faq`` says (stop 62): the prompt/answer split in its note, the
spot saving on the same offer, and the HBM cards at the same count as the user's, word for word."""

from __future__ import annotations

import html

from fastapi.testclient import TestClient

from gpuscout.advise.backends import default_backends
from gpuscout.advise.faq import faq


def test_the_page_carries_the_faqs_own_words(client: TestClient) -> None:
    r = client.get("/faq?model=llama-3.1-70b")
    assert r.status_code == 200
    page = html.unescape(r.text)
    answers = faq(
        "llama-3.1-70b",
        client.app.state.services.all_current_offers(),  # type: ignore[attr-defined]
        backends=default_backends(),
    )
    assert answers.summary in page
    # the words of stop 62, on the page as the CLI prints them
    assert "for 8 users x 4,096 tokens, each a 3,584-token prompt and a 512-token answer, at bf16" in page
    assert "on-demand on the same offer" in page
    assert "as many HBM cards as these (8x H100-SXM) at bf16:" in page and "would not help" not in page
    by_key = {a.key: a for a in answers.answers}
    for key in ("spot", "slow_generation"):
        assert by_key[key].answer in page
        for line in by_key[key].details:
            assert line in page
