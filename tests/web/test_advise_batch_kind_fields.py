"""The advisor's batch form and the fields of the other kind of batch: the inputs the form fills in
before it knows the model (prompt tokens 1024 beside an image total) are not the user's and are not
sent, but a value the user changed, or one a link gives, is an error at its label, as the workload
says (it used to be accepted and ignored)."""

from __future__ import annotations

import html
import re

from fastapi.testclient import TestClient


def _form_values(page: str) -> dict[str, str]:
    """What the workload form would submit as rendered: every input's value and every select's
    selected option (empty ones left out, as the page's script does)."""
    form = page.split('id="workload"', 1)[1].split("</form>", 1)[0]
    values = dict(re.findall(r'<input name="([a-z_]+)"[^>]*value="([^"]*)"', form))
    for name, options in re.findall(r'<select name="([a-z_]+)"[^>]*>(.*?)</select>', form, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', options)
        values[name] = chosen.group(1) if chosen else re.findall(r'<option value="([^"]*)"', options)[0]
    values.update(re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', form))
    return {k: html.unescape(v) for k, v in values.items() if v}


def _general_error(page: str) -> str:
    block = page.split('<div class="error" role="alert">', 1)[1].split("</div>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", "", block)).strip()


def test_the_form_filled_before_the_model_was_known_still_answers(client: TestClient) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "batch"}).text)
    # the form showed both kinds' inputs, with the token shape and image size at their defaults
    assert {"prompt_tokens": "1024", "output_tokens": "256", "width": "1024"}.items() <= blank.items()
    assert blank["sent"] == "1"
    for model, total in (("flux.1-dev", "images_total"), ("llama-3.1-8b", "output_tokens_total")):
        r = client.get("/advise", params={**blank, "model": model, total: "1000"})
        assert r.status_code == 200 and 'id="ranked"' in r.text, _general_error(r.text)


def test_a_changed_input_of_the_other_kind_is_an_error_in_the_forms_words(client: TestClient) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "batch"}).text)
    sent = {**blank, "model": "flux.1-dev", "images_total": "1000", "prompt_tokens": "512"}
    r = client.get("/advise", params=sent)
    assert r.status_code == 422 and 'id="ranked"' not in r.text
    # the input is not on an image model's form: the error is above it, named by its label
    assert 'name="prompt_tokens"' not in r.text
    error = _general_error(r.text)
    assert error.startswith(
        "Prompt tokens: applies to an LLM batch (“Output tokens in all”), not to an image batch "
        "(“Images in all”)"
    )
    assert "prompt_tokens" not in error and "for an image batch: “Width”, “Height”, “Steps”" in error


def test_a_link_giving_an_image_size_to_a_language_models_batch_is_an_error(client: TestClient) -> None:
    params = {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": "1e6", "width": "1024"}
    r = client.get("/advise", params=params)
    assert r.status_code == 422 and 'id="ranked"' not in r.text
    error = _general_error(r.text)
    assert error.startswith("Width: applies to an image batch (“Images in all”)")
    assert "“Input tokens in all”, “Prompt tokens”, “Output tokens”" in error
