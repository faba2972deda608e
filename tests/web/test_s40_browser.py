"""In headless Chromium at 1440 and 390 px: the closest names under a GPU, engine or provider field of the
advisor, and the FAQ's form with its errors, fit the page (nothing scrolls sideways) and are links."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.web.test_browser_layout import WIDTHS, new_page

pytestmark = pytest.mark.browser

VIEWS = {
    "/advise?kind=serve&model=llama-3.1-8b&sent=1&accelerators=L40S,RTX 6000": "accelerators",
    "/advise?kind=serve&model=llama-3.1-8b&sent=1&engine=vlm": "engine",
    "/advise?kind=serve&model=llama-3.1-8b&sent=1&providers=alphaclod": "providers",
    "/faq?model=llama-3.1-70b&context=nan&users=-1&gpu=RTX 6000&precision=fp9": "gpu",
}


@pytest.mark.parametrize("width", WIDTHS)
def test_suggestions_fit_and_lead_to_the_form_with_the_name_replaced(
    browser: Browser, base_url: str, width: str
) -> None:
    page = new_page(browser, width)
    try:
        for path, field in VIEWS.items():
            page.goto(base_url + path)
            error = page.locator(f"#err-{field}")
            expect(error).to_be_visible()
            links = error.locator(".suggest a")
            assert links.count() >= 1, path
            box, view = error.bounding_box(), page.viewport_size
            assert box and view and box["x"] >= 0 and box["x"] + box["width"] <= view["width"], path
            scroll, client = page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert scroll <= client, f"{path}: {scroll} px wide in a {client} px window"
        page.goto(base_url + "/advise?kind=serve&model=llama-3.1-8b&sent=1&providers=alphaclod")
        page.locator("#err-providers .suggest a").first.click()
        page.wait_for_load_state()
        expect(page.locator("#err-providers")).to_have_count(0)
        expect(page.locator("input[name=providers]")).to_have_value("alphacloud")
    finally:
        page.context.close()
