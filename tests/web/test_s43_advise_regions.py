"""The advisor form reads its regions as the catalog reads a typed region list: "Texas, US" is the
region Vast.ai calls so (one region), not "Texas" or "US" (``query.region_terms``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuscout.catalog.query import region_known
from gpuscout.web import advise_form
from gpuscout.web.services import WebServices
from tests.web.test_s43_region_names import vast_store


@pytest.fixture()
def services(tmp_path: Path) -> Iterator[WebServices]:
    yield WebServices(vast_store(tmp_path), cache_seconds=0)


def _regions(services: WebServices, typed: str) -> tuple[str, ...]:
    req = advise_form.parse_request({"kind": "serve", "model": "llama-3.1-8b", "regions": typed})
    workload = advise_form.build_workload(req, region_known(services.reader.count_offers))
    return tuple(workload.regions)


@pytest.mark.parametrize("typed", ["Texas, US", "texas,us", " Texas ,  US "])
def test_a_region_named_with_a_comma_is_one_region(services: WebServices, typed: str) -> None:
    assert [r.lower() for r in _regions(services, typed)] == ["texas, us"]  # was ("Texas", "US")


def test_a_list_of_regions_still_splits(services: WebServices) -> None:
    assert _regions(services, "Texas, US, Norway") == ("Texas, US", "Norway")
    assert _regions(services, "Texas,Norway") == ("Texas", "Norway")
    assert _regions(services, "US, EU") == ("US", "EU")


def test_without_the_catalog_every_comma_splits() -> None:
    req = advise_form.parse_request({"kind": "serve", "model": "llama-3.1-8b", "regions": "Texas, US"})
    assert tuple(advise_form.build_workload(req).regions) == ("Texas", "US")
