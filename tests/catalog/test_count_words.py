"""The catalog's messages agree with their counts: one row, one attempt, one offer read in the
singular ("all 1 row invalid", "gave up after 1 attempt"), as they did already for more."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import httpx
import pytest
import respx

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.refresh import RefreshSummary, _exclusion_note
from gpuscout.catalog.sources.base import Source, SourceError
from gpuscout.catalog.sources.http import HttpFetcher, RetryPolicy
from gpuscout.catalog.sources.jarvislabs import SERVER_META_URL, JarvislabsSource
from gpuscout.catalog.sources.payload import field, parse_rows
from gpuscout.catalog.validate import validate_offers
from gpuscout.knowledge.accelerators import all_accelerators
from tests.catalog.helpers import make_offer
from tests.catalog.sources.samples import SleepRecorder, fetch, sample

ACCS = {a.name: a for a in all_accelerators()}
URL = "https://api.example.test/items"


def test_a_single_invalid_row_is_one_row() -> None:
    report = validate_offers("s", [make_offer(price_usd_per_hour=99999.0)], accelerators=ACCS)
    assert report.status == "rejected" and (report.reason or "").startswith("all 1 row invalid: ")
    report = validate_offers("s", [], accelerators=ACCS, adapter_drops={"unknown GPU": 1}, rows_seen=1)
    assert report.reason == "all 1 row invalid: 1x unknown GPU"


def _get(**kwargs: Any) -> Any:
    async def go() -> Any:
        async with httpx.AsyncClient() as client:
            return await HttpFetcher(client, "demo", sleep=SleepRecorder(), **kwargs).get_json(URL)

    return asyncio.run(go())


@respx.mock
def test_giving_up_after_a_single_attempt_says_one_attempt() -> None:
    respx.get(URL).mock(side_effect=httpx.ConnectError("connection refused"))
    with pytest.raises(SourceError, match=r"gave up after 1 attempt: ConnectError"):
        _get(retry=RetryPolicy(attempts=1))


@respx.mock
def test_a_retry_past_the_deadline_after_the_first_attempt_says_one_attempt() -> None:
    respx.get(URL).mock(return_value=httpx.Response(429, headers={"Retry-After": "60"}))
    with pytest.raises(SourceError, match=r"source's deadline, after 1 attempt \(GET "):
        _get(deadline=time.monotonic() + 10)


class _Feed(Source):
    name = "demo"

    async def fetch(self, client: httpx.AsyncClient) -> list[Offer]:
        return []


def test_a_field_missing_in_the_only_row_is_a_schema_change_of_one_row() -> None:
    def parse(row: Any) -> list[Offer]:
        field(row, "price", "items[]")
        return []

    with pytest.raises(SourceError, match=r"field 'items\[\]\.price' missing in all 1 row of the answer"):
        parse_rows(_Feed(), [{"name": "a"}], parse, lambda row: str(row["name"]))


def test_one_row_excluded_by_design_is_not_an_offer() -> None:
    assert _exclusion_note(Counter({"CPU-only type": 1})) == (
        "1 row is not an offer by design (1x CPU-only type)"
    )
    assert _exclusion_note(Counter({"CPU-only type": 2})) == (
        "2 rows are not offers by design (2x CPU-only type)"
    )


def test_one_bundled_offer_left_is_one_offer() -> None:
    line = RefreshSummary(refreshed=1, failed=0, rejected=0, skipped=0, bundled_offers=1).line
    assert line.endswith("bundled snapshot still in use (1 offer of providers no live source covered)")


@respx.mock
def test_one_spot_gpu_free_is_one_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JL_API_KEY", "jl-key")
    meta = sample("jarvislabs")
    meta["server_meta"][2]["workload_type"] = "container"  # spot is sold for containers only
    respx.get(SERVER_META_URL).mock(return_value=httpx.Response(200, json=meta))
    offers = {(o.instance_type, o.region): o for o in fetch(JarvislabsSource())}
    a100 = offers[("container:A100-80GB:1x", "india-noida-01")]  # spot_num_free_devices 1 in the recording
    assert "spot (interruptible): 1 GPU free" in (a100.notes or "")
    l4 = offers[("container:L4:1x", "india-noida-01")]  # 2 free
    assert "spot (interruptible): 2 GPUs free" in (l4.notes or "")
