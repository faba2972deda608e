"""The advisor's ranked table fits its box on a desktop from 1280 px (stop 61 browser review). Over
the bundled catalog it was wider than the page at every desktop width (serve 1,565 px, pre-training
1,491, an image batch 1,456 in a 1,398 px box at 1440): the Note column began off-screen with nothing to
say so, the $/h column was cut at 1440, and an opened "Why #N" breakdown was clipped too. Its cells did
not wrap: a serving row's two speeds on one line (357 px), the pick badges beside the GPU (up to 408 px),
the divider's sentence on one line (1,400 px alone). Now each wraps between whole pieces; a phone keeps
its cards."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.web.test_browser_layout import bundled_url  # noqa: F401  (the fixture)

pytestmark = pytest.mark.browser

ANSWERS = {
    "serve": "kind=serve&sent=1&model=llama-3.1-8b&concurrency=32&prompt_tokens=2000&output_tokens=500",
    "serve 70B": "kind=serve&model=llama-3.1-70b&precision=fp8&concurrency=16&prompt_tokens=4000"
    "&output_tokens=800",
    "batch": "kind=batch&model=llama-3.1-8b&output_tokens_total=100M",
    "images": "kind=batch&model=flux.1-dev&images_total=100000&steps=28",
    "fine-tune": "kind=finetune&model=llama-3-70b&method=qlora&dataset_tokens=50e6&epochs=2"
    "&spot_allowed=true",
    "pre-train": "kind=pretrain&model=llama-3.2-1b&token_budget=1e10",
}

FIT = """() => {
    const box = document.querySelector('.table-wrap.cards-phone');
    const right = box.getBoundingClientRect().right;
    const past = [...document.querySelectorAll('#ranked tr.main td, #ranked tr.detail .card')]
        .filter(e => e.getBoundingClientRect().right > right + 1)
        .map(e => (e.className || e.tagName) + ' ends at ' + Math.round(e.getBoundingClientRect().right));
    return {scroll: box.scrollWidth, client: box.clientWidth, right: Math.round(right),
            past: past.slice(0, 3), page: document.documentElement.scrollWidth,
            view: document.documentElement.clientWidth};
}"""


@pytest.mark.parametrize("width", [1280, 1440, 1920])
def test_the_ranked_table_fits_its_box_on_a_desktop(
    browser: Browser,
    bundled_url: str,  # noqa: F811
    width: int,
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    wide: list[str] = []
    try:
        for name, query in ANSWERS.items():
            page.goto(f"{bundled_url}/advise?{query}")
            page.evaluate("document.querySelector('#rank-1 details.breakdown-toggle').open = true")
            fit = page.evaluate(FIT)
            if fit["scroll"] > fit["client"] or fit["past"] or fit["page"] > fit["view"]:
                wide.append(f"{name}: {fit}")
    finally:
        context.close()
    assert not wide


def test_a_serving_rows_two_speeds_are_two_lines_and_the_badges_sit_under_the_gpu(
    browser: Browser,
    bundled_url: str,  # noqa: F811
) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{bundled_url}/advise?{ANSWERS['serve']}")
        served, per_user = page.locator("#rank-1 td.speed span.part").all()
        assert served.inner_text().endswith("tok/s served") and per_user.inner_text().endswith(
            "per user decoding"
        )
        a, b = served.bounding_box(), per_user.bounding_box()
        assert a and b and b["y"] >= a["y"] + a["height"] - 1  # one under the other
        rented = page.locator("tr.main[data-picks] td.gpu .rented").first.bounding_box()
        badge = page.locator("tr.main[data-picks] td.gpu .badge.pick").first.bounding_box()
        assert rented and badge and badge["y"] >= rented["y"] + rented["height"] - 1
    finally:
        context.close()


def test_a_phone_keeps_its_cards(browser: Browser, bundled_url: str) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        for name, query in ANSWERS.items():
            page.goto(f"{bundled_url}/advise?{query}")
            fit = page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
                " getComputedStyle(document.querySelector('#ranked tbody')).display]"
            )
            assert fit[0] <= fit[1] and fit[2] == "block", (name, fit)
            speed = page.locator("#rank-1 td.speed").inner_text()
            assert "·" in speed or "served" not in speed, speed  # a phone's two speeds read on, as before
    finally:
        context.close()
