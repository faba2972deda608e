"""Small SQLite stores for the CLI tests: hand-built offers behind an empty bundled snapshot."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store


def store_with(tmp_path: Path, offers: list[Offer], name: str = "cli.db") -> str:
    """The URL of a SQLite store at ``tmp_path / name`` holding ``offers`` (snapshot "test")."""
    url = f"sqlite:///{tmp_path / name}"
    store = Store(url)
    # the bundled snapshot counts as loaded, empty (with the package's fingerprint, or it is reloaded)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.write_snapshot("test", offers)
    store.close()
    return url


def h100_offer(provider: str, instance: str, price: float, region: str = "us-east-1") -> Offer:
    """One on-demand H100-SXM (80 GB) of ``provider``, with no observation time."""
    return Offer(
        provider=provider,
        instance_type=instance,
        region=region,
        accelerator="H100-SXM",
        gpu_count=1,
        gpu_memory_gb=80.0,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=None,
        source="test:x",
        observed_at=None,
    )


def few_h100_db(path: Path, counts: Iterable[int]) -> str:
    """The URL of a SQLite store at ``path`` with one runpod H100 offer of each GPU count in ``counts``
    (snapshot "few"), so that a valid ``recommend`` answers quickly."""
    url = f"sqlite:///{path}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True)
    store.write_snapshot(
        "few",
        [
            Offer(
                provider="runpod",
                instance_type=f"h100x{n}",
                region="us-east-1",
                accelerator="H100-SXM",
                gpu_count=n,
                gpu_memory_gb=80.0,
                price_usd_per_hour=2.5 * n,
                spot_price_usd_per_hour=1.2 * n,
                source="test:few",
                observed_at=None,
            )
            for n in counts
        ],
    )
    store.close()
    return url
