"""In headless Chromium: the advisor's kind tabs land on a clean form that submits and answers, with
and without JavaScript, and the sources table is a card per source on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}


def new_page(browser: Browser, width: str, *, javascript: bool = True) -> Page:
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h}, java_script_enabled=javascript)
    return context.new_page()


@pytest.mark.parametrize(("width", "javascript"), [("desktop", True), ("phone", True), ("desktop", False)])
def test_a_kind_tab_lands_on_a_clean_form_that_then_answers(
    browser: Browser, base_url: str, width: str, javascript: bool
) -> None:
    page = new_page(browser, width, javascript=javascript)
    try:
        page.goto(base_url + "/advise?kind=serve&model=llama-3.1-8b&concurrency=8")
        with page.expect_navigation() as nav:
            page.locator("nav.kinds a", has_text="Batch generation").click()
        response = nav.value
        assert response is not None and response.status == 200
        expect(page.locator(".field-error")).to_have_count(0)
        expect(page.locator("input[name=model]")).to_have_value("llama-3.1-8b")
        expect(page.locator("input[name=images_total]")).to_have_count(0)  # a language model's batch
        # submitting it without a total is an error at the field the form shows
        if width == "phone":
            expect(page.locator("#workload-fold")).to_have_attribute("open", "")
        page.click("form.workload button[type=submit]")
        expect(page.locator("#err-output_tokens_total")).to_contain_text("Output tokens in all is required")
        page.fill("input[name=output_tokens_total]", "1000000")
        page.click("form.workload button[type=submit]")
        expect(page.locator("#ranked")).to_be_visible()
        expect(page.locator(".field-error")).to_have_count(0)
    finally:
        page.context.close()


def test_the_sources_table_is_a_card_per_source_on_a_phone(browser: Browser, base_url: str) -> None:
    page = new_page(browser, "phone")
    try:
        page.goto(base_url + "/sources")
        rows = page.locator("#sources tbody tr")
        assert rows.count() >= 2
        for i in range(rows.count()):
            for cell in rows.nth(i).locator("td").all():
                if not cell.is_visible():
                    continue
                box = cell.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, cell.inner_text()
        first = rows.first
        expect(first.locator("td.observed")).to_be_visible()
        expect(first.locator("td.status")).to_be_visible()
        label = first.locator("td.observed").evaluate("e => getComputedStyle(e, '::before').content")
        assert "Prices observed" in label
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        page.context.close()
