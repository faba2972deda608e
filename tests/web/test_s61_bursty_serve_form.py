"""The advisor's serve form and a bursty endpoint (stop 61 browser review): the form fills in "Hours per
day" (24), so Bursts per day 20 and Burst minutes 6 sent as the form stands were refused with 422 ("give
“Hours per day” or “Bursts per day” + “Burst minutes”, not both") though the user never typed the hours.
The 24 is the form's, not the user's, and is not sent; an hours figure the user changed, or one a link
gives, is still an error at its label, as the workload says."""

from __future__ import annotations

import html
import json
import re

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gpuscout.advise.workload import ServeWorkload
from gpuscout.cli import app
from gpuscout.web.templating import money
from tests.web.test_advise_batch_kind_fields import _form_values

BURSTS = {"model": "llama-3.1-8b", "bursts_per_day": "20", "burst_minutes": "6"}


def _rows(page: str) -> dict[int, tuple[str, str]]:
    """Each ranked row of the page: its number -> (instance type, total as shown)."""
    rows: dict[int, tuple[str, str]] = {}
    for body in page.split('<tbody id="rank-')[1:]:
        rank = int(body.split('"', 1)[0])
        instance = re.search(r'<span class="sub instance" title="([^"]*)"', body)
        total = re.search(r'<td class="num total"[^>]*>([^<]*)</td>', body)
        assert instance and total
        rows[rank] = (html.unescape(instance.group(1)), total.group(1))
    return rows


def test_bursts_sent_as_the_form_stands_answer_as_the_cli_does(client: TestClient, db_url: str) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "serve"}).text)
    default = ServeWorkload.model_fields["hours_per_day"].default
    assert blank["hours_per_day"] == f"{default:g}" and blank["sent"] == "1"  # the form fills it in
    r = client.get("/advise", params={**blank, **BURSTS})
    assert r.status_code == 200 and 'id="ranked"' in r.text and 'id="err-hours_per_day"' not in r.text
    assert "hours_per_day" not in r.text.split('class="yaml"', 1)[1]  # the workload ranked: no hours
    cli = CliRunner().invoke(
        app,
        ["recommend", "serve", "llama-3.1-8b", "--bursts", "20", "--burst-minutes", "6", "--json",
         "--top", "20", "--db", db_url],
    )  # fmt: skip
    assert cli.exit_code == 0, cli.output
    answer = json.loads(cli.output)
    assert answer["workload"] == {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "bursts_per_day": 20,
        "burst_minutes": 6,
    }
    expected = {
        r["rank"]: (r["offer"]["instance_type"], money(month, 0 if month >= 100 else 2))
        for r in answer["recommendations"]
        for month in [r["unit_costs"]["per_month"]]
    }
    assert expected and _rows(r.text) == expected


def test_a_changed_hours_per_day_beside_bursts_is_an_error_at_its_label(client: TestClient) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "serve"}).text)
    r = client.get("/advise", params={**blank, **BURSTS, "hours_per_day": "8"})
    assert r.status_code == 422 and 'id="ranked"' not in r.text and 'id="err-hours_per_day"' in r.text


def test_a_link_giving_hours_at_their_default_beside_bursts_is_an_error(client: TestClient) -> None:
    r = client.get("/advise", params={"kind": "serve", **BURSTS, "hours_per_day": "24"})  # no form
    assert r.status_code == 422 and 'id="err-hours_per_day"' in r.text
