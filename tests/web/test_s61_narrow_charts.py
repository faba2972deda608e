"""The charts stay legible on a 390 px phone as on a 1440 px screen (real headless Chromium, the bundled
snapshot): no text of a chart is cut at its edge, the bandwidth chart's legend keeps off its x axis's
title and its point labels off each other and the markers, the VRAM chart's reference-line labels keep
off the curves' markers, and a bar's price fits past its bar."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.web.browser_support import serve_bundled

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}
Box = dict[str, float]


@pytest.fixture(scope="module")
def bundled_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app over a store filled from the bundled snapshot (what a newcomer sees)."""
    with serve_bundled(tmp_path_factory) as url:
        yield url


def _chart(browser: Browser, url: str, width: str, chart: str) -> tuple[Page, Any]:
    w, h = WIDTHS[width]
    page = browser.new_context(viewport={"width": w, "height": h}).new_page()
    page.goto(url, wait_until="networkidle")
    page.wait_for_selector(f"#{chart}[data-rendered='true']")
    return page, page.locator(f"#{chart}")


def _boxes(chart: Any, selector: str) -> list[Box]:
    """The bounding boxes of the chart's ``selector`` elements that draw something (non-empty text)."""
    found: list[Box] = chart.evaluate(
        """(c, sel) => [...c.querySelectorAll(sel)]
            .filter(e => e.tagName !== 'text' || e.textContent.trim())
            .map(e => { const r = e.getBoundingClientRect();
                        return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom, text: e.textContent}; })
            .filter(r => r.x1 > r.x0 && r.y1 > r.y0)""",
        selector,
    )
    return found


def _overlap(a: Box, b: Box, slack: float = 0.5) -> bool:
    return (
        a["x0"] + slack < b["x1"]
        and b["x0"] + slack < a["x1"]
        and a["y0"] + slack < b["y1"]
        and b["y0"] + slack < a["y1"]
    )


def _inside(a: Box, outer: Box) -> bool:
    return (
        outer["x0"] - 0.5 <= a["x0"]
        and a["x1"] <= outer["x1"] + 0.5
        and outer["y0"] - 0.5 <= a["y0"]
        and a["y1"] <= outer["y1"] + 0.5
    )


def _centre(a: Box) -> Box:
    x, y = (a["x0"] + a["x1"]) / 2, (a["y0"] + a["y1"]) / 2
    return {"x0": x, "y0": y, "x1": x, "y1": y}


def _svg(chart: Any) -> Box:
    return _boxes(chart, "svg.main-svg")[0]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_bandwidth_chart_keeps_its_titles_legend_and_labels_apart(
    browser: Browser, bundled_url: str, width: str
) -> None:
    page, chart = _chart(browser, bundled_url + "/gpus", width, "chart-bandwidth")
    svg = _svg(chart)
    titles = _boxes(chart, "g.g-xtitle text") + _boxes(chart, "g.g-ytitle text")
    assert len(titles) == 2
    for title in titles:  # a title longer than its axis is cut at the chart's edge
        assert _inside(title, svg), f"{title['text']!r} is cut: {title} outside {svg}"
    legend = _boxes(chart, "g.legend")[0]
    assert not _overlap(legend, titles[0]), "the legend covers the x axis's title"
    labels = _boxes(chart, "g.trace.scatter g.textpoint text")
    markers = _boxes(chart, "g.trace.scatter path.point")
    assert labels, "the value frontier is named"
    for i, label in enumerate(labels):
        assert _inside(label, svg), f"{label['text']!r} is cut at the chart's edge"
        others = [b["text"] for b in labels[i + 1 :] if _overlap(label, b)]
        assert not others, f"{label['text']!r} overlaps {others}"
        assert not [m for m in markers if _overlap(label, m, slack=1.5)], f"{label['text']!r} covers a marker"
    page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_vram_chart_writes_its_card_sizes_clear_of_the_curves(
    browser: Browser, bundled_url: str, width: str
) -> None:
    url = bundled_url + "/models/llama-3.1-70b?precision=int4&context=32768"
    page, chart = _chart(browser, url, width, "chart-vram")
    svg = _svg(chart)
    labels = _boxes(chart, "g.trace.scatter g.textpoint text")
    assert len(labels) == 5  # one per reference card
    markers = _boxes(chart, "g.trace.scatter path.point")
    for i, label in enumerate(labels):
        assert "GiB" in label["text"]
        assert _inside(label, svg), f"{label['text']!r} is cut at the chart's edge"
        # a crowded phone chart may leave no place clear of every curve: a marker may touch a label's
        # edge, never sit on its text (its centre inside the label hides a character)
        covered = [m for m in markers if _inside(_centre(m), label)]
        assert not covered, f"{label['text']!r} is covered by {len(covered)} markers"
        assert not [b for b in labels[i + 1 :] if _overlap(label, b)], f"{label['text']!r} overlaps a label"
    page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_bars_price_fits_past_its_bar(browser: Browser, bundled_url: str, width: str) -> None:
    page, chart = _chart(browser, bundled_url + "/gpus/H100-SXM", width, "chart-history")
    svg = _svg(chart)
    prices = [b for b in _boxes(chart, "g.trace.bars text") if b["text"].startswith("$")]
    assert len(prices) >= 5  # the bundled snapshot: one snapshot, a bar per provider
    for price in prices:
        assert price["x1"] <= svg["x1"] + 0.5, f"{price['text']} is cut at the chart's right edge"
    page.context.close()
