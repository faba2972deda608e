"""A web app over a catalog of hand-written offers alone, for the advisor's faces (the web page and the
JSON API): ``web_offer`` writes one offer as a price feed would, ``web_client`` serves those offers only."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices

NOW = datetime.now(UTC).replace(microsecond=0)


def web_offer(
    instance: str,
    gpu: str,
    memory: float,
    price: float,
    *,
    provider: str = "testcloud",
    region: str = "us-east-1",
    gpus: int = 1,
) -> Offer:
    """An on-demand offer fetched an hour ago."""
    return Offer(
        provider=provider,
        instance_type=instance,
        region=region,
        accelerator=gpu,
        gpu_count=gpus,
        gpu_memory_gb=memory,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=None,
        source="test:https://example.com/prices",
        observed_at=NOW - timedelta(hours=1),
    )


@contextmanager
def web_client(tmp_path: Path, offers: Sequence[Offer]) -> Iterator[TestClient]:
    """The web app over a catalog in ``tmp_path`` holding ``offers`` only (the bundled snapshot empty)."""
    url = f"sqlite:///{tmp_path / 'web.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)  # only these offers
    store.write_snapshot("test", list(offers))
    store.close()
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as c:
        yield c
