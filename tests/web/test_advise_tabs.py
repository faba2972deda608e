"""The advisor's kind tabs and its form's fields: a tab keeps the model and shows that kind's form
without errors (they come once the form is submitted), a link that gives a workload still answers
directly, and a batch's form shows only the inputs the model's kind uses (server-side: no JavaScript)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

IMAGE_FIELDS = ("images_total", "width", "height", "steps")
LLM_FIELDS = (
    "engine",
    "input_tokens_total",
    "output_tokens_total",
    "prompt_tokens",
    "output_tokens",
)


def _inputs(html: str) -> set[str]:
    """The names of the workload form's visible inputs and selects."""
    form = html.split('id="workload"', 1)[1].split("</form>", 1)[0]
    return set(re.findall(r'<(?:input|select) name="([a-z_]+)"', form))


def _tab_links(html: str) -> dict[str, str]:
    nav = html.split('<nav class="kinds"', 1)[1].split("</nav>", 1)[0]
    return {
        k: href.replace("&amp;", "&") for href, k in re.findall(r'href="(/advise\?kind=(\w+)[^"]*)"', nav)
    }


@pytest.mark.parametrize("kind", ["batch", "finetune", "pretrain"])
def test_a_kind_tab_shows_that_kinds_form_with_the_model_and_no_error(client: TestClient, kind: str) -> None:
    # the tabs of a serving result keep the model; batch, fine-tune and pre-train answered 422 with
    # "a batch needs output_tokens_total ..." or "Dataset tokens: is required" before anything was typed
    result = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b", "concurrency": "32"})
    href = _tab_links(result.text)[kind]
    assert href == f"/advise?kind={kind}&model=llama-3.1-8b"
    tab = client.get(href)
    assert tab.status_code == 200
    assert 'class="field-error"' not in tab.text and 'class="error"' not in tab.text
    assert 'aria-invalid="true"' not in tab.text and 'id="ranked"' not in tab.text
    assert re.search(r'name="model"[^>]*value="llama-3.1-8b"', tab.text)
    assert f'<input type="hidden" name="kind" value="{kind}">' in tab.text


def test_the_current_tab_of_a_result_is_no_error_either(client: TestClient) -> None:
    result = client.get(
        "/advise", params={"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": "5e7"}
    )
    assert result.status_code == 200 and 'id="ranked"' in result.text
    again = client.get(_tab_links(result.text)["finetune"])
    assert again.status_code == 200 and 'class="field-error"' not in again.text


def test_a_submitted_form_is_checked_and_names_the_missing_field(client: TestClient) -> None:
    html = client.get("/advise", params={"kind": "batch", "model": "llama-3.1-8b"}).text
    assert '<input type="hidden" name="sent" value="1">' in html  # the form marks its own submit
    batch = client.get("/advise", params={"kind": "batch", "model": "llama-3.1-8b", "sent": "1"})
    assert batch.status_code == 422
    error = batch.text.split('id="err-output_tokens_total"', 1)[1].split("</span>", 1)[0]
    assert "Output tokens in all is required" in error and "output_tokens_total" not in error
    finetune = client.get("/advise", params={"kind": "finetune", "model": "llama-3.1-8b", "sent": "1"})
    assert finetune.status_code == 422 and 'id="err-dataset_tokens"' in finetune.text


def test_links_that_give_a_workload_still_answer_directly(client: TestClient) -> None:
    # the model page's "Rank offers for 1,000 images" and the FAQ's serving link carry no form marker
    images = client.get("/advise", params={"kind": "batch", "model": "flux.1-dev", "images_total": "1000"})
    assert images.status_code == 200 and 'id="ranked"' in images.text and "img/s" in images.text
    serve = client.get("/advise", params={"kind": "serve", "model": "llama-3.1-8b"})
    assert serve.status_code == 200 and 'id="ranked"' in serve.text
    # a value typed in a link is still checked, and an unknown model is still an error at its field
    bad = client.get(
        "/advise", params={"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": "-1"}
    )
    assert bad.status_code == 422 and 'id="err-output_tokens_total"' in bad.text
    unknown = client.get("/advise", params={"kind": "finetune", "model": "lama-3.1-8b"})
    assert unknown.status_code == 422 and 'id="err-model"' in unknown.text


def test_a_batch_form_shows_only_the_inputs_the_models_kind_uses(client: TestClient) -> None:
    llm = _inputs(client.get("/advise", params={"kind": "batch", "model": "llama-3.1-8b"}).text)
    assert set(LLM_FIELDS) <= llm and not set(IMAGE_FIELDS) & llm
    image = client.get(
        "/advise", params={"kind": "batch", "model": "flux.1-dev", "images_total": "1000"}
    ).text
    flux = _inputs(image)
    assert set(IMAGE_FIELDS) <= flux and not set(LLM_FIELDS) & flux
    form = image.split('id="workload"', 1)[1].split("</form>", 1)[0]
    assert "llama.cpp" not in form
    # the weight format applies to both, each kind with its own choices: FP8 FLUX, not an LLM's int4
    assert "precision" in llm and "precision" in flux
    formats = form.split('<select name="precision"', 1)[1].split("</select>", 1)[0]
    assert '<option value="fp8"' in formats and '<option value="int4"' not in formats
    # no model yet, or one the estimators do not sort: every input, as before
    for params in ({"kind": "batch"}, {"kind": "batch", "model": "whisper-large-v3"}):
        shown = _inputs(client.get("/advise", params=params).text)
        assert set(IMAGE_FIELDS) | set(LLM_FIELDS) <= shown
    # the common constraints stay on both
    assert {"regions", "budget_usd", "deadline_hours"} <= llm & flux


def test_an_error_about_a_field_the_form_leaves_out_is_still_shown(client: TestClient) -> None:
    # a link giving an image size to a language model's batch: the width input is not on the form, so
    # its error goes above the form rather than nowhere
    params = {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": "1e6", "width": "abc"}
    r = client.get("/advise", params=params)
    assert r.status_code == 422 and 'name="width"' not in r.text
    general = r.text.split('<div class="error" role="alert">', 1)[1].split("</div>", 1)[0]
    assert "Width must be a whole number" in general
