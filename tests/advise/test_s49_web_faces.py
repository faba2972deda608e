"""The web advisor shares the answer's words (renter review, session 49): a row that runs another engine
than asked names it in its Config cell (the Note cell that says why is clamped to two lines, and the
engine came last in it), and the breakdown says the hours billed a day of an endpoint stopped nightly;
the JSON API carries the same reason."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.reasons import BILLING_ROUNDING
from gpuscout.catalog.offer import Offer
from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices

NOW = datetime.now(UTC).replace(microsecond=0)


def _offer(instance: str, gpu: str, memory: float, price: float) -> Offer:
    return Offer(
        provider="verda",  # billing increment unknown: per-hour assumed
        instance_type=instance,
        region="FIN-01",
        accelerator=gpu,
        gpu_count=1,
        gpu_memory_gb=memory,
        price_usd_per_hour=price,
        spot_price_usd_per_hour=None,
        source="test:https://example.com/prices",
        observed_at=NOW - timedelta(hours=1),
    )


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'web.db'}"
    store = Store(url)
    store.write_snapshot(SNAPSHOT_NAME, [], fallback=True, fingerprint=SNAPSHOT_SHA256)  # only these offers
    store.write_snapshot(
        "test", [_offer("v100", "V100-SXM2-16GB", 16, 0.1381), _offer("h100", "H100-SXM", 80, 2.5)]
    )
    store.close()
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as c:
        yield c


def _config_cells(page: str) -> dict[str, str]:
    """Each result row's Config cell as text, by the row's GPU."""
    out = {}
    for row in re.findall(r'<tr class="main".*?</tr>', page, re.S):
        gpu = re.search(r'<td class="gpu"><a href="/gpus/([^"]+)"', row)
        cell = re.search(r'<td class="config"[^>]*>(.*?)</td>', row, re.S)
        assert gpu is not None and cell is not None, row
        out[gpu.group(1)] = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", cell.group(1))).split())
    return out


def test_a_row_that_runs_another_engine_names_it_in_its_config_cell(client: TestClient) -> None:
    page = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b", "sent": "1"})
    assert page.status_code == 200
    cells = _config_cells(page.text)
    assert cells["V100-SXM2-16GB"] == "1x GPU · llama.cpp gguf-f16", cells
    assert "·" not in cells["H100-SXM"]  # it runs what was asked


def test_the_breakdown_and_the_api_say_the_hours_billed_a_day(client: TestClient) -> None:
    params = {"kind": "serve", "model": "llama-3.1-8b", "sent": "1", "hours_per_day": "8"}
    page = client.get("/advise", params=params)
    assert page.status_code == 200
    said = re.findall(rf"<li>({re.escape(BILLING_ROUNDING)}[^<]*)</li>", page.text)
    assert said and all("h billed a day for 8.0 h active" in html.unescape(s) for s in said), said
    workload = {"kind": "serve", "model": "llama-3.1-8b", "hours_per_day": 8}
    body = client.post("/api/v1/advise", json={"workload": workload}).json()
    reasons = [r for rec in body["recommendations"] for r in rec["reasons"] if r.startswith(BILLING_ROUNDING)]
    assert {html.unescape(s) for s in said} <= set(reasons)
