"""A NUL character in any text filter is a clear 422 naming the field on SQLite and PostgreSQL, never a 500;
offer files holding one are refused with the file, line and field; stored text never holds one
(issue 14, defect 4)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuscout.catalog.sources.file_source import OfferFileError, parse_offer_file
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.catalog.helpers import STORE_KINDS, make_offer, pg_schema_url

# (path, filter parameter at fault, other parameters)
REQUESTS = [
    ("/api/v1/offers", "provider", {}),
    ("/api/v1/offers", "region", {}),
    ("/api/v1/offers", "gpu", {}),
    ("/", "provider", {}),
    ("/", "region", {}),
    ("/offers.csv", "region", {}),
    ("/offers.json", "provider", {}),
    ("/api/v1/history", "provider", {"gpu": "H100"}),
]


@pytest.fixture(scope="module", params=STORE_KINDS)
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('nul') / 'web.sqlite3'}"
        with TestClient(create_app(services=WebServices(url, cache_seconds=0))) as c:
            yield c
        return
    with pg_schema_url() as url, TestClient(create_app(services=WebServices(url, cache_seconds=0))) as c:
        yield c


@pytest.mark.parametrize(("path", "field", "others"), REQUESTS)
def test_a_nul_in_a_filter_is_a_422_naming_it(
    client: TestClient, path: str, field: str, others: dict[str, str]
) -> None:
    response = client.get(path, params={**others, field: "us\x00east"})
    assert response.status_code == 422, response.text[:300]
    if path.startswith("/api/"):
        assert response.json()["field"] == field


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    field=st.sampled_from(["provider", "region", "gpu"]),
    before=st.text(max_size=20),
    after=st.text(max_size=20),
)
def test_any_text_with_a_nul_is_refused(client: TestClient, field: str, before: str, after: str) -> None:
    response = client.get("/api/v1/offers", params={field: f"{before}\x00{after}"})
    assert response.status_code == 422 and response.json()["field"] == field


def test_an_offer_file_with_a_nul_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "offers.csv"
    path.write_text(
        "provider,gpu,price_usd_per_hour,instance_type\nx,H100-SXM,2.0,p5\x00big\n", encoding="utf-8"
    )
    with pytest.raises(OfferFileError, match=r"offers\.csv:2: instance_type: contains a NUL"):
        parse_offer_file(path)


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_stored_text_never_holds_a_nul(kind: str, tmp_path: Path) -> None:
    """A feed cell with a NUL must not fail the whole snapshot on PostgreSQL."""
    url = f"sqlite:///{tmp_path / 's.sqlite3'}"
    if kind == "sqlite":
        with Store(url) as store:
            store.write_snapshot("feed", [make_offer(instance_type="p5\x00", regions=("a\x00b",))])
            [back] = store.current_offers()
    else:
        with pg_schema_url() as pg, Store(pg) as store:
            store.write_snapshot("feed", [make_offer(instance_type="p5\x00", regions=("a\x00b",))])
            [back] = store.current_offers()
    assert back.instance_type == "p5" and back.regions == ("ab",)
