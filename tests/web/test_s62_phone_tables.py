"""Tables at a phone's 390 px and a desktop's 1440 px (stop 62 web review).

- An offer card hid its interconnect and its source (``td.interconnect, td.source {display: none}``):
  for a multi-GPU offer NVLink or PCIe is a main reason to choose, and the footer promises that every
  price carries its source. A multi-GPU card now says its interconnect; every card keeps a small source
  link.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser

from tests.web.test_browser_layout import bundled_url  # noqa: F401  (the fixture)

pytestmark = pytest.mark.browser

CARDS = """(sel) => [...document.querySelectorAll(sel + ' tbody tr')].map(tr => {
    const cell = (c) => { const td = tr.querySelector('td.' + c);
        return td && td.getBoundingClientRect().height > 0 ? td.innerText.trim() : null; };
    const link = tr.querySelector('td.source a');
    return {gpu: cell('gpu'), interconnect: cell('interconnect'), source: cell('source'),
            link: link ? link.getBoundingClientRect().height > 0 : false};
})"""


@pytest.mark.parametrize("path", ["/", "/?gpu=H100&page=2", "/gpus/H100-SXM"])
def test_an_offer_card_shows_its_source_and_a_multi_gpu_card_its_interconnect(
    browser: Browser,
    bundled_url: str,  # noqa: F811
    path: str,
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    try:
        page.goto(bundled_url + path)
        table = "#gpu-offers" if path.startswith("/gpus/") else "#offers"
        cards = page.evaluate(CARDS, table)
        has_interconnect = page.locator(f"{table} thead th", has_text="Interconnect").count() > 0
        assert page.evaluate("document.documentElement.scrollWidth") == 390
    finally:
        context.close()
    assert cards
    for card in cards:
        assert card["source"], card  # shown, its label before it ("Source: ")
        found = re.search(r"×\s*(\d+)$|^(\d+)\s*×", card["gpu"])  # "H100 × 8" or "8× H100-SXM"
        assert found, card
        count = int(found.group(1) or found.group(2))
        if has_interconnect and count > 1:
            assert re.match(r"(NVLink|PCIe|unknown)", card["interconnect"] or ""), card
        else:
            assert card["interconnect"] is None, card
