"""The advisor page numbers a row by its place in the whole answer (as the CLI does): where "Show" cuts the
front the numbers skip and a gap row says which are not shown, and a breakdown asked for by number opens
that row even when "Show" would have cut it."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

SERVE = "/advise?kind=serve&model=llama-3.1-8b&sent=1&concurrency=20"


def ranks(html: str) -> list[int]:
    return [int(x) for x in re.findall(r'<tr class="main" data-rank="(\d+)"', html)]


def test_rows_keep_their_numbers_whatever_show_is(client: TestClient) -> None:
    full = ranks(client.get(SERVE + "&top=20").text)
    cut_html = client.get(SERVE + "&top=3").text
    cut = ranks(cut_html)
    assert len(cut) == 3 and cut[0] == 1 and set(cut) <= set(full)
    assert cut != [1, 2, 3]  # the picks are further down the whole answer
    gap = cut[1] - 1
    assert f"#{gap}" in cut_html and "not shown" in cut_html and '<tbody class="gap">' in cut_html


def test_a_breakdown_asked_for_by_number_is_shown_and_open(client: TestClient) -> None:
    html = client.get(SERVE + "&top=3&explain=2").text
    assert 2 in ranks(html)
    assert re.search(r'<details class="breakdown-toggle" open>\s*<summary class="explain">Why #2,', html)
