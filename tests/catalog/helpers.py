"""Shared helpers for the catalog tests: offers, fake sources and stores on SQLite / PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.sources.base import Source, SourceError
from gpuscout.catalog.store import Store
from tests.conftest import pg_url

STORE_KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]

BASE = Offer(
    provider="testcloud",
    instance_type="1xH100",
    region="us-east-1",
    accelerator="H100-SXM",
    gpu_count=1,
    gpu_memory_gb=80.0,
    price_usd_per_hour=2.5,
    spot_price_usd_per_hour=None,
    source="test:https://example.test/offers",
    observed_at=datetime(2026, 11, 1, 12, 0, tzinfo=UTC),
)


def make_offer(**changes: Any) -> Offer:
    return replace(BASE, **changes)


def many_offers(
    n: int, provider: str = "testcloud", instance_prefix: str = "i", **changes: Any
) -> list[Offer]:
    """``n`` distinct valid offers (instance types ``<prefix>-<k>``)."""
    return [
        make_offer(
            provider=provider,
            instance_type=f"{instance_prefix}-{k}",
            price_usd_per_hour=2.0 + k % 7 * 0.1,
            **changes,
        )
        for k in range(n)
    ]


class FakeSource(Source):
    """A source returning fixed offers, raising, or hanging."""

    def __init__(
        self,
        name: str,
        offers: Sequence[Offer] = (),
        *,
        error: Exception | None = None,
        delay_s: float = 0.0,
        needs: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        self.name = name
        self.provider = name
        self._offers = list(offers)
        self._error = error
        self._delay = delay_s
        self.needs_credentials = needs

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        import asyncio

        if self._delay:
            await asyncio.sleep(self._delay)
        if self._error is not None:
            raise self._error
        return list(self._offers)


def fake_failure(name: str, message: str = "boom") -> FakeSource:
    return FakeSource(name, error=SourceError(name, message))


@contextmanager
def temp_store(kind: str, tmp_path: Path, **kwargs: Any) -> Iterator[Store]:
    """A fresh store: a SQLite file in ``tmp_path`` or a private schema on the test PostgreSQL."""
    if kind == "sqlite":
        store = Store(f"sqlite:///{tmp_path / 'catalog.sqlite3'}", **kwargs)
        try:
            yield store
        finally:
            store.close()
        return
    with pg_schema_url() as url:
        store = Store(url, **kwargs)
        try:
            yield store
        finally:
            store.close()


@contextmanager
def pg_schema_url() -> Iterator[str]:
    """A URL whose search_path is a new, empty schema (dropped afterwards); skips without a server."""
    base = pg_url()
    if not base:
        pytest.skip("no PostgreSQL server (GPUSCOUT_TEST_PG_URL unset)")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = sa.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
