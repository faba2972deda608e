"""The pages' counts agree with their nouns: a bundled snapshot of one offer from one provider reads
"1 current offer from 1 provider" in both banners, not "1 current offers from 1 providers"; the GPU
page, the advisor's empty answer and the bandwidth chart's summary alike."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.knowledge.accelerators import all_accelerators
from gpuscout.web import create_app
from gpuscout.web.charts import price_vs_bandwidth_chart
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer


def _client(tmp_path: Path, offers: int) -> TestClient:
    """The app over a store whose bundled snapshot holds ``offers`` RTX 4090 offers of one provider."""
    url = f"sqlite:///{tmp_path / 'one.db'}"
    store = Store(url)
    rows = [
        make_offer(
            provider="onlycloud",
            instance_type=f"g-4090-{i}",
            accelerator="RTX4090",
            gpu_memory_gb=24.0,
            price_usd_per_hour=0.5 + i / 10,
            source="snapshot:https://example.org/catalog.csv",
            observed_at=None,
        )
        for i in range(offers)
    ]
    store.write_snapshot(SNAPSHOT_NAME, rows, fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.close()
    return TestClient(create_app(url, services=WebServices(url, cache_seconds=0)))


@pytest.fixture()
def one(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path, 1) as client:
        yield client


def _text(page: str, element_id: str) -> str:
    block = page.split(f'id="{element_id}"', 1)[1].split("</p>", 1)[0]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", block)).split())


def test_one_bundled_offer_from_one_provider_in_both_banners(one: TestClient) -> None:
    assert "1 current offer from 1 provider," in _text(one.get("/").text, "freshness")
    assert "(1 current offer from 1 provider)" in _text(one.get("/sources").text, "freshness")


def test_two_bundled_offers_from_one_provider(tmp_path: Path) -> None:
    with _client(tmp_path, 2) as client:
        assert "2 current offers from 1 provider," in _text(client.get("/").text, "freshness")


def test_the_gpu_page_links_to_its_one_offer(one: TestClient) -> None:
    assert "All 1 offer in the comparison table" in one.get("/gpus/RTX4090").text


def test_an_empty_answer_over_one_offer_says_one_offer(one: TestClient) -> None:
    params = {"kind": "serve", "model": "llama-3.1-405b", "concurrency": "8"}
    r = one.get("/advise", params=params)
    assert 'id="no-results"' in r.text
    assert re.search(r'<p class="note">1 offer looked at\.', r.text)


def test_the_bandwidth_chart_of_one_gpu_says_one_gpu() -> None:
    chart = price_vs_bandwidth_chart([make_offer(accelerator="H100-SXM")], all_accelerators())
    assert chart.summary.startswith("1 GPU with an on-demand price.")
