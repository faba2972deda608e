"""HTML pages through the test client: server-side filters, escaping, CSP, exports."""

from __future__ import annotations

import csv
import io
import re

from fastapi.testclient import TestClient

from gpuscout.web import create_app
from tests.web.conftest import XSS


def _cells(html: str, cls: str) -> list[str]:
    return re.findall(rf'<td class="{cls}"[^>]*>(.*?)</td>', html, flags=re.S)


def test_offers_page_filters_on_the_server(client: TestClient) -> None:
    html = client.get("/", params={"gpu": "RTX4090"}).text
    assert _cells(html, "provider") == ["gammacompute", "gammacompute"]
    assert "2 offers" in html
    assert 'value="RTX4090"' in html  # the form keeps the filter


def test_sort_links_keep_the_filters_and_flip_direction(client: TestClient) -> None:
    html = client.get("/", params={"gpu": "H100", "sort": "price_per_gpu"}).text
    assert 'href="/?gpu=H100&amp;order=desc"' in html  # same column again: descending (sort is default)
    assert "sort=provider" in html and "gpu=H100&amp;sort=provider" in html


def test_provider_strings_are_escaped_everywhere(client: TestClient) -> None:
    for path in ("/", "/?sort=provider", "/gpus/L40S"):
        html = client.get(path).text
        assert XSS not in html, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, path
    assert 'href="javascript:' not in client.get("/").text


def test_pages_carry_a_content_security_policy(client: TestClient) -> None:
    r = client.get("/")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "object-src 'none'" in csp and "unsafe-eval" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in r.text.replace('<script type="application/json"', "")  # no inline script


def test_age_is_unknown_for_undated_rows_never_now(client: TestClient) -> None:
    html = client.get("/", params={"gpu": "L40S", "include_stale": "true", "sort": "provider"}).text
    ages = _cells(html, "age")
    undated = [a for a in ages if a.startswith("unknown")]
    assert len(ages) == 2 and len(undated) == 1 and "stale" in undated[0]  # deltasnap's row
    assert "1 h" in ages
    # a view where every price age is unknown says so once, in the banner, instead of a column of it
    params = {"gpu": "L40S", "provider": "deltasnap", "include_stale": "true"}
    only_undated = client.get("/", params=params).text
    assert not _cells(only_undated, "age") and 'id="folded"' in only_undated
    assert "price age" in only_undated.split('id="folded"')[1].split("</span>")[0]


def test_csv_export_is_exactly_the_view(client: TestClient) -> None:
    params = {"gpu": "H100", "sort": "price", "order": "desc", "per_page": 2}
    html = client.get("/", params=params).text
    rows = list(csv.DictReader(io.StringIO(client.get("/offers.csv", params=params).text)))
    assert [r["instance_type"] for r in rows] == _cells(html, "instance")
    all_pages = client.get("/offers.csv", params={**params, "scope": "all"}).text
    everything = list(csv.DictReader(io.StringIO(all_pages)))
    assert len(everything) == 4 and everything[:2] == rows
    data = client.get("/offers.json", params=params).json()
    assert [d["instance_type"] for d in data] == [r["instance_type"] for r in rows]


def test_csv_cells_cannot_start_a_formula(client: TestClient) -> None:
    from gpuscout.web.offer_view import csv_cell

    assert csv_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and csv_cell("-1.5") == "-1.5"


def test_bad_filter_is_shown_at_its_field_in_plain_words_with_other_inputs_kept(client: TestClient) -> None:
    r = client.get("/", params={"gpu": "H1000", "region": "eu-", "max_price": "7"})
    assert r.status_code == 422 and "text/html" in r.headers["content-type"]
    field = r'name="gpu"[^>]*value="H1000"[^>]*aria-invalid="true" aria-describedby="err-gpu"'
    assert re.search(field, r.text)
    error = r.text.split('id="err-gpu"')[1].split("</span>\n</span>")[0]
    assert "GPU: “H1000” is not a name gpuscout knows" in error
    # each suggestion replaces the GPU and keeps the other filters
    assert 'href="/?gpu=H100-SXM&amp;region=eu-&amp;max_price=7"' in error
    assert 'name="region" value="eu-"' in r.text and 'name="max_price" type="number"' in r.text
    assert 'value="7"' in r.text
    bad_count = client.get("/", params={"gpus": "-3", "provider": "betagpu"})
    assert bad_count.status_code == 422
    message = bad_count.text.split('id="err-gpus"')[1].split("</span>")[0]
    assert "GPUs per instance must be a whole number from 1 to 10,000; you typed “-3”" in message
    assert "int" not in message and ">=" not in message  # no type expressions
    assert 'name="provider" value="betagpu"' in bad_count.text


def test_an_unknown_provider_is_named_with_the_closest_ids(client: TestClient) -> None:
    r = client.get("/", params={"provider": "alfacloud"})
    assert r.status_code == 422
    assert "no current offer is from “alfacloud”" in r.text and ">alphacloud</a>" in r.text


def test_empty_form_fields_mean_no_filter(client: TestClient) -> None:
    r = client.get("/?gpu=&min_vram=&gpus=&provider=&region=&pricing=any&interconnect=any&max_price=")
    assert r.status_code == 200 and "8 offers" in r.text  # the stale one is hidden


def test_newcomer_sees_the_bundled_snapshot_with_unknown_age() -> None:
    # No db, no set-up: the default store (in the test's data dir) is filled from the bundled snapshot.
    with TestClient(create_app()) as client:
        html = client.get("/").text
        banner = html.split('id="freshness"')[1].split("</p>")[0]
        assert "Bundled snapshot" in banner and "when these prices were observed is unknown" in banner
        assert "gpuscout refresh" in banner
        assert not _cells(html, "age")  # unknown on every row: said once in the banner, not 50 times
        assert "price age" in html.split('id="folded"')[1].split("</span>")[0]
        assert len(_cells(html, "num per-gpu")) == 50
        assert client.get("/api/v1/offers").json()["total"] > 100


def test_an_assumed_gpu_variant_is_marked_with_a_tooltip(client: TestClient) -> None:
    note = "form factor not stated by the source; assumed H100-SXM"
    marker = f'<abbr class="assumed" title="{note}" aria-label="{note}">?</abbr>'
    html = client.get("/", params={"gpu": "H100"}).text
    row = next(r for r in html.split("<tr>") if "b-h100" in r)
    assert marker in row
    assert html.count(marker) == 1  # only the row whose source did not state the form factor
    assert 'id="variant-note"' in html
    assert 'id="variant-note"' not in client.get("/", params={"gpu": "L40S"}).text
    gpu_page = client.get("/gpus/H100-SXM").text
    row = next(r for r in gpu_page.split("<tr>") if "b-h100" in r)
    assert "variant assumed</abbr>" in row and "assumed H100-SXM" in row
    assert gpu_page.count("variant assumed</abbr>") == 1


def test_exports_carry_the_assumed_variant_flag(client: TestClient) -> None:
    records = client.get("/offers.json", params={"gpu": "H100"}).json()
    assert {r["instance_type"]: r["variant_assumed"] for r in records}["b-h100"] is True
    assert sum(r["variant_assumed"] for r in records) == 1


def test_advisor_rows_mark_an_assumed_gpu_variant(client: TestClient) -> None:
    html = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b"}).text
    rows = html.split('<tr class="main" data-rank=')[1:]
    assumed = [r for r in rows if "b-h100" in r]
    assert len(rows) > len(assumed)
    assert assumed and all('<abbr class="assumed" title="form factor not stated' in r for r in assumed)
    assert not any('class="assumed"' in r for r in rows if "b-h100" not in r)
