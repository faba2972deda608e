"""Fixtures of the web tests: a temporary SQLite store with a few hand-built offers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, sync_playwright

from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.web.browser_support import CHROMIUM, CHROMIUM_ARGS, require_chromium, serve_in_thread

NOW = datetime.now(UTC).replace(microsecond=0)
XSS = "<script>alert(1)</script>"


def make_offer(**kw: object) -> Offer:
    base: dict[str, object] = {
        "provider": "testcloud",
        "instance_type": "gpu.small",
        "region": "us-east-1",
        "accelerator": "H100-SXM",
        "gpu_count": 1,
        "gpu_memory_gb": 80.0,
        "price_usd_per_hour": 2.5,
        "spot_price_usd_per_hour": None,
        "source": "test:https://example.com/prices",
        "observed_at": NOW - timedelta(hours=1),
    }
    base.update(kw)
    return Offer(**base)  # type: ignore[arg-type]


def sample_offers() -> list[Offer]:
    """Nine offers over four GPUs and five providers; one provider string carries a script tag."""
    return [
        make_offer(
            provider="alphacloud",
            instance_type="h100x8",
            accelerator="H100-SXM",
            gpu_count=8,
            price_usd_per_hour=24.0,
            spot_price_usd_per_hour=12.0,
            interconnect=Interconnect.NVLINK,
            availability=Availability.AVAILABLE,
            available_count=3,
        ),
        make_offer(
            provider="alphacloud",
            instance_type="h100x1",
            accelerator="H100-SXM",
            gpu_count=1,
            price_usd_per_hour=3.9,
            region="eu-west-1",
            availability=Availability.LIMITED,
        ),
        # a plain "H100" at the source: the SXM variant is assumed (as the bundled snapshot does)
        make_offer(
            provider="betagpu",
            instance_type="b-h100",
            accelerator="H100-SXM",
            gpu_count=1,
            price_usd_per_hour=2.2,
            spot_price_usd_per_hour=1.4,
            observed_at=NOW - timedelta(hours=30),  # within 2 days of the newest live row: not stale
            extra={"variant": "assumed"},
        ),
        make_offer(
            provider="betagpu",
            instance_type="b-a100",
            accelerator="A100-SXM4-80GB",
            gpu_count=2,
            price_usd_per_hour=3.0,
            interconnect=Interconnect.NVLINK,
            availability=Availability.UNAVAILABLE,
        ),
        make_offer(
            provider="gammacompute",
            instance_type="g-4090",
            accelerator="RTX4090",
            gpu_count=1,
            gpu_memory_gb=24.0,
            price_usd_per_hour=0.45,
            spot_price_usd_per_hour=0.3,
            interconnect=Interconnect.PCIE,
            availability=Availability.AVAILABLE,
        ),
        make_offer(
            provider="gammacompute",
            instance_type="g-4090x4",
            accelerator="RTX4090",
            gpu_count=4,
            gpu_memory_gb=24.0,
            price_usd_per_hour=1.6,
            interconnect=Interconnect.PCIE,
        ),
        make_offer(
            provider="deltasnap",
            instance_type="d-l40s",
            accelerator="L40S",
            gpu_count=1,
            gpu_memory_gb=48.0,
            price_usd_per_hour=1.1,
            region="ap-south-1",
            source="snapshot:https://example.org/catalog.csv",
            observed_at=None,
            stale=True,
        ),
        make_offer(
            provider=XSS,
            instance_type=f"evil{XSS}",
            accelerator="L40S",
            gpu_count=1,
            gpu_memory_gb=48.0,
            price_usd_per_hour=0.99,
            region="us-west-2",
            source="evil:javascript:alert(1)",
        ),
        make_offer(
            provider="epsilon",
            instance_type="e-h100-spot",
            accelerator="H100-SXM",
            gpu_count=1,
            price_usd_per_hour=None,
            spot_price_usd_per_hour=1.9,
            region="us-central1",
        ),
    ]


@pytest.fixture()
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'web.db'}"
    store = Store(url)
    # Mark this package's bundled snapshot as loaded (with no rows) so that these tests see only their
    # offers.
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    dated = [o for o in sample_offers() if o.observed_at is not None]
    # An older snapshot of the same source, ten days earlier and 20% dearer, gives a price history.
    older = [
        replace(
            o,
            observed_at=NOW - timedelta(days=10),
            price_usd_per_hour=o.price_usd_per_hour and round(o.price_usd_per_hour * 1.2, 4),
        )
        for o in dated
    ]
    store.write_snapshot("test", older)
    store.write_snapshot("test", dated)
    store.write_snapshot("oldfeed", [o for o in sample_offers() if o.observed_at is None])
    store.close()
    return url


@pytest.fixture()
def app(db_url: str) -> FastAPI:
    return create_app(db_url, services=WebServices(db_url, cache_seconds=0))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium through Playwright (never a browser download), one per test module."""
    require_chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def base_url(app: FastAPI) -> Iterator[str]:
    """The app of ``app`` served by uvicorn on loopback, for the browser tests."""
    with serve_in_thread(app) as url:
        yield url


@pytest.fixture()
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def spot_offers() -> list[Offer]:
    """Two offers whose on-demand and spot orders differ (the spot discount is deeper on the dearer)."""
    return [
        make_offer(
            provider="alphacloud",
            instance_type="shallow-spot",
            price_usd_per_hour=2.0,
            spot_price_usd_per_hour=1.8,
        ),
        make_offer(
            provider="betagpu",
            instance_type="deep-spot",
            accelerator="H100-SXM",
            price_usd_per_hour=3.0,
            spot_price_usd_per_hour=0.9,
        ),
    ]


@pytest.fixture()
def spot_app(tmp_path: Path) -> FastAPI:
    url = f"sqlite:///{tmp_path / 'spot.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.write_snapshot("test", spot_offers())
    store.close()
    return create_app(url, services=WebServices(url, cache_seconds=0))


@pytest.fixture()
def spot_client(spot_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(spot_app) as c:
        yield c
