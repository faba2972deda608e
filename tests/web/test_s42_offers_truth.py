"""The comparison page, its exports and ``/api/v1/offers`` read the catalog's one staleness rule (no rule
of the web's own: a live price fetched over two days before the store's newest is stale, a store
refreshed three days ago is not), mark a vGPU slice and price it per whole GPU's worth, list a live
resale at its first party's price once ("also resold by Prime Intellect"), and say that a provider
shut down."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.offer_view import STALE_AFTER
from gpuscout.web.schemas import OfferOut
from gpuscout.web.services import WebServices
from tests.web.conftest import NOW, make_offer


def _client(
    tmp_path: Path, snapshots: dict[str, Sequence[Offer]], bundled: Sequence[Offer] = ()
) -> TestClient:
    url = f"sqlite:///{tmp_path / 'web.db'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, list(bundled), fallback=True, fingerprint=SNAPSHOT_SHA256)
        for source, offers in snapshots.items():
            store.write_snapshot(source, list(offers))
    return TestClient(create_app(url, services=WebServices(url, cache_seconds=0)))


@pytest.fixture
def two_ages(tmp_path: Path) -> Iterator[TestClient]:
    """A fresh live row and one whose provider was not refreshed for three days."""
    fresh = make_offer(provider="vastai", instance_type="fresh", observed_at=NOW - timedelta(hours=1))
    old = make_offer(provider="lium", instance_type="old", observed_at=NOW - timedelta(days=3))
    with _client(tmp_path, {"vastai": [fresh], "lium": [old]}) as client:
        yield client


def _api(client: TestClient, **params: str) -> dict[str, bool]:
    body = client.get("/api/v1/offers", params=params).json()
    return {o["instance_type"]: o["stale"] for o in body["items"]}


def _table_rows(html: str) -> dict[str, str]:
    """The page's rows as text, by instance."""
    rows = re.findall(r"<tr>\s*<td class=\"provider\".*?</tr>", html, re.S)
    texts = [" ".join(re.sub(r"<[^>]+>", " ", r).split()) for r in rows]
    return {
        re.findall(r'data-label="Instance" title="([^"]*)"', r)[0]: t
        for r, t in zip(rows, texts, strict=True)
    }


def test_the_web_reads_the_catalogs_rule(two_ages: TestClient) -> None:
    assert timedelta(days=2) == STALE_AFTER  # the catalog's, re-exported
    assert _api(two_ages, include_stale="true") == {"fresh": False, "old": True}
    assert _api(two_ages) == {"fresh": False}  # stale prices are hidden unless asked for
    assert _api(two_ages, include_stale="true", provider="lium") == {"old": True}  # the lean path's filters
    rows = _table_rows(two_ages.get("/", params={"include_stale": "true"}).text)
    assert "stale" in rows["old"] and "stale" not in rows["fresh"]
    assert list(_table_rows(two_ages.get("/").text)) == ["fresh"]
    exported = json.loads(two_ages.get("/offers.json", params={"include_stale": "true"}).text)
    assert {o["instance_type"]: o["stale"] for o in exported} == {"fresh": False, "old": True}
    assert "fetched over 2 days before the catalog's newest prices" in two_ages.get("/").text


def test_a_store_refreshed_three_days_ago_is_not_stale_on_the_web(tmp_path: Path) -> None:
    with _client(tmp_path, {
        "vastai": [make_offer(provider="vastai", instance_type="a", observed_at=NOW - timedelta(days=3))],
        "lium": [make_offer(provider="lium", instance_type="b", observed_at=NOW - timedelta(days=4))],
    }) as client:  # fmt: skip
        assert _api(client) == {"a": False, "b": False}
        assert all("stale" not in row for row in _table_rows(client.get("/").text).values())


def test_a_slice_is_marked_and_priced_per_whole_gpu(tmp_path: Path) -> None:
    a100 = {"provider": "vultr", "accelerator": "A100-SXM4-80GB"}
    sliced = make_offer(instance_type="vcg-a100-1c-6g-4vram", gpu_memory_gb=4.0, fractional=True,
                        price_usd_per_hour=0.123, **a100)  # fmt: skip
    whole = make_offer(instance_type="vcg-a100-12c-120g-80vram", price_usd_per_hour=2.397, **a100)
    with _client(tmp_path, {"vultr": [sliced, whole]}) as client:
        items = client.get("/api/v1/offers").json()["items"]
        assert [(o["instance_type"], o["price_usd_per_gpu_hour"]) for o in items] == [
            ("vcg-a100-12c-120g-80vram", 2.397),
            ("vcg-a100-1c-6g-4vram", pytest.approx(2.46)),
        ]
        model = OfferOut.from_offer(sliced, timedelta(hours=1)).model_dump(mode="json")
        assert model["price_usd_per_gpu_hour"] == items[1]["price_usd_per_gpu_hour"]  # the model path's too
        html = client.get("/", params={"min_vram": ""}).text  # every offer: not only 24 GB and more
        rows = _table_rows(html)
        assert "1/20 slice" in rows["vcg-a100-1c-6g-4vram"] and "$2.46" in rows["vcg-a100-1c-6g-4vram"]
        assert "slice" not in rows["vcg-a100-12c-120g-80vram"]
        assert 'id="slice-note"' in html and "for a whole GPU's worth" in html


def test_a_live_resale_at_the_first_partys_price_is_one_row(tmp_path: Path) -> None:
    common = {"region": "CANADA-1", "accelerator": "H100-PCIe", "price_usd_per_hour": 1.9}
    own = make_offer(provider="hyperstack", instance_type="n3-H100x1", observed_at=None, **common)
    resale = make_offer(provider="primeintellect", instance_type="hyperstack:n3-H100x1", **common)
    with _client(tmp_path, {"primeintellect": [resale]}, [own]) as client:
        body = client.get("/api/v1/offers").json()
        assert body["total"] == 1 and body["items"][0]["also_listed_by"] == ["primeintellect"]
        assert "also resold by Prime Intellect" in _table_rows(client.get("/").text)["n3-H100x1"]


def test_a_provider_that_shut_down_is_said_so(two_ages: TestClient) -> None:
    said = "Cudo Compute shut down on 2026-03-31 (https://github.com/dstackai/dstack/pull/4018)"
    answer = two_ages.get("/api/v1/offers", params={"provider": "cudo"})
    assert answer.status_code == 422 and said in answer.json()["message"]
    page = two_ages.get("/", params={"provider": "cudo"})
    assert page.status_code == 422 and said in page.text and "no current offer" not in page.text
