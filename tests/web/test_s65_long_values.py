"""A long bad value in a query or a form is quoted briefly in the answer (stop 65, ``errors.quoted_value``):
the advisor's form echoed an unknown ``kind`` of 4,000 characters whole. The JSON API and the offers page
already refused an unknown sort without echoing it; their tests keep it so."""

from __future__ import annotations

from fastapi.testclient import TestClient

LONG = "z" * 4000


def test_an_unknown_sort_of_4000_characters_is_quoted_briefly(client: TestClient) -> None:
    r = client.get(f"/api/v1/offers?sort={LONG}")
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "sort"
    assert LONG[:100] not in r.text


def test_the_offers_page_quotes_it_briefly_too(client: TestClient) -> None:
    r = client.get(f"/?sort={LONG}")
    assert r.status_code < 500, r.text
    assert LONG[:100] not in r.text


def test_an_unknown_kind_on_the_advisor_form_is_quoted_briefly(client: TestClient) -> None:
    r = client.get(f"/advise?kind={LONG}&model=llama-3.1-8b")
    assert r.status_code < 500, r.text
    assert LONG[:100] not in r.text
