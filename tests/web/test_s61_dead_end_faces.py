"""The dead end's moves (stop 61) on every face that shows it: the web advisor page and the JSON API name
them in their own words (the form's labels, the API's fields), with the same figures as the core's answer;
the CLI keeps its flags (tests/cli)."""

from __future__ import annotations

import html as html_text
from functools import cache

from fastapi.testclient import TestClient

from gpuscout.advise.api import advise
from gpuscout.advise.option_words import api_words, form_words
from gpuscout.web import create_app

WORKLOAD = {
    "kind": "serve",
    "model": "llama-3.3-70b",
    "concurrency": 32,
    "prompt_tokens": 2000,
    "output_tokens": 500,
    "budget_usd": 3000,
}


@cache
def _core() -> str:
    from gpuscout.catalog.api import current_offers

    answer = advise(WORKLOAD, tuple(current_offers()), top=5)
    assert not answer.rows and answer.binding is not None
    assert "keeping the targets, --precision fp8 (" in answer.binding
    return answer.binding


def test_the_advisor_page_and_the_api_name_the_moves_in_their_words() -> None:
    with TestClient(create_app()) as client:  # the bundled snapshot
        html = client.get("/advise", params={k: str(v) for k, v in WORKLOAD.items()}).text
        answer = client.post("/api/v1/advise", json={"workload": WORKLOAD, "top": 5}).json()
    binding = html.split('id="binding">', 1)[1].split("</p>", 1)[0]
    core = _core()
    # the page: the form's labels ("“Precision” fp8", "“Budget ($)” 3540"), nothing else changed
    said = form_words(core)
    assert "keeping the targets, “Precision” fp8 (" in said and "“Budget ($)” " in said
    assert "as a last resort, “Latency targets: none”, which gives up the targets" in said
    # the page says what binds, then each move in a list (stop 62), in the form's words
    plain = html_text.unescape(binding)
    assert plain.startswith("No offer meets the latency targets (under “Held to”) ("), plain
    moves = html_text.unescape(html.split('id="moves"', 1)[1].split("</ul>", 1)[0])
    assert "<li" in moves and "“Precision” fp8 (" in moves and "“Latency targets: none”" in moves
    for part in said.split("; what would give an answer: ", 1)[1].split("; "):
        for move in part.split(", or "):  # each move said in the flat text is an item of the list
            text = move.removeprefix("keeping the targets, ").removeprefix("otherwise, ")
            assert text.removeprefix("as a last resort, ") in moves, (text, moves)
    assert "--precision" not in html and "--budget" not in html
    # the API: its fields
    assert answer["recommendations"] == []
    assert answer["binding"] == api_words(core)
    assert 'keeping the targets, "precision": "fp8" (' in answer["binding"]
