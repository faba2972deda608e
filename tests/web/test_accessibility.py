"""axe-core (vendored from npm, see vendor/README.md) on every page at 1440 and 390 px: no serious or
critical violation. Also the structure axe does not judge alone: a skip link, one h1 and headings
in order, no empty header cell, text alternatives for the charts."""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import Browser

from tests.web.browser_support import (
    axe_violations,
)
from tests.web.test_browser_layout import PAGES, WIDTHS, new_page, settle

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_no_serious_or_critical_violation_on_any_page(
    browser: Browser, base_url: str, width: str
) -> None:
    page = new_page(browser, width)
    found: dict[str, list[str]] = {}
    try:
        for path in PAGES:
            page.goto(base_url + path)
            settle(page, path)
            violations = axe_violations(page)
            if violations:
                found[path] = violations
        # the breakdown beside an advisor row, opened
        page.goto(base_url + "/advise?kind=serve&model=llama-3.1-8b&explain=1")
        settle(page, "/advise")
        if violations := axe_violations(page):
            found["/advise (breakdown open)"] = violations
    finally:
        page.context.close()
    assert not found


def test_structure_skip_link_headings_header_cells_and_chart_alternatives(
    browser: Browser, base_url: str
) -> None:
    page = new_page(browser, "desktop")
    try:
        for path in PAGES:
            page.goto(base_url + path)
            settle(page, path)
            skip = page.locator("a.skip")
            assert skip.get_attribute("href") == "#main", path
            levels = page.locator("main h1, main h2, main h3, main h4").evaluate_all(
                "els => els.filter(e => !e.closest('.swagger-ui')).map(e => Number(e.tagName[1]))"
            )
            assert levels and levels[0] == 1 and levels.count(1) == 1, path
            assert all(b - a <= 1 for a, b in itertools.pairwise(levels)), (path, levels)
            empty = page.locator("main th").evaluate_all(
                "els => els.filter(e => !e.closest('.swagger-ui') && !e.textContent.trim()).length"
            )
            assert empty == 0, path
            for chart in page.locator(".chart").all():
                label = chart.get_attribute("aria-label") or ""
                assert chart.get_attribute("role") == "img" and len(label) > 20, path
        page.keyboard.press("Tab")  # the first stop is the skip link, visible when focused
        assert page.evaluate("() => document.activeElement.className") == "skip"
    finally:
        page.context.close()
