"""Assets and transport: content-hashed URLs cached for good, gzip, HEAD on every page, the vendored
partial Plotly bundle (no ``plotly`` Python package)."""

from __future__ import annotations

import gzip
import re
import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.web.assets import IMMUTABLE, PLOTLY_BUNDLE, STATIC_DIR, asset_url

ROOT = Path(__file__).resolve().parents[2]
PAGES = (
    "/",
    "/advise",
    "/gpus",
    "/gpus/H100-SXM",
    "/models",
    "/models/llama-3.1-8b",
    "/faq",
    "/sources",
    "/docs",
)


def test_pages_link_assets_by_content_hash_served_immutable(client: TestClient) -> None:
    html = client.get("/gpus").text
    links = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
    assert {"app.css", "app.js", "charts.js", "plotly-basic.min.js"} <= {
        re.sub(r"\.[0-9a-f]{10}(\.[a-z]+)$", r"\1", link.rsplit("/", 1)[1]) for link in links
    }
    for link in links:
        r = client.get(link)
        assert r.status_code == 200 and r.headers["cache-control"] == IMMUTABLE, link
        assert r.headers["etag"].strip('"') in link  # the hash in the URL is the content's
    plain = client.get("/static/app.css")
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
    assert client.get("/static/app.css", headers={"if-none-match": plain.headers["etag"]}).status_code == 304
    old = client.get("/static/app.0123456789.css")  # an old hash after an upgrade: served, not cached long
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
    assert client.get("/static/../security.py").status_code == 404
    assert client.get("/static/nothing.css").status_code == 404


def test_a_changed_file_gets_a_new_url() -> None:
    from gpuscout.web import assets

    url = asset_url("app.css")
    digest = url.rsplit(".", 2)[1]
    assert digest == assets.static_asset("app.css").digest  # type: ignore[union-attr]
    assert len({asset_url("app.css"), asset_url("app.js"), asset_url("charts.js")}) == 3


def test_responses_are_gzipped_when_the_client_accepts_it(client: TestClient) -> None:
    for path in ("/", "/api/v1/offers", "/openapi.json", asset_url(PLOTLY_BUNDLE)):
        r = client.get(path, headers={"accept-encoding": "gzip"})
        assert r.headers.get("content-encoding") == "gzip", path
    raw = client.get(asset_url(PLOTLY_BUNDLE), headers={"accept-encoding": "identity"})
    assert "content-encoding" not in raw.headers
    bundle = (STATIC_DIR / PLOTLY_BUNDLE).read_bytes()
    assert raw.content == bundle and len(gzip.compress(bundle)) < 450_000


@pytest.mark.parametrize("path", PAGES)
def test_head_is_answered_on_every_page(client: TestClient, path: str) -> None:
    get = client.get(path)
    head = client.head(path)
    assert head.status_code == 200 == get.status_code, path
    assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]
    assert "content-security-policy" in head.headers


def test_the_vendored_plotly_is_the_partial_basic_bundle_with_its_licence() -> None:
    bundle = (STATIC_DIR / PLOTLY_BUNDLE).read_text(encoding="utf-8")
    assert bundle.startswith("/**\n* plotly.js (basic - minified) v4.1.1") and "MIT license" in bundle[:300]
    assert (STATIC_DIR / "vendor" / "plotly.js-LICENSE.txt").read_text().startswith("MIT License")
    assert "4.1.1" in (STATIC_DIR / "vendor" / "README.md").read_text()


def test_the_plotly_python_package_is_not_a_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.split(">")[0].split("=")[0].strip() == "plotly" for d in project["dependencies"])
    sources = "\n".join(p.read_text() for p in (ROOT / "src" / "gpuscout").rglob("*.py"))
    assert "import plotly" not in sources and 'resources.files("plotly")' not in sources
