"""The web advisor shares the answer's words (renter review, session 49): a row that runs another engine
than asked names it in its Config cell (the Note cell that says why is clamped to two lines, and the
engine came last in it), and the breakdown says the hours billed a day of an endpoint stopped nightly;
the JSON API carries the same reason."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.reasons import BILLING_ROUNDING
from tests.advise.web_helpers import web_client, web_offer


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    # verda: billing increment unknown, per-hour assumed
    offers = [
        web_offer("v100", "V100-SXM2-16GB", 16, 0.1381, provider="verda", region="FIN-01"),
        web_offer("h100", "H100-SXM", 80, 2.5, provider="verda", region="FIN-01"),
    ]
    with web_client(tmp_path, offers) as c:
        yield c


def _config_cells(page: str) -> dict[str, str]:
    """Each result row's Config cell as text, by the row's GPU."""
    out = {}
    for row in re.findall(r'<tr class="main".*?</tr>', page, re.S):
        gpu = re.search(r'<td class="gpu">(?:<span class="rented">)?<a href="/gpus/([^"]+)"', row)
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


def test_the_page_names_a_run_where_the_cli_does_every_row_running_the_titles_run(tmp_path: Path) -> None:
    # gpt-oss's MXFP4 under --engine tgi: every row runs tgi with int4 in its place. The title says so
    # once; the rows, substituted all, do not repeat it (the CLI's rule: ``Recommendation.names_run``)
    offers = [web_offer("2xh100", "H100-SXM", 80, 5.0, gpus=2)]
    with web_client(tmp_path, offers) as client:
        params = {"kind": "serve", "model": "gpt-oss-120b", "concurrency": "8", "engine": "tgi", "sent": "1"}
        page = client.get("/advise", params=params)
    assert page.status_code == 200
    cells = _config_cells(page.text)
    assert cells and not any("·" in c for c in cells.values()), cells
    title = re.search(r'<h2 id="results-title">(.*?)</h2>', page.text, re.S)
    assert title is not None
    assert "(tgi, int4 in place of mxfp4-moe)" in html.unescape(title.group(1)), title.group(1)
    assert "runs tgi with int4" in page.text  # each row still says why, in its Note cell
