"""``/api/v1/offers?region=Texas, US`` is the region Vast.ai calls "Texas, US", not "Texas" or "US" (every
US row): a comma splits the region list except inside a region's own name (``query.region_terms``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.filters import OfferFilters
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer

OFFERS = "/api/v1/offers?per_page=200"


def vast_store(tmp_path: Path) -> str:
    """The URL of a store holding only Vast.ai rows, two of them in regions named with a comma."""
    url = f"sqlite:///{tmp_path / 'vast.db'}"
    with Store(url) as store:
        store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)
        store.write_snapshot(
            "vastai",
            [
                make_offer(provider="vastai", instance_type="offer-1", region="Texas, US"),
                make_offer(provider="vastai", instance_type="offer-2", region="Virginia, US"),
                make_offer(provider="vastai", instance_type="offer-3", region="Quebec, CA"),
                make_offer(provider="vastai", instance_type="offer-4", region="Norway"),
            ],
        )
    return url


@pytest.fixture()
def vast_client(tmp_path: Path) -> Iterator[TestClient]:
    url = vast_store(tmp_path)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        yield client


def _types(client: TestClient, query: str) -> list[str]:
    r = client.get(OFFERS + query)
    assert r.status_code == 200, r.text
    return sorted(i["instance_type"] for i in r.json()["items"])


@pytest.mark.parametrize("typed", ["Texas, US", "texas,us", " Texas ,  US "])
def test_a_region_named_with_a_comma_is_one_region(vast_client: TestClient, typed: str) -> None:
    assert _types(vast_client, f"&region={quote(typed)}") == ["offer-1"]  # was offer-1 and offer-2


def test_a_repeated_region_named_with_a_comma_stays_whole(vast_client: TestClient) -> None:
    # the repeats are joined with commas before the filters read them: "Texas, US,Norway"
    repeated = f"&region={quote('Texas, US')}&region=Norway"
    assert _types(vast_client, repeated) == ["offer-1", "offer-4"]
    assert _types(vast_client, f"&region={quote('Texas, US, Quebec, CA')}") == ["offer-1", "offer-3"]


def test_a_list_of_regions_still_splits(vast_client: TestClient) -> None:
    assert _types(vast_client, "&region=Texas,Quebec") == ["offer-1", "offer-3"]
    assert _types(vast_client, "&region=US,Norway") == ["offer-1", "offer-2", "offer-4"]
    assert _types(vast_client, "&region=US") == ["offer-1", "offer-2"]


def test_filters_split_only_once_they_know_the_regions() -> None:
    filters = OfferFilters(region="Texas, US,Norway")
    assert filters.region_names() == ["Texas", "US", "Norway"]
    known = filters.with_known_regions(lambda text: text.lower() == "texas, us")
    assert known.region_names() == ["Texas, US", "Norway"]
    # a copy keeps them (the provider ids are written into one); another region is split afresh
    assert known.model_copy(update={"provider": "vastai"}).region_names() == ["Texas, US", "Norway"]
    assert known.model_copy(update={"region": "Texas, US"}).region_names() == ["Texas", "US"]
    assert known.model_dump() == filters.model_dump()  # nothing new in the query string or the cache key


def test_the_offers_page_reads_a_region_named_with_a_comma_as_the_api_does(vast_client: TestClient) -> None:
    page = vast_client.get(f"/?region={quote('Texas, US')}")
    assert page.status_code == 200
    assert "offer-1" in page.text and "offer-2" not in page.text
    csv = vast_client.get(f"/offers.csv?region={quote('Texas, US')}")
    assert csv.status_code == 200 and "offer-1" in csv.text and "offer-2" not in csv.text
