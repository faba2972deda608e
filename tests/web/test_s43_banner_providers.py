"""The freshness banner's "from P providers" counts the providers of the current offers it counts: a
provider whose every offer is stale (hidden by default) is not one the prices come from."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.pages import page_freshness
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer


def _bundled_store(tmp_path: Path) -> str:
    """Bundled only: runpod's two rows, lambda's one, and oldcloud's two rows, both flagged stale."""
    url = f"sqlite:///{tmp_path / 'bundled.db'}"
    rows = [
        make_offer(provider="runpod", instance_type="r1", observed_at=None),
        make_offer(provider="runpod", instance_type="r2", observed_at=None),
        make_offer(provider="lambda", instance_type="l1", observed_at=None),
        make_offer(provider="oldcloud", instance_type="o1", observed_at=None, stale=True),
        make_offer(provider="oldcloud", instance_type="o2", observed_at=None, stale=True),
    ]
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, rows, fallback=True, fingerprint=SNAPSHOT_SHA256)
    return url


def test_the_banner_counts_the_providers_of_the_current_offers(tmp_path: Path) -> None:
    services = WebServices(_bundled_store(tmp_path), cache_seconds=0)
    banner = page_freshness(services)
    assert (banner.offers, banner.current_offers, banner.stale_rows) == (5, 3, 2)
    assert banner.providers == 2  # runpod and lambda; was 3 (oldcloud's offers are all stale)


def test_the_pages_say_the_providers_of_the_current_offers(tmp_path: Path) -> None:
    url = _bundled_store(tmp_path)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        for path in ("/", "/faq"):
            page = " ".join(client.get(path).text.split())
            assert "3 current offers from 2 providers" in page, path  # was "from 3 providers"


def test_with_no_stale_offer_every_provider_is_counted(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    with Store(url) as store:
        rows = [make_offer(provider=p, instance_type=p, observed_at=None) for p in ("a", "b")]
        store.write_snapshot(SNAPSHOT_NAME, rows, fallback=True, fingerprint=SNAPSHOT_SHA256)
    banner = page_freshness(WebServices(url, cache_seconds=0))
    assert (banner.current_offers, banner.providers) == (2, 2)
