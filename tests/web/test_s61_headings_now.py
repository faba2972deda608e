"""The offers and GPUs pages' headings say "now" only where the freshest prices have an observation date
(stop 61 browser review): "GPU offers: the cheapest per GPU-hour now" stood over a banner saying when
the bundled snapshot's prices were observed is unknown. Over the bundled snapshot alone they say "in
this snapshot"."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.web.test_s43_banner_providers import _bundled_store

HEADINGS = {
    "/": "GPU offers: the cheapest per GPU-hour {}",
    "/gpus": "GPUs: specs and the cheapest offer {}",
}


def _h1(page: str) -> str:
    found = re.search(r"<h1>(.*?)</h1>", page, re.S)
    assert found
    return unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


@pytest.mark.parametrize("path", HEADINGS)
def test_dated_prices_are_now(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and _h1(page.text) == HEADINGS[path].format("now")


@pytest.mark.parametrize("path", HEADINGS)
def test_the_bundled_snapshot_alone_is_not_now(tmp_path: Path, path: str) -> None:
    url = _bundled_store(tmp_path)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        page = client.get(path)
    assert page.status_code == 200
    assert _h1(page.text) == HEADINGS[path].format("in this snapshot")
    if path == "/":
        assert "when these prices were observed is unknown" in page.text  # the banner under it
