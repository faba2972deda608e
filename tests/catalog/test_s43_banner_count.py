"""The freshness banner's "N current offers" is what the offers table shows as current. It subtracted the
stale rows of every loaded source from a total that never counted the superseded ones (a ``gpuhunt:aws``
feed under a direct ``aws`` feed; bundled rows of a provider a live feed covers), so it said too few."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.filters import OfferFilters
from gpuscout.web.overview import Freshness, freshness
from gpuscout.web.services import WebServices
from tests.catalog.helpers import make_offer

NOW = datetime.now(UTC).replace(microsecond=0)


def _store(tmp_path: Path) -> str:
    """Current: aws's two rows from its own API, oci's from gpuhunt (one flagged stale), lambda's live
    row. Superseded: gpuhunt's three aws rows, flagged stale; the bundled snapshot's lambda row, stale."""
    url = f"sqlite:///{tmp_path / 'banner.sqlite3'}"
    with Store(url) as store:
        bundled = [
            make_offer(provider="lambda", instance_type="old", observed_at=None, stale=True),
            make_offer(provider="runpod", instance_type="rp", observed_at=None),
        ]
        store.write_snapshot(SNAPSHOT_NAME, bundled, fallback=True, fingerprint=SNAPSHOT_SHA256)
        hour = NOW - timedelta(hours=1)
        gpuhunt = [
            *(
                make_offer(provider="aws", instance_type=f"gh-{i}", observed_at=hour, stale=True)
                for i in range(3)
            ),
            make_offer(provider="oci", instance_type="oci-1", observed_at=hour),
            make_offer(provider="oci", instance_type="oci-2", observed_at=hour, stale=True),
        ]
        store.write_snapshot("gpuhunt:aws", gpuhunt)
        store.write_snapshot(
            "aws", [make_offer(provider="aws", instance_type=f"p{i}", observed_at=NOW) for i in range(2)]
        )
        store.write_snapshot("lambda", [make_offer(provider="lambda", instance_type="l", observed_at=NOW)])
    return url


def _banner(services: WebServices) -> Freshness:
    offers, providers = services.offer_totals()
    return freshness(services, services.current_sources(), offers, providers)


def test_the_banner_counts_as_current_what_the_table_shows(tmp_path: Path) -> None:
    services = WebServices(_store(tmp_path), cache_seconds=0)
    banner = _banner(services)
    table = services.offer_page(OfferFilters()).total  # stale prices hidden, as by default
    with_stale = services.offer_page(OfferFilters(include_stale=True)).total
    # rp, oci-1, oci-2 (stale), p0, p1, l
    assert (table, with_stale) == (5, 6)
    assert (banner.offers, banner.current_offers, banner.stale_rows) == (6, 5, 1)  # was (6, 1, 5)


def test_the_pages_say_the_counts_the_table_has(tmp_path: Path) -> None:
    url = _store(tmp_path)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        offers = client.get("/").text
        sources = client.get("/sources").text
    banner = " ".join(offers.split('id="freshness"')[1].split("</p>")[0].split())
    assert "1 price flagged stale is hidden" in banner  # the one "show" adds; was "5 prices ... are"
    store_line = " ".join(sources.split('id="store"')[1].split("</p>")[0].split())
    assert "5 current offers and 1 flagged stale" in store_line  # was "1 current offers and 5"
