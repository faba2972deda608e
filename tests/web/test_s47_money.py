"""The web advisor writes a cost per unit as every face does (``wording.money3``, the CLI's cost/unit
column): three significant figures, in the table's column and in the row's breakdown alike. It printed
"$0.031" in the column and "$0.03" in the breakdown for the CLI's "$0.0312/M tok" (review 92, item 3),
and three fine-tuning rows at $0.0157, $0.0174 and $0.0188 all read "$0.02"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.api import advise
from gpuscout.advise.types import Advice, Recommendation, UnitCosts
from gpuscout.advise.workload import ServeWorkload
from gpuscout.web import create_app
from gpuscout.web.advise_view import present, unit_money
from gpuscout.web.services import WebServices
from gpuscout.wording import money3
from tests.web.conftest import sample_offers

SERVE = "/advise?kind=serve&model=llama-3.1-8b"


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _serve_row() -> Recommendation:
    return advise(ServeWorkload(model="llama-3.1-8b"), sample_offers(), top=3).rows[0]


def _priced(rec: Recommendation, **units: float | None) -> Recommendation:
    base = {"per_million_output_tokens": None, "per_image": None, "per_run": None, "per_month": None}
    return replace(rec, unit_costs=UnitCosts(**{**base, **units}))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("per_m", "text"),
    [(0.0312, "$0.0312"), (0.0343, "$0.0343"), (1.668, "$1.67"), (0.84, "$0.840"), (123.4, "$123")],
)
def test_the_column_and_the_breakdown_write_dollars_per_million_tokens_as_the_cli(
    per_m: float, text: str
) -> None:
    shown = present(_priced(_serve_row(), per_million_output_tokens=per_m, per_month=10.0), "serve")
    assert shown.unit_cost == text == money3(per_m)  # was "$0.031", "$1.668"
    assert dict(shown.unit_costs)["$ / M output tokens"] == text  # the breakdown: was "$0.03"


def test_training_rows_apart_by_a_tenth_of_a_cent_read_apart() -> None:
    rec = _serve_row()
    texts = [
        present(_priced(rec, per_run=1.0, per_million_train_tokens=v), "finetune").unit_cost
        for v in (0.0157, 0.0174, 0.0188)
    ]
    assert texts == ["$0.0157", "$0.0174", "$0.0188"]  # were "$0.016", "$0.017", "$0.019" / "$0.02" x 3
    shown = present(_priced(rec, per_run=1.0, per_million_train_tokens=0.0157), "finetune")
    assert shown.unit_costs == (("$ / M training tokens", "$0.0157"),)


def test_images_keep_the_one_format() -> None:
    assert unit_money(0.11325) == "$0.113" and unit_money(1.5) == "$1.50" and unit_money(12.34) == "$12.3"
    assert unit_money(0.0004) == "<$0.001" and unit_money(None) == "—"
    shown = present(_priced(_serve_row(), per_image=0.000113, per_run=11.3), "batch")
    assert shown.unit_cost == "$0.113" and shown.unit_costs == (("$ / 1k images", "$0.113"),)


class _Priced(WebServices):
    """The sample store's answers with row #1 at $0.0312 and row #2 at $1.668 per M output tokens."""

    def advice(self, workload: Any, **kw: Any) -> Advice:
        advice = super().advice(workload, **kw)
        prices = {1: 0.0312, 2: 1.668}
        rows = tuple(
            _priced(r, per_million_output_tokens=prices[r.rank], per_month=50.0) if r.rank in prices else r
            for r in advice.rows
        )
        return replace(advice, rows=rows)


@pytest.fixture()
def priced(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, services=_Priced(db_url, cache_seconds=0))) as client:
        yield client


def test_the_page_writes_one_figure_in_the_table_and_the_breakdown(priced: TestClient) -> None:
    html = priced.get(SERVE).text
    for rank, text in ((1, "$0.0312"), (2, "$1.67")):
        body = re.search(rf'<tbody id="rank-{rank}".*?</tbody>', html, re.S)
        assert body, f"row #{rank} not on the page"
        cell = re.search(r'<td class="num unit-cost".*?>(.*?)</td>', body.group(0), re.S)
        assert cell and cell.group(1) == text  # was "$0.031" / "$1.668"
        units = _text(re.search(r'<dl class="specs money units">.*?</dl>', body.group(0), re.S).group(0))  # type: ignore[union-attr]
        assert f"$ / M output tokens {text}" in units  # was "$0.03" / "$1.67"
