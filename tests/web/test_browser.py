"""The web app in real headless Chromium (Debian's, driven by Playwright; no browser download)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.web.conftest import XSS

pytestmark = pytest.mark.browser


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    dialogs: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(msg.text)

    pg.on("console", on_console)
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    yield pg
    context.close()
    assert not dialogs, f"a script ran: {dialogs}"
    assert not errors, f"console errors (CSP violations show up here): {errors}"


def column(page: Page, cls: str) -> list[str]:
    return [t.strip() for t in page.locator(f"#offers tbody td.{cls}").all_inner_texts()]


def money(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


def test_filter_by_gpu_and_max_price(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    expect(page.locator("#offers tbody tr")).to_have_count(8)  # the stale one is hidden by default
    page.fill("input[name=gpu]", "H100")
    page.fill("input[name=max_price]", "5")
    page.click("form.filters button[type=submit]")
    expect(page.locator("#offers tbody tr")).to_have_count(2)
    assert all(g.startswith("H100-SXM") for g in column(page, "gpu"))
    assert all(money(p) <= 5 for p in column(page, "price"))
    assert "gpu=H100" in page.url and "max_price=5" in page.url
    assert "min_vram=24" in page.url  # the default view's filter, kept explicitly
    assert "gpus=" not in page.url and "region=" not in page.url  # empty fields are dropped


def test_sort_by_price_per_gpu_hour_changes_the_order(page: Page, base_url: str) -> None:
    page.goto(base_url + "/?sort=provider")
    before = column(page, "instance")
    page.click("th[data-col=price_per_gpu] a")
    expect(page.locator("th[data-col=price_per_gpu]")).to_have_attribute("aria-sort", "ascending")
    ascending = [money(p) for p in column(page, "per-gpu") if p != "—"]
    assert ascending == sorted(ascending) and column(page, "instance") != before
    page.click("th[data-col=price_per_gpu] a")
    expect(page.locator("th[data-col=price_per_gpu]")).to_have_attribute("aria-sort", "descending")
    descending = [money(p) for p in column(page, "per-gpu") if p != "—"]
    assert descending == sorted(ascending, reverse=True)


def test_csv_export_matches_the_visible_rows(page: Page, base_url: str, tmp_path: Path) -> None:
    page.goto(base_url + "/?pricing=spot&sort=spot_price&order=desc")
    visible = list(zip(column(page, "provider"), column(page, "instance"), column(page, "spot"), strict=True))
    with page.expect_download() as info:
        page.click("#export-csv")
    path = tmp_path / "export.csv"
    info.value.save_as(path)
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    exported = [
        (r["provider"], r["instance_type"], f"${float(r['spot_price_usd_per_hour']):,.2f}") for r in rows
    ]
    assert exported == visible and len(visible) == 4


def test_provider_string_with_script_tag_is_shown_as_text(page: Page, base_url: str) -> None:
    page.goto(base_url + "/?gpu=L40S&sort=price")
    assert column(page, "provider")[0] == XSS  # rendered as text; the dialog listener saw no alert
    assert page.locator("#offers td.provider script").count() == 0


def test_gpu_page_draws_the_price_history_chart(page: Page, base_url: str) -> None:
    page.goto(base_url + "/gpus/H100-SXM")
    chart = page.locator("#chart-history")
    expect(chart).to_have_attribute("data-rendered", "true")
    assert chart.locator("svg.main-svg").count() >= 1
    assert chart.locator("g.trace").count() >= 1  # plotly drew the traces
    expect(page.locator("#gpu-offers tbody tr")).to_have_count(4)


def test_gpus_page_draws_price_versus_bandwidth(page: Page, base_url: str) -> None:
    page.goto(base_url + "/gpus")
    chart = page.locator("#chart-bandwidth")
    expect(chart).to_have_attribute("data-rendered", "true")
    points = chart.locator("g.trace path.point")
    expect(points).to_have_count(4)  # H100-SXM, A100-SXM4-80GB, RTX4090 and L40S have on-demand offers
    assert chart.locator("g.legend").count() == 1  # vendor and class of card in a legend


def test_advisor_serve_workload_gives_ranked_rows_with_reasons(page: Page, base_url: str) -> None:
    page.goto(base_url + "/advise")
    page.fill("input[name=model]", "llama-3.1-8b")
    page.fill("input[name=concurrency]", "8")
    page.fill("input[name=prompt_tokens]", "2000")
    page.fill("input[name=output_tokens]", "500")
    page.click("form.workload button[type=submit]")
    rows = page.locator("#ranked tr.main")
    expect(rows.first).to_be_visible()
    assert rows.count() >= 3
    ranks = [int(r) for r in page.locator("#ranked td.rank").all_inner_texts()]
    assert ranks == list(range(1, len(ranks) + 1))
    for rank in ranks:  # every row says why (fit, speed, cost), in the breakdown beside it
        assert page.locator(f"#rank-{rank} ul.reasons li").count() >= 2
    assert all("tok/s" in s for s in page.locator("#ranked td.speed").all_inner_texts())
    providers = [p.strip() for p in page.locator("#ranked td.provider").all_inner_texts()]
    assert "epsilon" not in providers  # spot-only offer: never for a live endpoint unless allowed
    assert "model=llama-3.1-8b" in page.url and "concurrency=8" in page.url  # form state in the URL
    breakdown = page.locator("#rank-1 .breakdown")
    expect(breakdown).to_be_hidden()
    page.locator("#rank-1 summary.explain").click()  # opens in place, under its row
    expect(breakdown).to_be_visible()
    expect(breakdown).to_contain_text("Compute")
    expect(page.locator("input[name=concurrency]")).to_have_value("8")  # the form is refilled


def test_api_docs_render_offline_under_the_csp(page: Page, base_url: str) -> None:
    page.goto(base_url + "/docs")
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible()
    assert page.locator(".swagger-ui .opblock").count() >= 10


def test_model_page_draws_the_vram_chart_with_card_sizes(page: Page, base_url: str) -> None:
    page.goto(base_url + "/models/llama-3.1-70b")
    chart = page.locator("#chart-vram")
    expect(chart).to_have_attribute("data-rendered", "true")
    assert chart.locator("g.trace").count() == 4 + 5  # one line per concurrency, one per card size
    expect(chart.locator("g.trace text", has_text="H200 141 GB")).to_have_count(1)


def test_table_filters_and_sorts_with_javascript_disabled(browser: Browser, base_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(base_url + "/")
        page.fill("input[name=gpu]", "RTX4090")
        page.click("form.filters button[type=submit]")
        expect(page.locator("#offers tbody tr")).to_have_count(2)  # filtered on the server
        page.click("th[data-col=vram] a")
        expect(page.locator("th[data-col=vram]")).to_have_attribute("aria-sort", "ascending")
        # per GPU (the filter's meaning); the tie goes to the cheaper per GPU-hour (4x at $0.40)
        assert [" ".join(v.split()) for v in column(page, "vram")] == ["24 GiB · 96 GiB total", "24 GiB"]
    finally:
        context.close()
