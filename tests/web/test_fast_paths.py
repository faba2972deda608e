"""The lean read paths of the web (issue 12, item 3) give what the plain paths give: the API's offers
straight from the page's offers, a view's first row without its count, a provider filter checked
without reading every offer; and the web benchmark's raw client reads whole responses."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.offer_fields import face_fields
from gpuscout.web.filters import OfferFilters
from gpuscout.web.offer_view import to_row
from gpuscout.web.schemas import OfferOut
from gpuscout.web.services import WebServices
from tests.conftest import load_benchmark
from tests.web.conftest import NOW, make_offer, sample_offers


def _reference_item(offer: Offer, now: datetime) -> dict[str, Any]:
    """What an API offer holds, spelled out from the dataclass and the table row of the offer."""
    row = to_row(offer, now)
    values: dict[str, Any] = {}
    for f in face_fields(type(offer)):
        value = getattr(offer, f.name)
        values[f.name] = list(value) if isinstance(value, tuple) else value
    values.update(
        stale=row.stale,
        source_url=row.source_url,
        age_hours=row.age_hours,
        variant_assumed=row.variant_assumed,
    )
    return OfferOut.model_validate(values).model_dump(mode="json")


def _varied_offers() -> list[Offer]:
    """The sample offers and a few with what the shortcuts could get wrong: several regions and
    aggregators (tuples), an assumed variant, an old price, a price flagged stale, no observation time."""
    return [
        *sample_offers(),
        make_offer(regions=("country:DE", "country:FR"), also_listed_by=("gpuhunt",)),
        make_offer(extra={"variant": "assumed"}, source="https://example.com/list"),
        make_offer(observed_at=NOW - timedelta(days=3)),
        make_offer(stale=True),
        make_offer(observed_at=None, source="bundled"),
    ]


def test_api_offers_are_the_offers_with_the_view_values_of_their_rows() -> None:
    now = datetime.now(UTC)
    for offer in _varied_offers():
        row = to_row(offer, now)
        item = OfferOut.from_offer(offer, row.age).model_dump(mode="json")
        assert item == _reference_item(offer, now)
        assert OfferOut.from_row(row).model_dump(mode="json") == item


def test_the_api_page_is_every_field_of_the_store_page(client: TestClient) -> None:
    body = client.get("/api/v1/offers", params={"per_page": 200, "include_stale": "true"}).json()
    assert body["total"] == len(body["items"]) > 5 and body["pages"] == 1
    shown = {f.name for f in face_fields()} | {"stale", "source_url", "age_hours", "variant_assumed"}
    assert all(set(item) == shown for item in body["items"])
    assert {f.name for f in fields(Offer) if f.metadata.get("face", True)} <= shown


@pytest.mark.parametrize(
    "view",
    [
        {},
        {"gpu": "H100", "pricing": "spot"},
        {"pricing": "spot", "sort": "spot_price", "order": "desc"},
        {"sort": "vram", "order": "desc"},
        {"gpu": "MI300X"},  # no offer: no first row
    ],
)
def test_a_views_first_row_is_the_first_row_of_its_first_page(db_url: str, view: dict[str, str]) -> None:
    services = WebServices(db_url, cache_seconds=0)
    filters = OfferFilters.model_validate(view)
    page = services.offer_page(filters.model_copy(update={"per_page": 1}))
    first = services.first_row(filters)
    assert (first.offer if first else None) == (page.rows[0].offer if page.rows else None)


def test_a_provider_filter_is_checked_without_reading_every_offer(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    services: WebServices = client.app.state.services  # type: ignore[attr-defined]
    assert services.has_offers_from("alphacloud") and not services.has_offers_from("alfacloud")

    def every_offer() -> list[Offer]:
        raise AssertionError("a known provider needs no list of every offer")

    monkeypatch.setattr(services, "all_offers", every_offer)
    r = client.get("/", params={"provider": "alphacloud,betagpu"})
    assert r.status_code == 200 and "h100x8" in r.text
    monkeypatch.undo()
    unknown = client.get("/", params={"provider": "alfacloud"})  # the hint lists the current ones
    assert unknown.status_code == 422 and ">alphacloud</a>" in unknown.text


# ---- the benchmark's raw client ------------------------------------------------------------------
@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("web")


def test_the_raw_client_reads_whole_responses_on_one_connection(bench: ModuleType) -> None:
    seen: list[bytes] = []
    answers = [
        b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-encoding: gzip\r\n\r\nhello",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n",
        b"HTTP/1.1 422 Unprocessable Entity\r\ncontent-length: 2\r\n\r\n{}",
    ]

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for answer in answers:
            seen.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(answer)
            await writer.drain()
        writer.close()

    async def run() -> list[tuple[int, int]]:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        conn = bench.RawConnection("127.0.0.1", port)
        try:
            return [await asyncio.wait_for(conn.get(f"/x?{i}"), 10) for i in range(3)]
        finally:
            await conn.close()
            server.close()

    assert asyncio.run(run()) == [(200, 5), (200, 7), (422, 2)]
    assert len(seen) == 3  # one keep-alive connection for the three requests
    assert seen[0].startswith(b"GET /x?0 HTTP/1.1\r\n") and b"accept-encoding: gzip, deflate" in seen[0]
