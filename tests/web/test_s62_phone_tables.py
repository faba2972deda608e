"""Tables at a phone's 390 px and a desktop's 1440 px (stop 62 web review).

- An offer card hid its interconnect and its source (``td.interconnect, td.source {display: none}``):
  for a multi-GPU offer NVLink or PCIe is a main reason to choose, and the footer promises that every
  price carries its source. A multi-GPU card now says its interconnect; every card keeps a small source
  link.
- /models: at 1440 the Hugging Face ids were cut beside a Model column with room to spare; at 390 the
  registry names broke mid-name and the int4 column lay past the edge.
- A model page's memory table at 390 wrapped numbers from their units and hid activations and overhead,
  so the figures shown did not add up to the total.
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


MODELS_FIT = """() => {
    const wrap = document.querySelector('#models').closest('.table-wrap');
    const box = wrap.getBoundingClientRect();
    const shown = (e) => e.getBoundingClientRect().height > 0;
    const cut = [...document.querySelectorAll('#models td.hf code, #models tbody td:first-child .sub')]
        .filter(e => shown(e) && (e.getBoundingClientRect().right > box.right + 1
                                  || e.getClientRects().length > 1))  // cut off, or broken over lines
        .map(e => e.innerText);
    const head = [...document.querySelectorAll('#models thead th')].filter(shown).map(th => th.innerText);
    const row = [...document.querySelectorAll('#models tbody tr')]
        .find(tr => tr.innerText.includes('llama-3.1-70b'));
    return {scroll: wrap.scrollWidth, client: wrap.clientWidth, cut: cut.slice(0, 5), head: head,
            row: row.innerText, page: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("width", [1440, 390])
def test_the_models_table_fits_with_every_name_and_id_whole(
    browser: Browser,
    bundled_url: str,  # noqa: F811
    width: int,
) -> None:
    """At 1440 the Hugging Face ids were cut ("meta-llama/Llama-3.3-70B-Inst…") beside a Model column
    with room to spare; at 390 the registry names broke ("llama-" / "3.1-70b") and the int4 column lay
    past the box's edge. Both fit now, each name and id on one line."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(bundled_url + "/models")
        fit = page.evaluate(MODELS_FIT)
    finally:
        context.close()
    assert fit["scroll"] <= fit["client"] and fit["page"] == width and not fit["cut"], fit
    heads = " | ".join(fit["head"])
    for column in ("Model", "Weights as published", "Weights int4"):
        assert column in heads, fit
    if width == 1440:
        assert "Params (B)" in heads and "Hugging Face id" in heads, fit
    # the size (its own column, or under the name on a phone) and both weights, number and unit whole
    row = " ".join(fit["row"].split())
    assert "70.6" in row and "131.4\u00a0GiB" in fit["row"] and "37.8\u00a0GiB" in fit["row"], fit


MEMORY = """() => {
    const shown = (e) => e.getBoundingClientRect().height > 0;
    const lines = (e) => {  // the lines its shown text is set on
        const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT), tops = new Set();
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            const r = document.createRange(); r.selectNodeContents(n);
            for (const x of r.getClientRects()) if (x.width > 0) tops.add(Math.round(x.bottom));
        }
        return tops.size; };
    const head = [...document.querySelectorAll('#memory thead th')].filter(shown).map(th => th.innerText);
    const rows = [...document.querySelectorAll('#memory tbody tr')].map(tr =>
        [...tr.querySelectorAll('td')].filter(shown).map(td => ({text: td.innerText, lines: lines(td)})));
    const notes = [...document.querySelectorAll('#memory-note')].filter(shown).map(p => p.innerText);
    const wrap = document.querySelector('#memory').closest('.table-wrap');
    return {head: head, rows: rows, notes: notes, page: document.documentElement.scrollWidth,
            scroll: wrap.scrollWidth, client: wrap.clientWidth};
}"""


@pytest.mark.parametrize("width", [1440, 390])
@pytest.mark.parametrize("model", ["llama-3.1-70b", "kimi-k2"])  # kimi-k2: 958 GiB in fp8-block
def test_the_memory_table_keeps_units_on_their_numbers_and_adds_up(
    browser: Browser,
    bundled_url: str,  # noqa: F811
    width: int,
    model: str,
) -> None:
    """At 390 a model page's memory table wrapped "131.4" / "GiB", and hid Activations and Overhead, so
    the Weights and KV cache it showed did not add up to its Total with nothing to say why. Each figure
    is one line now (a phone says the unit once, in the column's head), and on a phone an "Other" column
    (activations + overhead, said below) closes the sum."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{bundled_url}/models/{model}")
        memory = page.evaluate(MEMORY)
    finally:
        context.close()
    assert memory["page"] == width and memory["scroll"] <= memory["client"] and memory["rows"], memory
    head = memory["head"]
    names = [" ".join(h.split()).removesuffix(" (GiB)") for h in head]
    summed = ("Weights", "KV cache", "Activations", "Overhead", "Other")
    parts = [i for i, h in enumerate(names) if h in summed]
    total = names.index("Total")
    for row in memory["rows"]:
        assert row[0]["lines"] <= 2, row[0]  # "fp8-block" whole, "as published" under it
        for cell in row[1:]:
            assert cell["lines"] == 1, (cell, head)  # a number and its unit on one line
        for i in [*parts, total]:
            assert "GiB" in row[i]["text"] or "(GiB)" in head[i], (head, row)
        figure = [float(re.sub(r"[^\d.].*", "", row[i]["text"].replace(",", ""))) for i in [*parts, total]]
        assert abs(sum(figure[:-1]) - figure[-1]) <= 0.1 * len(parts), (head, row)
    if "Other" in head:
        assert memory["notes"] and "activations" in memory["notes"][0].lower(), memory
