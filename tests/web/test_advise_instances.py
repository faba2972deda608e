"""The advise page's $/h cell says when a row rents several instances of the offer ('2 × $3.20')."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient


def test_a_multi_instance_row_prices_each_instance_times_the_count(client: TestClient) -> None:
    page = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b", "concurrency": 256})
    assert page.status_code == 200, page.text
    configs = re.findall(r'data-label="Config">(.*?)</td>', page.text)
    prices = re.findall(r'data-label="\$/h">(.*?)</td>', page.text)
    assert configs and len(configs) == len(prices)
    rows = list(zip(configs, prices, strict=True))
    assert rows
    several = [(config, price) for config, price in rows if re.match(r"\d+ x ", config)]
    assert several, "expected a multi-instance row in this scenario"
    for config, price in several:
        assert price.startswith(f"{config.split(' ')[0]} × $"), (config, price)
    assert all(price.startswith("$") for config, price in rows if (config, price) not in several)


def test_the_offer_card_says_what_the_source_notes_about_the_price(tmp_path: Path) -> None:
    # a catalog row priced at the median of a group of listings read like a listing one could rent
    from gpuscout.catalog.store import Store
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices
    from tests.web.conftest import SNAPSHOT_NAME, SNAPSHOT_SHA256, make_offer

    note = "price: the median of a group of Vast.ai offers in SkyPilot's catalog, not one listing"
    url = f"sqlite:///{tmp_path / 'notes.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.write_snapshot("test", [make_offer(provider="alphacloud", instance_type="grouped", notes=note)])
    store.close()
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as c:
        page = c.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b"})
    assert page.status_code == 200
    card = page.text.split("<h3>The offer</h3>", 1)[1].split("</dl>", 1)[0]
    assert "<dt>Source's note</dt>" in card and "not one listing" in card
