"""The FAQ answers a model whose context is shorter than its usual one, the sources page counts the
offers as the banner does and lays its table out as cards on a phone, and a GPU page links to a
comparison of its variants only where that page exists."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from gpuscout.web import create_app


def test_the_faq_answers_a_2k_context_model_and_says_at_which_context(client: TestClient) -> None:
    # /faq?model=falcon-40b was a 422: "Context: 4,096 tokens exceed falcon-40b's context of 2,048",
    # with no field on the page to change it
    r = client.get("/faq", params={"model": "falcon-40b"})
    assert r.status_code == 200 and 'id="err-model"' not in r.text
    assert all(f'id="{k}"' in r.text for k in ("vram", "card_class", "spot", "slow_generation"))
    assert "8 users x 2,048 tokens (falcon-40b&#39;s whole context; the usual 4,096 is longer)" in r.text


def test_the_faq_counts_the_current_offers_as_the_banner_does(client: TestClient) -> None:
    # the fixture's store: 8 current offers and 1 flagged stale (the advisor leaves that one out)
    html = client.get("/faq", params={"model": "llama-3.1-8b"}).text
    assert "from the catalog&#39;s 8 current offers" in html and "the 1 flagged stale are left out" in html
    assert "9 offers" not in html


def test_the_sources_page_counts_the_offers_as_the_banner_does(client: TestClient) -> None:
    # "Store reachable · 736 current offers" stood under the banner's "643 current offers ... and 93
    # flagged stale"
    html = client.get("/sources").text
    store = html.split('<p id="store">', 1)[1].split("</p>", 1)[0]
    assert "8 current offers and 1 flagged stale" in store and "9 current" not in store


def test_the_sources_table_has_a_labelled_cell_for_each_figure(client: TestClient) -> None:
    # on a phone the table is a card per source, each figure on a line named by its data-label
    html = client.get("/sources").text
    assert 'class="table-wrap cards-phone"' in html and 'class="sources phone-cards"' in html
    table = html.split('id="sources"', 1)[1].split("</table>", 1)[0]
    for label in ("Rows", "Prices observed", "Stored here", "Last attempt", "Status"):
        assert f'data-label="{label}"' in table


def test_a_gpu_page_links_to_its_variants_comparison_only_where_it_exists() -> None:
    with TestClient(create_app()) as client:  # the bundled snapshot's GPUs
        tpu = client.get("/gpus/TPU-v5p").text
        siblings = tpu.split('id="siblings">', 1)[1].split("</p>", 1)[0]
        assert "TPU-v6e" in siblings and '<a href="/gpus/TPU">compare them</a>' in siblings  # as H100's
        for page in (
            "/gpus/TPU-v5p",
            "/gpus/H100-SXM",
            "/gpus/RTX4080-Super",
            "/gpus/MI250X-GCD",
            "/gpus/V100-SXM2-16GB",
        ):
            html = client.get(page).text
            links = re.findall(
                r'href="(/gpus/[^"]+)"', html.split('id="siblings">', 1)[1].split("</p>", 1)[0]
            )
            assert links, page
            for link in links:
                assert client.get(link, follow_redirects=True).status_code == 200, (page, link)
        h100 = client.get("/gpus/H100-SXM").text
        assert '<a href="/gpus/H100">compare them</a>' in h100
        assert "“H100” covers 3 variants" in client.get("/gpus/H100").text
        # a stem that is a card of its own is not a comparison: RTX4080-Super's page does not offer one
        assert "compare them" not in client.get("/gpus/RTX4080-Super").text
