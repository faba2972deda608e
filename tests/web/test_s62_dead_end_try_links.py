"""A dead end's ways out on the web (stop 62, a review): the advisor page said what binds and every move in
one ~150-word paragraph (about 35 lines on a phone), with the latency targets "Held to" lists above said
again. It now says what binds, naming those targets as held to, then the moves as a list, each with a
"Try this" link to the same form with the move's fields changed; the JSON API gives the moves with their
fields and cost beside the flat ``binding``."""

from __future__ import annotations

import html as html_text
import re
from functools import cache
from urllib.parse import parse_qs, urlsplit

from fastapi.testclient import TestClient

from gpuscout.advise.api import advise
from gpuscout.advise.option_words import api_words, form_words
from gpuscout.advise.types import Advice
from gpuscout.web import create_app

WORKLOAD = {
    "kind": "serve",
    "model": "llama-3.1-70b",
    "engine": "llama.cpp",
    "concurrency": 4,
    "prompt_tokens": 1000,
    "output_tokens": 300,
    "budget_usd": 500,
}


@cache
def _core() -> Advice:
    from gpuscout.catalog.api import current_offers

    answer = advise(WORKLOAD, tuple(current_offers()), top=5)
    assert not answer.rows and len(answer.moves) == 3
    return answer


def test_the_api_gives_the_moves_with_their_fields_and_cost() -> None:
    with TestClient(create_app()) as client:  # the bundled snapshot
        answer = client.post("/api/v1/advise", json={"workload": WORKLOAD, "top": 5}).json()
        schema = client.get("/openapi.json").json()["components"]["schemas"]
    core = _core()
    assert answer["binding"] == api_words(core.binding or "")  # unchanged
    assert answer["binding_why"] == api_words(core.binding_why)
    moves = answer["moves"]
    assert [m["group"] for m in moves] == ["keeps", "relaxes", "last resort"]
    assert moves[0]["options"] == {
        "precision": "gguf-q4_k_m",
        "budget_usd": core.moves[0].options["budget_usd"],
    }
    for got, move in zip(moves, core.moves, strict=True):
        assert got["options"] == move.options and got["total_usd"] == move.total_usd
        assert got["tpot_ms"] == move.tpot_ms and got["text"] == api_words(move.text)
    assert "moves" in schema["AdviceOut"]["properties"] and "options" in schema["MoveOut"]["properties"]
    assert schema["MoveOut"]["properties"]["options"]["description"]


def _page(client: TestClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.text[:500]
    return response.text


def test_the_page_lists_the_moves_each_with_a_link_that_shows_rows() -> None:
    core = _core()
    with TestClient(create_app()) as client:
        page = _page(client, "/advise?" + "&".join(f"{k}={v}" for k, v in WORKLOAD.items()))
        why = html_text.unescape(page.split('id="binding">', 1)[1].split("</p>", 1)[0])
        # what binds, the targets "Held to" lists above named, not said again
        assert why.startswith("The latency targets and the budget bind together ("), why
        assert "TTFT <= 2,000 ms" not in why and "the latency targets (under “Held to”)" in why
        assert "without them and the budget, the cheapest offers reach TTFT " in why
        items = re.findall(r"<li data-group=[^>]*>(.*?)</li>", page.split('id="moves"', 1)[1], re.S)
        assert len(items) == len(core.moves)
        for item, move in zip(items, core.moves, strict=True):
            assert form_words(move.text)[1:] in html_text.unescape(item)
            links = re.findall(r'<a class="try-move" href="([^"]+)">Try this</a>', item)
            assert len(links) == 1, item
            url = html_text.unescape(links[0])
            query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
            # the form's own query, with the move's fields changed
            for name, value in move.options.items():
                if value is None:
                    assert name not in query
                else:
                    assert query[name] == (f"{value:.0f}" if isinstance(value, float) else str(value))
            assert query["model"] == "llama-3.1-70b" and query["concurrency"] == "4"
            assert query["engine"] == "llama.cpp"
            shown = _page(client, url)
            assert 'id="no-results"' not in shown, url  # the move shows rows
            assert 'id="picks"' in shown
