"""What the webfix patches to files of other owners do (apply with them: /tmp/lead46/patches/webfix-*):
the advisor page opens any row of its answer and says when there is no such row (pages.py); an export of
a page past the last is a 422 naming it (pages.py); a bursty endpoint's billing reason compares two
figures only where they differ (advise/reasons.py); a training row's layout is no "tensor" split
(advise); a model's title keeps its capitals (model_view.py)."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

from gpuscout.advise.api import recommend
from gpuscout.advise.workload import FinetuneWorkload, ServeWorkload
from gpuscout.user_models import registry
from gpuscout.web.model_view import model_label
from tests.web.conftest import make_offer, sample_offers

SERVE = "/advise?kind=serve&model=llama-3.1-8b"


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


# ---- pages.py: explain any row; an export past the last page --------------------------------------------
def test_the_page_opens_a_row_past_show_after_a_gap(client: TestClient) -> None:
    html = client.get(SERVE + "&top=2&explain=6").text
    ranks = [int(n) for n in re.findall(r'<tr class="main" data-rank="(\d+)"', html)]
    assert ranks == [1, 2, 6]  # the two "Show" asks for, then the row explained (was rows 1..9)
    assert re.search(r'id="rank-6".*?<details class="breakdown-toggle" open', html, re.S)
    assert "rows #3–#5 not shown" in _text(html)


def test_an_explain_past_the_answer_is_an_error_naming_its_rows(client: TestClient) -> None:
    r = client.get(SERVE + "&explain=500")
    assert r.status_code == 422  # was 200, no row open and no word of it
    assert re.search(r"no row #500: this answer has \d+ rows", _text(r.text))


def test_an_export_past_the_last_page_is_a_422_naming_it(client: TestClient) -> None:
    for export in ("/offers.csv", "/offers.json"):
        r = client.get(export, params={"per_page": 5, "page": 99})
        assert r.status_code == 422, (export, r.text[:200])  # was 200: the header row alone, or []
        assert "page 99 is past the last page of this view" in _text(r.text)
        assert client.get(export, params={"per_page": 5, "page": 1}).status_code == 200


# ---- advise/reasons.py: the billing reason of a bursty endpoint -----------------------------------------
def test_a_bursty_endpoints_billing_compares_only_figures_that_differ() -> None:
    # runpod bills by the second, lambda by the minute, an unknown provider's increment is assumed hourly
    offers = [
        make_offer(provider=p, instance_type=f"{p}-h100", price_usd_per_hour=2.5)
        for p in ("runpod", "lambda", "primeintellect")
    ]
    w = ServeWorkload(model="llama-3.1-8b", concurrency=8, bursts_per_day=20, burst_minutes=6)
    said = {
        r.offer.provider: next(x for x in r.reasons if "bursts of 6 min" in x) for r in recommend(w, offers)
    }
    assert set(said) == {"runpod", "lambda", "primeintellect"}
    # was "per-second billing: 20 bursts of 6 min bill 2.5 h/day here vs 2.5 h at per-second billing"
    assert " vs " not in said["runpod"] and said["runpod"].startswith("per-second billing: 20 bursts")
    for text in said.values():
        figures = re.findall(r"([\d.]+) h\b", text)
        assert len(figures) == 1 or figures[0] != figures[1], text
    assert said["primeintellect"].startswith("unknown billing increment (assumed per-hour): 20 bursts")


# ---- advise: a training row's layout ---------------------------------------------------------------------
def test_a_training_rows_parallel_is_its_layout() -> None:
    offers = [o for o in sample_offers() if o.observed_at is not None]
    w = FinetuneWorkload(model="llama-3.1-8b", method="lora", dataset_tokens=10_000_000)
    recs = recommend(w, offers)
    assert recs
    for r in recs:
        layout = r.config.training.split(";")[0]
        want = {"one GPU": "none", "data parallel": "data", "FSDP": "fsdp"}
        expected = next((v for k, v in want.items() if layout.startswith(k)), None)
        assert r.config.parallel != "tensor", layout  # was "tensor" with tp 1
        if expected:
            assert r.config.parallel == expected, layout


# ---- web/model_view.py: a model's title ----------------------------------------------------------------
def test_a_lower_case_id_keeps_its_capitals_and_acronyms() -> None:
    labels = {m.name: model_label(m) for m in registry().all()}
    sdxl = next(v for k, v in labels.items() if "stable-diffusion-xl" in (registry().resolve(k).hf_id or ""))
    assert sdxl == "Stable Diffusion XL 1.0"  # was "Stable diffusion xl 1.0"
    assert "Llama 3.1 8B" in labels.values() and "gpt-oss-120b" in labels.values()
    assert not any(".yaml" in v or v.startswith("Openai:") for v in labels.values())
