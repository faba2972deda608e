"""A model's page and a context past the model's window (stop 61 browser review): ``/models/llama-3.1-8b``
with Context 200000 was a separate 422 page, "Cannot do that", in the estimator's CLI words
("(max_position_embeddings) ... rope_scaling ... (CLI: --config)"), and the form was gone; the FAQ said
it at the field. Now the model page says it at the field too, in the FAQ's words, with the form kept.
The two pages' longest context was not the same either (the model page 10,000,000, the estimator's; the
FAQ 2,000,000): both take the estimator's ``MAX_CONTEXT`` now."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.faq import MIN_CONTEXT, faq
from gpuscout.errors import InvalidInputError
from gpuscout.estimate.arguments import MAX_CONTEXT
from tests.web.test_s46_params import _field_error

PAST = "Context (tokens): 200,000 tokens exceed llama-3.1-8b's context of 131,072"


def test_a_context_past_the_window_is_said_at_the_model_pages_field(client: TestClient) -> None:
    r = client.get("/models/llama-3.1-8b", params={"context": "200000"})
    assert r.status_code == 422
    assert 'name="context"' in r.text and 'value="200000"' in r.text  # the form, with what was typed
    assert _field_error(r.text, "context") == PAST
    for jargon in ("Cannot do that", "max_position_embeddings", "rope_scaling", "CLI", "--config"):
        assert jargon not in r.text.split("<main", 1)[1], jargon
    assert "Memory by precision" in r.text  # the page still answers, at the model's default context


def test_the_faq_says_it_in_the_same_words(client: TestClient) -> None:
    r = client.get("/faq", params={"model": "llama-3.1-8b", "context": "200000"})
    assert r.status_code == 422 and _field_error(r.text, "context") == PAST


def test_the_window_itself_is_taken(client: TestClient) -> None:
    r = client.get("/models/llama-3.1-8b", params={"context": "131072"})
    assert r.status_code == 200 and 'id="err-context"' not in r.text


def test_both_pages_take_the_estimators_longest_context(client: TestClient) -> None:
    past = str(MAX_CONTEXT + 1)
    page = client.get("/models/llama-3.1-8b", params={"context": past})
    # the model page names the model's own limit, which is shorter (stop 62 review)
    assert "from 1 to 131,072 (llama-3.1-8b's context)" in _field_error(page.text, "context")
    asked = client.get("/faq", params={"model": "llama-3.1-8b", "context": past})
    assert f"{MIN_CONTEXT}..{MAX_CONTEXT:,} tokens" in _field_error(asked.text, "context")


@pytest.mark.parametrize("context", [3_000_000, MAX_CONTEXT])
def test_the_faq_range_is_not_its_own_below_the_estimators_limit(context: int) -> None:
    """3,000,000 tokens was "must be 64..2,000,000"; now only the model's window refuses it."""
    with pytest.raises(InvalidInputError) as caught:
        faq("llama-3.1-8b", [], context=context)
    assert caught.value.message == f"{context:,} tokens exceed llama-3.1-8b's context of 131,072"
