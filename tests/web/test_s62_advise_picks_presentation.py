"""The advisor's result page, as a reviewer read it (session 62): a pick card says when its price is a
spot price and its chance of missing the deadline; the page says the two pick-level facts the CLI's picks
line says (an assumed board, what the fastest pick costs against the cheapest); a row's Note shows its
most serious warning; the rule behind the picks folds away; a cost breakdown writes a sub-cent amount
"<$0.01" and leaves out a spot line on an on-demand row."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.reasons import late_chance
from gpuscout.advise.types import Advice
from gpuscout.web import create_app
from gpuscout.web.services import WebServices
from gpuscout.wording import BOARD_ASSUMED

FINETUNE = "/advise?kind=finetune&model=llama-3.1-8b&dataset_tokens=100000000"
SERVE = "/advise?kind=serve&model=llama-3.1-8b&concurrency=8"


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _card(html: str, pick: str) -> str:
    found = re.search(rf'<li class="pick" data-pick="{pick}">.*?</li>', html, re.S)
    assert found, pick
    return _text(found.group(0))


def _breakdown(html: str, rank: int) -> str:
    block = re.search(rf'<tbody id="rank-{rank}".*?</tbody>', html, re.S)
    assert block, rank
    money = re.search(r'<dl class="specs money">.*?</dl>', block.group(0), re.S)
    assert money, rank
    return _text(money.group(0))


class _Services(WebServices):
    change: Any = None

    def advice(self, workload: Any, **kw: Any) -> Advice:
        advice = super().advice(workload, **kw)
        return type(self).change(advice) if type(self).change else advice


@pytest.fixture()
def changed(db_url: str) -> Iterator[tuple[type[_Services], TestClient]]:
    class Services(_Services):
        change = None

    with TestClient(create_app(db_url, services=Services(db_url, cache_seconds=0))) as client:
        yield Services, client


def _with_reason(rank: int, reason: str) -> Any:
    def change(advice: Advice) -> Advice:
        rows = tuple(replace(r, reasons=(*r.reasons, reason)) if r.rank == rank else r for r in advice.rows)
        return replace(advice, rows=rows)

    return change


# ---- 1. a spot pick says so ---------------------------------------------------------------------------
def test_a_spot_pick_says_spot_on_its_card(client: TestClient) -> None:
    html = client.get(FINETUNE).text
    cheapest = _card(html, "cheapest")
    # was "#1: 1× H100-SXM at betagpu $4.27": priced at the spot rate, saying so only in the Config cell
    assert re.search(r"#1: 1× H100-SXM spot at betagpu", cheapest), cheapest
    # an on-demand pick does not say spot
    serve = _card(client.get(SERVE).text, "cheapest")
    assert " spot " not in f" {serve} "


def test_a_spot_pick_says_its_chance_of_missing_the_deadline(
    changed: tuple[type[_Services], TestClient],
) -> None:
    services, client = changed
    said = late_chance(0.12, "24.0 h")  # the ranker's own words, inside the row's time reason
    services.change = _with_reason(1, f"4.1 h for 100M tokens + 4 min warm-up = 4.2 h ({said})")
    cheapest = _card(client.get(FINETUNE).text, "cheapest")
    assert "~12% chance of missing the 24.0 h deadline with spot reclaims" in cheapest, cheapest


# ---- 2. the CLI's pick-level facts --------------------------------------------------------------------
def test_the_page_says_an_assumed_board_and_the_fastest_picks_premium(
    changed: tuple[type[_Services], TestClient],
) -> None:
    services, client = changed
    reason = f"{BOARD_ASSUMED}SXM5 (the source says only 'H100'): timed on its NVLink"
    services.change = _with_reason(1, reason)
    html = client.get(SERVE).text
    facts = re.search(r'<p class="note picks-facts" id="picks-facts">.*?</p>', html, re.S)
    assert facts, "no pick-level facts under the picks"
    text = unescape(re.sub(r"<[^>]+>", "", facts.group(0)))
    assert "#1's speed rests on an assumed board, SXM5 (the source says only 'H100')." in text, text
    assert 'href="#rank-1"' in facts.group(0)
    assert re.search(r"#\d+ is [\d.]+x as fast as #1 at [\d.,]+x the cost\.", text), text


def test_the_pages_facts_are_the_clis(client: TestClient) -> None:
    # the premium the page says is the one the CLI's function computes over the same rows
    body = {"workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 8}}
    api = client.post("/api/v1/advise", json=body).json()
    picks = api["picks"]
    cheap, fast = api["recommendations"][picks["cheapest"] - 1], api["recommendations"][picks["fastest"] - 1]
    time = cheap["time_to_result_s"] / fast["time_to_result_s"]
    cost = fast["cost"]["total"] / cheap["cost"]["total"]
    said = f"#{fast['rank']} is {time:.1f}x as fast as #{cheap['rank']} at {cost:,.1f}x the cost"
    assert f"{said}." in _text(client.get(SERVE).text)


# ---- 5. the rule folds away ---------------------------------------------------------------------------
def test_the_rule_behind_the_picks_folds_into_details(client: TestClient) -> None:
    html = client.get(SERVE).text
    fold = re.search(r'<details class="picks-rule" id="picks-rule">(.*?)</details>', html, re.S)
    assert fold, "the rule is not folded"
    assert "<summary>How the picks are chosen</summary>" in fold.group(1)
    assert _text(fold.group(1)).startswith("How the picks are chosen Front: no row on it")
    assert not re.search(r'<p class="note" id="picks-rule">', html)


# ---- 6. the cost breakdown's cents -------------------------------------------------------------------
def test_a_sub_cent_amount_reads_under_a_cent() -> None:
    from gpuscout.web.templating import cents

    # an item beside its total (stop 63: a total under a cent, said alone, keeps two figures: "$0.0019")
    assert cents(0.0099, 199.13) == "<$0.01"
    assert cents(0.004, 0.52) == "<$0.01"
    assert cents(0.0, 199.13) == "$0.00"
    assert cents(0.01) == "$0.01"
    assert cents(1234.5) == "$1,234.50"
    assert cents(None) == "—"


def test_an_on_demand_rows_breakdown_has_no_spot_line(client: TestClient) -> None:
    serve = _breakdown(client.get(SERVE).text, 1)
    assert "Spot interruptions" not in serve, serve
    assert re.search(r"\$0\.0\d{3}", serve) is None, serve
    spot = _breakdown(client.get(FINETUNE).text, 1)  # a spot row keeps its line
    assert "Spot interruptions $" in spot, spot
    assert "Storage <$0.01" in spot, spot
