"""The advise page's $/h cell says when a row rents several instances of the offer ('2 × $3.20')."""

from __future__ import annotations

import re

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
