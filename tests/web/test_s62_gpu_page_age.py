"""A GPU page's offers table leaves out the "Price age" column when every row's age is unknown, as the
home page does, and says so once (stop 62 web review: over the bundled snapshot each row of
/gpus/H100-SXM read "unknown" where / folds the column)."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from tests.web.test_s43_banner_providers import _bundled_store


def _offers_table(page: str) -> str:
    found = re.search(r'<table class="offers phone-cards" id="gpu-offers">.*?</table>', page, re.S)
    assert found
    return found.group(0)


def test_no_age_column_when_every_age_is_unknown(tmp_path: Path) -> None:
    url = _bundled_store(tmp_path)
    with TestClient(create_app(url, services=WebServices(url, cache_seconds=0))) as client:
        page = client.get("/gpus/H100-SXM").text
    table = _offers_table(page)
    assert "<tbody>" in table and "Price age" not in table and "unknown" not in table
    assert page.count('id="ages-unknown"') == 1
    assert "Price age: unknown for every offer shown" in page


def test_the_age_column_stays_where_ages_are_known(client: TestClient) -> None:
    page = client.get("/gpus/H100-SXM").text
    assert "Price age" in _offers_table(page) and 'id="ages-unknown"' not in page
