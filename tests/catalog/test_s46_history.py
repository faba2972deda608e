"""A price history's money is money (a median of two prices is no float's noise, 4.140000000000001), and a
family's history is one series per variant: an H100 provider's SXM and PCIe prices are two points, never
one min and median over both (the API, the CLI and the GPU page read the same points)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.status import HISTORY_PRICE_DECIMALS
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices

AT = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)


def _offer(instance: str, accelerator: str, price: float) -> Offer:
    return Offer(
        provider="alpha",
        instance_type=instance,
        region="us-east-1",
        accelerator=accelerator,
        gpu_count=1,
        gpu_memory_gb=80.0,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=None,
        source="live:https://example.com",
        observed_at=AT,
    )


def _store(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'history.db'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot(
            "live",
            [
                _offer("sxm-a", "H100-SXM", 4.13),
                _offer("sxm-b", "H100-SXM", 4.15),
                _offer("pcie", "H100-PCIe", 1.0 / 3.0),
            ],
        )
    return url


def test_a_median_of_two_prices_is_rounded_money(tmp_path: Path) -> None:
    with Store(_store(tmp_path)) as store:
        (point,) = store.price_history("H100-SXM")
    assert point.median_usd_per_gpu_hour == 4.14  # was 4.140000000000001
    assert point.min_usd_per_gpu_hour == 4.13 and point.offers == 2


def test_a_family_history_is_one_point_per_variant(tmp_path: Path) -> None:
    with Store(_store(tmp_path)) as store:
        points = store.price_history(["H100-SXM", "H100-PCIe", "H100-NVL"])
    # was one point "H100-SXM|H100-PCIe|H100-NVL": min $0.33 (PCIe) and median $4.13 over both
    by_gpu = {p.accelerator: p for p in points}
    assert set(by_gpu) == {"H100-SXM", "H100-PCIe"} and len(points) == 2
    assert by_gpu["H100-SXM"].min_usd_per_gpu_hour == 4.13
    assert by_gpu["H100-PCIe"].min_usd_per_gpu_hour == round(1.0 / 3.0, HISTORY_PRICE_DECIMALS)


def test_the_api_history_of_a_family_names_each_variant(tmp_path: Path) -> None:
    url = _store(tmp_path)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        points = client.get("/api/v1/history", params={"gpu": "H100"}).json()
    assert sorted((p["accelerator"], p["median_usd_per_gpu_hour"]) for p in points) == [
        ("H100-PCIe", 0.3333),
        ("H100-SXM", 4.14),
    ]
