"""An auction market's price is no on-demand price on the pages: the answer cards, the GPU pages and
the GPU list take their cheapest on-demand figure from the other offers, the tables mark the row
"auction", and a GPU page's chart and header count the same providers (stale prices left out of both,
and the chart names the counted providers it has no on-demand price of)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer

OFFERS = [
    make_offer(provider="lambda", instance_type="firm-1", price_usd_per_hour=2.5),
    make_offer(provider="lambda", instance_type="firm-8", gpu_count=8, price_usd_per_hour=24.0),
    # an auction market: the cheapest listed price, interruptible (price == spot in the source)
    make_offer(
        provider="mithril",
        instance_type="auction-1",
        price_usd_per_hour=1.0,
        spot_price_usd_per_hour=1.0,
        price_is_interruptible=True,
    ),
    make_offer(
        provider="vastai", instance_type="spot-1", price_usd_per_hour=3.0, spot_price_usd_per_hour=1.6
    ),
    make_offer(provider="azure", instance_type="stale-1", price_usd_per_hour=0.9, stale=True),
]


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'auction.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.write_snapshot("test", OFFERS)
    store.close()
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as c:
        yield c


def _between(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def test_the_answer_card_takes_the_cheapest_on_demand_price_one_can_rent(client: TestClient) -> None:
    card = _between(client.get("/").text, 'data-gpu="H100"', "</li>")
    assert '<span class="per-gpu">$2.50</span>' in card and "Lambda" in card  # not the $1.00 auction
    assert '<span class="spot-per-gpu">$1.00</span>' in card and "Mithril" in card  # with the spot prices
    assert "4 offers" in card  # the class's offers, the auction one included (the stale one is not)
    api = client.get("/api/v1/offers", params={"gpu": "H100", "pricing": "on-demand", "per_page": 1}).json()
    assert api["items"][0]["instance_type"] == "firm-1" and api["total"] == 3  # the card's first row


def test_the_gpu_page_headline_chart_and_count_agree(client: TestClient) -> None:
    html = client.get("/gpus/H100-SXM").text
    headline = _between(html, 'id="headline">', "</p>")
    assert "From <strong>$2.50/GPU-h</strong> on-demand (1× at Lambda" in headline
    assert "4 offers</a> from 3 providers" in headline  # Lambda, Mithril, Vast.ai (Azure's is stale)
    detail = client.get("/api/v1/gpus/H100-SXM").json()  # the API's figure is the page's
    assert detail["cheapest_usd_per_gpu_hour"] == 2.5
    summary = _between(html, 'id="chart-history-summary">', "</p>")
    assert "H100-SXM at 2 providers" in summary  # Lambda and Vast.ai: no stale Azure bar
    assert "Not in the chart: Mithril (auction price, interruptible like spot)." in summary
    assert "Azure" not in _between(html, "<h2>Prices</h2>", "<h2>Current offers")


def test_the_tables_mark_an_auction_price(client: TestClient) -> None:
    for path, params in (("/", {"gpu": "H100"}), ("/gpus/H100-SXM", {})):
        html = client.get(path, params=params).text
        rows = re.findall(r"<tr>.*?</tr>", html, re.S)
        auction = [r for r in rows if "auction-1" in r]
        assert auction and 'class="badge auction"' in auction[0], path
        assert not any('class="badge auction"' in r for r in rows if "auction-1" not in r), path
    html = client.get("/", params={"gpu": "H100"}).text
    assert 'id="auction-note"' in html
    on_demand = client.get("/", params={"gpu": "H100", "pricing": "on-demand"}).text
    assert "auction-1" not in on_demand and 'id="auction-note"' not in on_demand


def test_the_gpu_list_and_a_family_page_take_the_cheapest_on_demand_price(client: TestClient) -> None:
    gpus = client.get("/gpus").text
    row = next(r for r in re.findall(r"<tr>.*?</tr>", gpus, re.S) if "/gpus/H100-SXM" in r)
    assert "$2.50" in row and "$1.00" not in row
    family = client.get("/gpus/H100").text
    row = next(r for r in re.findall(r"<tr>.*?</tr>", family, re.S) if "/gpus/H100-SXM" in r)
    assert "$2.50" in row and "$1.00" not in row
