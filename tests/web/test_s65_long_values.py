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


def test_a_static_name_longer_than_a_file_name_is_a_404(client: TestClient) -> None:
    """``/static/`` + 4,000 characters raised ENAMETOOLONG from the file system: a 500."""
    for path in (f"/static/{LONG}", f"/static/{LONG}.css", f"/static/vendor/{LONG}"):
        r = client.get(path)
        assert r.status_code == 404, (path[:30], r.status_code)
        assert LONG[:100] not in r.text


def test_unknown_static_names_are_not_kept_in_memory(client: TestClient) -> None:
    """Every name asked for was cached, an unknown one as None: 300 unknown names kept 300 more entries
    (``static_asset.cache_info()`` went from 1 to 302 on c697154)."""
    from gpuscout.web import assets

    assert client.get("/static/app.css").status_code == 200
    before = assets._asset_of.cache_info().currsize
    for i in range(300):
        assert client.get(f"/static/missing-{i}.css").status_code == 404
    assert assets._asset_of.cache_info().currsize == before
    assert client.get("/static/app.css").status_code == 200
