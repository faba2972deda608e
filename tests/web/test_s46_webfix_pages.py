"""A GPU page's price chart draws the prices one can rent at: no defunct provider, current providers
before stale ones (marked), and names each provider it leaves out and why (only undated prices, past the
lines drawn); a page not found has one title and links to the main pages; the screenshot script asks
the advisor with parameters it takes."""

from __future__ import annotations

import importlib.util
import re
import sys
from datetime import UTC, datetime, timedelta
from html import unescape
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from fastapi.testclient import TestClient

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.advise_form import stray_params
from gpuscout.web.charts import MAX_LINES, price_history_chart
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer
from tests.web.history_points import NEWEST, Point


def _names(chart: object) -> list[str]:
    return [t["name"] for t in chart.figure["data"]]  # type: ignore[attr-defined]


# ---- 2. the price history chart ------------------------------------------------------------------------
def test_undated_prices_are_named_not_dropped_silently() -> None:
    points = [
        Point(None, "vastai", 1.8, 1.9),
        Point(None, "lium", 1.7, 1.7),
        Point(NEWEST - timedelta(days=10), "runpod", 2.9, 2.9),
        Point(NEWEST - timedelta(hours=1), "runpod", 2.3, 2.3),
    ]
    chart = price_history_chart(points, "H100-SXM", newest=NEWEST)
    assert _names(chart) == ["RunPod"]
    # was: "Prices of H100-SXM from 1 provider ...", Vast.ai and Lium unsaid (their offers are current)
    assert "Not in the chart: Lium and Vast.ai (no dated price)." in chart.summary


def test_a_stale_line_comes_after_the_current_ones_and_is_marked() -> None:
    old = NEWEST - timedelta(days=60)
    points = [
        Point(old, "lambda", 0.99, 0.99),  # the cheapest latest price, two months old
        Point(NEWEST - timedelta(days=10), "runpod", 2.9, 2.9),
        Point(NEWEST - timedelta(hours=1), "runpod", 2.3, 2.3),
    ]
    chart = price_history_chart(points, "H100-SXM", newest=NEWEST)
    names = _names(chart)
    assert names[0] == "RunPod"  # was Lambda first: chosen by its latest price whatever its age
    assert names[1] == f"Lambda (stale: last {old:%Y-%m-%d})"
    assert chart.figure["data"][1]["line"]["dash"] == "dot" and "dash" not in chart.figure["data"][0]["line"]
    assert "Dotted: stale, no price within 2 days of the newest prices" in chart.summary
    assert f"Lambda ({old:%Y-%m-%d})" in chart.summary


def test_the_lines_past_the_most_drawn_are_named() -> None:
    providers = [
        "aws",
        "lambda",
        "vastai",
        "runpod",
        "lium",
        "nebius",
        "oci",
        "verda",
        "fluidstack",
        "seeweb",
    ]
    points = [
        Point(NEWEST - timedelta(days=d), prov, 1.0 + i / 10, 1.0 + i / 10)
        for i, prov in enumerate(providers)
        for d in (0, 1)
    ]
    chart = price_history_chart(points, "H100-SXM", newest=NEWEST)
    assert len(chart.figure["data"]) == MAX_LINES
    assert f"(past the {MAX_LINES} lines drawn)" in chart.summary  # were left out unsaid
    assert "Fluidstack" in chart.summary.split("Not in the chart:")[1]


def _history_store(url: str) -> None:
    """The reviewer's store: a live feed's H100 read twice, an old Lambda price, a defunct provider's
    price, and the bundled snapshot's undated H100 prices of two providers."""
    now = datetime.now(UTC).replace(microsecond=0)

    def h100(provider: str, price: float, at: datetime | None, **kw: object) -> object:
        return make_offer(
            provider=provider,
            instance_type=f"{provider}-h100",
            price_usd_per_hour=price,
            observed_at=at,
            **kw,
        )

    with Store(url) as store:
        store.write_snapshot(
            SNAPSHOT_NAME,
            [h100("vastai", 1.9, None, source="snapshot:x"), h100("lium", 1.7, None, source="snapshot:x")],
            fallback=True,
            fingerprint=SNAPSHOT_SHA256,
        )
        store.write_snapshot("runpod", [h100("runpod", 2.9, now - timedelta(days=10))])
        store.write_snapshot("runpod", [h100("runpod", 2.3, now - timedelta(hours=1))])
        store.write_snapshot("lambda", [h100("lambda", 0.99, now - timedelta(days=60))])
        store.write_snapshot("cudo", [h100("cudo", 1.05, now - timedelta(days=200))])  # defunct since 2026-03


def test_the_gpu_page_charts_no_defunct_provider_and_names_the_undated(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    _history_store(url)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        page = client.get("/gpus/H100-SXM").text
    figure = page.split('id="chart-history"')[1] if 'id="chart-history"' in page else page
    summary = " ".join(unescape(page.split('id="chart-history-summary">')[1].split("</p>")[0]).split())
    assert "Cudo" not in figure.split("</figure>")[0]  # was a line of a provider gone since March
    assert "Not in the chart: Lium and Vast.ai (no dated price)" in summary, summary
    assert "RunPod" in figure and "stale: last" in figure


# ---- 8. a page not found ------------------------------------------------------------------------------
def test_a_page_not_found_says_it_once_and_leads_to_the_main_pages(client: TestClient) -> None:
    r = client.get("/no-such-page")
    assert r.status_code == 404
    main = r.text.split('<main id="main"')[1].split("</main>")[0]
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", main)).split())
    assert text.lower().count("not found") == 1  # was "Not found Not Found"
    assert "There is no page at <code>/no-such-page</code>." in main
    links = set(re.findall(r'href="([^"]+)"', main))
    assert {"/advise", "/", "/gpus", "/models", "/sources"} <= links  # was the offers only


def test_an_unknown_gpu_page_keeps_its_message_and_names(client: TestClient) -> None:
    main = client.get("/gpus/H1000").text.split('<main id="main"')[1].split("</main>")[0]
    assert "unknown name" in main and 'href="/gpus/H100' in main and 'href="/advise"' in main


# ---- 12. the screenshot script's pages ------------------------------------------------------------------
def test_the_screenshot_script_asks_the_advisor_in_its_own_parameters() -> None:
    path = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"
    spec = importlib.util.spec_from_file_location("screenshots_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    advisor = [p for p in module.PAGES if p.startswith("/advise?")]
    kinds = set()
    for page in advisor:
        params = dict(parse_qsl(urlsplit(page).query))
        kinds.add(params.get("kind"))
        if int(params.get("concurrency", "1")) < 1:  # the page of a bad input, on purpose
            continue
        assert stray_params(params, params.get("kind", "serve")) == [], page  # was spot=true: a 422
    assert {"serve", "finetune", "pretrain", "batch"} <= kinds
