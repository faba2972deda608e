"""The advisor page ranks with the options of its advanced section (``gpuscout recommend --include-stale
--spot-reclaims-per-hour X --min-headroom Y``), and its links keep them."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

from fastapi.testclient import TestClient

STALE_ONLY = (
    "/advise?kind=serve&model=llama-3.1-8b&sent=1&concurrency=4&accelerators=L40S&providers=deltasnap"
)
BATCH = "/advise?kind=batch&model=llama-3.1-8b&sent=1&output_tokens_total=100000000"
FT = "/advise?kind=finetune&model=llama-3.1-8b&sent=1&dataset_tokens=10000000"


def providers(html: str) -> list[str]:
    return re.findall(r'<span class="visually-hidden"> \(([^)]+)\)</span>', html)


def test_include_stale_shows_the_stale_offers(client: TestClient) -> None:
    left_out = client.get(STALE_ONLY)
    assert left_out.status_code == 200 and providers(left_out.text) == []
    assert "“Include stale offers: yes” (under Advanced) shows them" in unescape(left_out.text)
    shown = client.get(STALE_ONLY + "&include_stale=true")
    assert shown.status_code == 200 and providers(shown.text) == ["deltasnap"]
    assert '<span class="badge stale">stale</span>' in shown.text


def test_spot_reclaims_per_hour_is_the_rows_assumption(client: TestClient) -> None:
    html = client.get(BATCH + "&spot_reclaims_per_hour=2").text
    assert "marketplace 2/h" in html and "unknown kind 2/h" in html
    assert "marketplace 0.1/h" in client.get(BATCH).text


def test_min_headroom_is_the_rows_assumption(client: TestClient) -> None:
    html = client.get(FT + "&min_headroom=0.3").text
    assert "&gt;= 30% of each GPU free" in html and "&gt;= 5% of each GPU free" not in html


def test_an_option_the_advisor_refuses_is_at_its_input(client: TestClient) -> None:
    r = client.get(BATCH + "&spot_reclaims_per_hour=4000")
    assert r.status_code == 422
    assert 'id="err-spot_reclaims_per_hour"' in r.text and "from 0 to 3,600" in r.text


def test_a_suggestion_link_keeps_the_options(client: TestClient) -> None:
    r = client.get(STALE_ONLY.replace("L40S", "L40Z") + "&include_stale=true&spot_reclaims_per_hour=0.5")
    m = re.search(r'<span class="field-error" id="err-accelerators"[^>]*>(.*?)</label>', r.text, re.S)
    assert m, r.text[:500]
    hrefs = re.findall(r'<a href="([^"]+)">', m.group(1))
    params = parse_qs(urlsplit(unescape(hrefs[0])).query)
    assert params["include_stale"] == ["true"] and params["spot_reclaims_per_hour"] == ["0.5"]
