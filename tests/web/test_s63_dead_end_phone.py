"""A dead end on a phone (stop 63, a review): the advisor page put the dead end under the prices line and
"Held to", then said what binds as one paragraph of counts and closest rows before the first "Try this"
link: about 33 lines on a 390 px phone before anything to tap. It now comes first under the title: what
binds in a line (the head of the diagnosis, before its counts), the moves each with its link, and the
whole diagnosis folded in a <details> (closed in the HTML; app.js opens it on a wide screen), every fact
of it kept."""

from __future__ import annotations

import html as html_text
import re

import pytest
from fastapi.testclient import TestClient

from gpuscout.web import create_app
from gpuscout.web.advise_view import binding_lead

SERVE_BUDGET = {
    "kind": "serve",
    "model": "llama-3.1-70b",
    "engine": "llama.cpp",
    "concurrency": "4",
    "prompt_tokens": "1000",
    "output_tokens": "300",
    "budget_usd": "500",
}
BATCH_DEADLINE = {
    "kind": "batch",
    "model": "llama-3.1-70b",
    "output_tokens_total": "100000000",
    "deadline_hours": "0.1333",
}


def _plain(markup: str) -> str:
    return " ".join(html_text.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


@pytest.mark.parametrize(
    ("params", "lead"),
    [
        (SERVE_BUDGET, "the latency targets and the budget bind together"),
        (BATCH_DEADLINE, "the deadline binds"),
    ],
)
def test_a_dead_end_leads_with_what_binds_and_the_moves_and_folds_the_rest(
    params: dict[str, str], lead: str
) -> None:
    with TestClient(create_app()) as client:  # the bundled snapshot
        page = client.get("/advise", params=params).text
        answer = client.post("/api/v1/advise", json={"workload": params, "top": 5}).json()
    block = page.split('id="no-results"', 1)[1].split("</div>", 1)[0]
    # first under the title, before the prices line and what the answer is held to
    assert page.index('id="no-results"') < page.index('id="targets"')
    assert page.index('id="results-title"') < page.index('id="no-results"')
    # what binds, short: the diagnosis's head, no counts
    said = _plain(block.split('id="binding-lead">', 1)[1].split("</span>", 1)[0])
    assert said == lead
    # then the moves, each with its link, then the whole diagnosis in a fold closed in the HTML
    moves = block.index('id="moves"')
    links = [m.start() for m in re.finditer(r'<a class="try-move" href="[^"]+">Try this</a>', block)]
    fold = re.search(r'<details class="binding-why" id="binding-why">', block)
    assert fold is not None, block
    assert block.index('id="binding-lead"') < moves < links[0]
    assert len(links) == len(answer["moves"]) and links[-1] < fold.start()
    # the fold holds the whole diagnosis: its counts and all (the API's ``binding_why``, in the form's words)
    folded = _plain(block[fold.start() :].split("</details>", 1)[0])
    assert folded.startswith("Why, in full " + lead[:1].upper() + lead[1:] + " (of 748 offers: "), folded
    assert block[fold.start() :].index('id="binding"') < block[fold.start() :].index("</details>")
    assert _plain(block).endswith("748 offers looked at.")


def test_the_short_head_is_the_text_before_its_counts() -> None:
    assert binding_lead("the budget binds (of 748 offers: 608 are over the budget; 93 are stale)") == (
        "the budget binds"
    )
    # a bracket before the counts is part of the head
    assert binding_lead(
        "only interruptible (auction / spot) capacity can run it (of 1 offer: 1 is spot-only): x"
    ) == ("only interruptible (auction / spot) capacity can run it")
    assert binding_lead("the deadline binds (3 offers looked at): y") == "the deadline binds"
    # nothing to cut at, or a head that says no more than the page's own first line: the text stays whole
    assert binding_lead("the catalog is empty: run `gpuscout refresh` (or check --db)") == ""
    assert binding_lead("no offer can run it (of 1 offer: 1 does not fit); a narrower precision") == ""


def test_a_dead_end_with_no_short_head_shows_its_whole_text_unfolded() -> None:
    params = {"kind": "serve", "model": "llama-3.1-405b", "concurrency": "1000000", "latency_targets": "none"}
    with TestClient(create_app()) as client:
        page = client.get("/advise", params={**params, "sent": "1"}).text
    block = page.split('id="no-results"', 1)[1].split("</div>", 1)[0]
    # "No offer can run it": its hints are the ways out, so the whole text stays in view
    assert 'id="binding-lead"' not in block and "<details" not in block
    binding = _plain(block.split('id="binding">', 1)[1].split("</p>", 1)[0])
    assert binding.startswith("No offer can run it (of 748 offers: "), binding
    assert "a narrower precision (fp8, int4)" in binding
