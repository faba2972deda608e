"""A dead end only stale offers (or defunct providers) can get out of gives its way out as a move, as the
spot-only dead end does: the web's "Try this" link and the JSON API's ``moves`` had nothing to follow,
only words ("--include-stale shows them")."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from gpuscout.advise.option_words import api_words, form_words
from gpuscout.advise.rank import advise
from gpuscout.advise.workload import ServeWorkload
from gpuscout.web.advise_form import AdviseRequest
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer

BE = fake_backends()
W = ServeWorkload(model="small", concurrency=4)
OFFERS = [offer("market", price=3.0, stale=True), offer("cloud", price=2.0, stale=True)]


def test_the_dead_end_names_the_stale_row_and_gives_the_move() -> None:
    answer = advise(W, OFFERS, backends=BE, now=NOW)
    shown = advise(W, OFFERS, backends=BE, now=NOW, include_stale=True)
    assert not answer.rows and shown.rows
    assert answer.binding_why.startswith("only stale offers or defunct providers can run it (")
    (move,) = answer.moves
    assert move.options == {"include_stale": True} and move.group == "relaxes"
    assert move.total_usd == shown.rows[0].total_usd
    assert move.text.startswith("--include-stale shows them: 1x H100-SXM at Cloud at $")
    assert move.text.endswith("(check its price before renting)")
    assert answer.binding == f"{answer.binding_why}; {move.text}"


def test_each_face_names_the_option_its_own_way() -> None:
    (move,) = advise(W, OFFERS, backends=BE, now=NOW).moves
    assert "--include-stale" not in form_words(move.text)
    assert "--include-stale" not in api_words(move.text)


def test_the_web_link_asks_again_with_stale_offers_included() -> None:
    (move,) = advise(W, OFFERS, backends=BE, now=NOW).moves
    request = AdviseRequest(
        kind="serve", values={"model": "small", "concurrency": "4"}, objective="cost", top=10, explain=None
    )
    query = parse_qs(urlsplit(request.changed_url(move.options)).query)
    assert query["include_stale"] == ["true"] and query["model"] == ["small"]


def test_the_json_api_says_where_the_move_goes_and_following_it_shows_rows() -> None:
    # the snapshot's Paperspace offers are all stale; the move's one option is a request option, which
    # the API's schema says goes beside the workload (in the workload it is an unknown field)
    from fastapi.testclient import TestClient

    from gpuscout.web import create_app

    workload = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 4, "providers": ["paperspace"]}
    with TestClient(create_app()) as client:
        schema = client.get("/openapi.json").json()["components"]["schemas"]["MoveOut"]
        assert "include_stale" in schema["properties"]["options"]["description"]
        answer = client.post("/api/v1/advise", json={"workload": workload, "top": 3}).json()
        (move,) = answer["moves"]
        assert move["options"] == {"include_stale": True}
        again = client.post("/api/v1/advise", json={"workload": workload, "top": 3, **move["options"]})
        assert again.status_code == 200 and again.json()["recommendations"]
