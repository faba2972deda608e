"""The advisor page's empty answer says what to change in its binding text. Its note always added "Change
the constraint named above, or try a smaller precision (fp8, int4) or a smaller model", which is no help
where the engine release cannot load the model (stop 58); a memory dead end names those levers in its
binding text."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.catalog.snapshot_fingerprint import SNAPSHOT_SHA256
from gpuscout.catalog.sources.snapshot import SNAPSHOT_NAME
from gpuscout.catalog.store import Store
from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.web.conftest import make_offer


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'v100.db'}"
    store = Store(url)
    rows = [
        make_offer(
            provider="oldcloud",
            instance_type="v100x1",
            accelerator="V100-SXM2-32GB",
            gpu_memory_gb=32.0,
            price_usd_per_hour=0.4,
            source="snapshot:https://example.org/catalog.csv",
            observed_at=None,
        )
    ]
    store.write_snapshot(SNAPSHOT_NAME, rows, fallback=True, fingerprint=SNAPSHOT_SHA256)
    store.close()
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as c:
        yield c


def _empty_answer(client: TestClient, **params: str) -> str:
    r = client.get("/advise", params={"kind": "serve", "concurrency": "4", "sent": "1", **params})
    block = r.text.split('id="no-results"', 1)[1].split("</div>", 1)[0]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", block)).split())


def test_an_engine_release_dead_end_names_the_release_and_no_precision_lever(client: TestClient) -> None:
    text = _empty_answer(client, model="llama-3.1-8b", engine="vllm 0.4.0")
    assert "would run: vllm 0.5.3 or later, before 0.20" in text
    assert "smaller precision" not in text
    assert text.endswith("1 offer looked at.")  # the binding text above says what to change


def test_a_memory_dead_end_still_names_the_memory_levers(client: TestClient) -> None:
    text = _empty_answer(client, model="llama-3.1-405b")
    assert "a narrower precision (fp8, int4)" in text
