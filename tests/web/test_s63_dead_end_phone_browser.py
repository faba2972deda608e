"""A dead end in real headless Chromium (stop 63): on a 390 px phone the first "Try this" link is on the
first screen (it was about 1,370 px down), every link is thumb-sized, the whole diagnosis is folded and
no text is smaller than the page's notes; on a wide screen the diagnosis is open; neither scrolls
sideways."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.web.browser_support import serve_bundled

pytestmark = pytest.mark.browser

DEAD_END = (
    "/advise?kind=serve&model=llama-3.1-70b&engine=llama.cpp&concurrency=4&prompt_tokens=1000"
    "&output_tokens=300&budget_usd=500"
)
MEASURE = """() => {
  const size = e => parseFloat(getComputedStyle(e).fontSize);
  const block = document.getElementById('no-results');
  const links = [...block.querySelectorAll('a.try-move')].map(a => a.getBoundingClientRect());
  return {
    scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
    open: document.getElementById('binding-why').open,
    firstLink: links[0].top + scrollY, linkHeights: links.map(r => r.height),
    smallest: Math.min(...[...block.querySelectorAll('*')].map(size)),
    note: size(block.querySelector('p.note')),
  };
}"""


@pytest.fixture(scope="module")
def bundled_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_bundled(tmp_path_factory) as url:
        yield url


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1440, 900)])
def test_a_dead_end_leads_with_its_links_and_folds_its_diagnosis_on_a_phone(
    browser: Browser, bundled_url: str, width: int, height: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(bundled_url + DEAD_END)
        page.wait_for_load_state("networkidle")
        got = page.evaluate(MEASURE)
    finally:
        context.close()
    assert got["scroll"] == got["client"] == width, got
    assert got["smallest"] >= got["note"], got
    if width < 600:
        assert got["firstLink"] < height, got  # on the first screen (the workload form folded away)
        assert not got["open"] and min(got["linkHeights"]) >= 44, got
    else:
        assert got["open"], got
