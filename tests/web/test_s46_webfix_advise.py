"""The advisor page says what a renter rents and pays for: a pick and a row rented over many instances
count every GPU (64 x 8 MI300X is 512 GPUs, not "8x MI300X"); the cheapest card is the cheapest *on the
front*, and a row off it that costs less says "beaten by #N" with the rule one link away; a thousand
images are priced to three figures, seconds per image to two; a serving row's two speeds say which is
which; a pick's calibrated alternative far down the answer is a link that opens it (``explain`` takes any
row of the answer, and one past it is an error naming how many rows there are)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.api import advise
from gpuscout.advise.types import Advice, UncalibratedPick
from gpuscout.advise.workload import ServeWorkload
from gpuscout.errors import InvalidInputError
from gpuscout.web import create_app
from gpuscout.web.advise_form import parse_request
from gpuscout.web.advise_view import (
    answer_view,
    check_explain,
    present,
    speed_text,
    unit_cost_label,
    unit_money,
)
from gpuscout.web.services import WebServices
from tests.web.conftest import sample_offers

SERVE = "/advise?kind=serve&model=llama-3.1-8b"
IMAGES = "/advise?kind=batch&model=sdxl&images_total=100000"


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _row(html: str, rank: int) -> str:
    found = re.search(rf'<tbody id="rank-{rank}".*?</tr>', html, re.S)
    assert found, f"row #{rank} not on the page"
    return found.group(0)


def _cards(html: str) -> list[str]:
    return [_text(c) for c in re.findall(r'<li class="pick.*?</li>', html, re.S)]


class _Services(WebServices):
    """The services of the sample store, with each answer changed by ``change`` (a row rented over many
    instances, an uncalibrated pick)."""

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


def _on_64_instances(advice: Advice) -> Advice:
    """Row #1 as a run over 64 instances of its offer (a pre-training run's nodes)."""
    rows = tuple(
        replace(r, config=replace(r.config, instances=64, nodes=64)) if r.rank == 1 else r
        for r in advice.rows
    )
    return replace(advice, rows=rows)


# ---- 1. what is rented -------------------------------------------------------------------------------
def test_a_pick_and_its_row_count_every_gpu_rented(changed: tuple[type[_Services], TestClient]) -> None:
    services, client = changed
    services.change = _on_64_instances
    html = client.get(SERVE).text
    one = _row(html, 1)
    per = int(re.search(r"(\d+)x GPU", _text(one)).group(1))  # type: ignore[union-attr]
    card = next(c for c in _cards(html) if "#1:" in c)
    # was "#1: 1× RTX4090": one instance's GPUs for a 64-instance deployment
    assert f"#1: 64 × {per}× RTX4090 ({64 * per} GPUs)" in card
    gpu_cell = _text(re.search(r'<td class="gpu">.*?</td>', one, re.S).group(0))  # type: ignore[union-attr]
    assert gpu_cell.startswith(f"RTX4090 × {64 * per} (64 × {per})")


def test_one_instance_reads_as_before(client: TestClient) -> None:
    html = client.get(SERVE).text
    assert "#1: 1× RTX4090" in next(c for c in _cards(html) if "#1:" in c)
    gpu_cell = _text(re.search(r'<td class="gpu">.*?</td>', _row(html, 1), re.S).group(0))  # type: ignore[union-attr]
    assert gpu_cell.startswith("RTX4090 × 1") and "(" not in gpu_cell


# ---- 4. the cheapest pick and the rows it beats -------------------------------------------------------
def test_the_cheapest_card_is_the_cheapest_on_the_front_and_cheaper_rows_say_beaten(
    client: TestClient,
) -> None:
    html = client.get(IMAGES).text
    cheapest = next(c for c in _cards(html) if 'data-pick="cheapest"' in c or "cheapest" in c)
    assert cheapest.lower().startswith("cheapest on the front")

    def note(rank: int) -> str:
        return _text(re.search(r'<td class="key-reason".*?</td>', _row(html, rank), re.S).group(0))  # type: ignore[union-attr]

    # the first row off the front costs less than #1: by the time-value rule #1 beats it
    shown = [n for n in range(2, 13) if f'id="rank-{n}"' in html]
    off = next(n for n in shown if note(n).startswith("beaten by"))
    assert note(off).startswith("beaten by #1 (rule)"), note(off)
    two = _row(html, off)
    assert 'href="#rank-1"' in two and 'href="#picks-rule"' in two
    assert "dominated by" not in _text(html)
    divider = _text(re.search(r'<tbody class="divider">.*?</tbody>', html, re.S).group(0))  # type: ignore[union-attr]
    assert "beaten by a row above" in divider and "can cost less than the cheapest pick" in divider
    assert 'id="picks-rule"' in html


# ---- 5. images per thousand, seconds per image to two figures -----------------------------------------
def test_images_are_priced_per_thousand_to_three_figures(client: TestClient) -> None:
    assert unit_cost_label("batch", images=True) == "$ / 1k images"
    assert unit_money(0.11325) == "$0.113" and unit_money(1.5) == "$1.50" and unit_money(12.34) == "$12.3"
    html = client.get(IMAGES).text
    assert '<th scope="col" class="num">$ / 1k images</th>' in html
    cell = _text(re.search(r'<td class="num unit-cost".*?</td>', _row(html, 1), re.S).group(0))  # type: ignore[union-attr]
    digits = re.sub(r"[^0-9]", "", cell).lstrip("0")
    assert cell.startswith("$") and len(digits) == 3, cell  # was "$0.0006": one figure


def test_seconds_per_image_keep_two_figures() -> None:
    # both were "(2 s/img)"
    assert speed_text(1 / 2.3, "img/s").endswith("(2.3 s/img)")
    assert speed_text(1 / 1.5, "img/s").endswith("(1.5 s/img)")
    assert speed_text(1 / 14.3, "img/s").endswith("(14 s/img)")


# ---- 6. a serving row's two speeds -------------------------------------------------------------------
def test_a_serving_rows_speeds_say_which_is_which(client: TestClient) -> None:
    html = client.get(SERVE).text
    speed = _text(re.search(r'<td class="speed".*?</td>', _row(html, 1), re.S).group(0))  # type: ignore[union-attr]
    assert re.fullmatch(r"[\d,.]+ tok/s served · [\d,]+ tok/s per user decoding", speed), speed
    assert "Per user, decoding" in html and "prefill time counted" in html


# ---- 3. any row can be explained; the calibrated alternative is a link --------------------------------
def test_explain_takes_a_row_past_the_shown_ones() -> None:
    # was 422: "explain: 445 is out of range (accepted: 1..100)"
    assert parse_request({"model": "llama-3.1-8b", "explain": "445"}).explain == 445
    with pytest.raises(InvalidInputError) as caught:
        parse_request({"model": "llama-3.1-8b", "explain": "0"})
    assert caught.value.field == "explain"


def _answer(top: int) -> Advice:
    offers = [o for o in sample_offers() if o.observed_at is not None]
    return advise(ServeWorkload(model="llama-3.1-8b"), offers, top=top)


def test_an_explain_past_the_answer_names_how_many_rows_there_are() -> None:
    answer = _answer(50)
    count = len(answer.rows)
    check_explain(answer, count)  # the last row: fine
    with pytest.raises(InvalidInputError) as caught:
        check_explain(answer, count + 1)
    assert caught.value.field == "explain"
    assert f"this answer has {count} rows" in str(caught.value) and caught.value.accepted.endswith(
        f"1..{count}"
    )


def test_the_page_shows_its_top_rows_and_the_row_explained_after_them() -> None:
    answer = _answer(6)
    last = max(r.rank or 0 for r in answer.rows)
    ranks = [r.rec.rank for r in answer_view(answer, "serve", top=2, explain=last).rows]
    # what "Show" 2 shows is the advisor's own answer ranked with top 2 (the picks first), then that row
    assert ranks == [*(r.rank for r in _answer(2).rows), last]
    assert [r.rec.rank for r in answer_view(answer, "serve").rows] == [r.rank for r in answer.rows]


def test_a_calibrated_alternative_past_show_is_a_link_that_opens_it(
    changed: tuple[type[_Services], TestClient],
) -> None:
    services, client = changed

    def uncalibrated(advice: Advice) -> Advice:
        return replace(advice, uncalibrated_picks=(UncalibratedPick("cheapest", 1, "RTX4090 serving", 445),))

    services.change = uncalibrated
    html = client.get(SERVE + "&concurrency=4").text
    card = next(c for c in re.findall(r'<li class="pick".*?</li>', html, re.S) if "#1:" in _text(c))
    link = re.search(r'<a class="explain-link" href="([^"]+)">#445</a>', card)
    assert link, card  # was "calibrated: #445 (not shown)", with no way to see it
    href = unescape(link.group(1))
    assert href.startswith("/advise?") and href.endswith("explain=445#rank-445")
    assert "concurrency=4" in href and "model=llama-3.1-8b" in href and "kind=serve" in href


def test_a_row_rented_over_instances_presents_its_gpus() -> None:
    rec = _answer(1).rows[0]
    wide = present(replace(rec, config=replace(rec.config, instances=3, gpus_per_instance=2)), "serve")
    assert wide.gpus_rented == 6 and wide.rented == f"3 × 2× {rec.offer.accelerator} (6 GPUs)"
