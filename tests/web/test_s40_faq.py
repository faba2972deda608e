"""The web FAQ takes the inputs ``gpuscout faq`` takes (model, context, users, GPU, precision), answers
at them, and refuses a bad one with a 422 and its error at the field."""

from __future__ import annotations

import inspect
import re

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.backends import default_backends
from gpuscout.advise.faq import faq
from gpuscout.cli.advise_cmds import faq_cmd
from gpuscout.web.pages import FAQ_LABELS


def summary(html: str) -> str:
    m = re.search(r'<p class="note">(\d[^<]*)</p>', html)
    assert m, "no summary"
    return m.group(1).replace("&#39;", "'")


def test_the_page_has_an_input_for_every_option_of_the_cli(client: TestClient) -> None:
    cli = {n for n in inspect.signature(faq_cmd).parameters if n not in ("json_out", "db")}
    assert set(FAQ_LABELS) == cli
    html = client.get("/faq?model=llama-3.1-8b").text
    form = html[html.index('<form class="filters"') : html.index("</form>")]
    assert set(re.findall(r'<input name="([a-z_]+)"', form)) == cli


def test_the_answers_are_at_the_context_users_gpu_and_precision_given(client: TestClient) -> None:
    r = client.get("/faq?model=llama-3.1-70b&context=32768&users=16&gpu=RTX 4090&precision=fp8")
    assert r.status_code == 200
    text = summary(r.text)  # was "for 8 users x 4,096 tokens at bf16"
    # (stop 62: with the prompt/answer split the TTFTs are at, between the load and the precision)
    assert "for 16 users x 32,768 tokens, each a 28,672-token prompt and a 4,096-token answer, at fp8" in text
    answers = faq(
        "llama-3.1-70b",
        client.app.state.services.all_current_offers(),  # type: ignore[attr-defined]
        context=32768,
        users=16,
        gpu="RTX 4090",
        precision="fp8",
        backends=default_backends(),
    )
    assert text == answers.summary  # the CLI's answer (gpuscout faq ... --json)
    for a in answers.answers:
        assert f'<dt id="{a.key}">' in r.text
    for name, value in (("context", "32768"), ("users", "16"), ("gpu", "RTX 4090"), ("precision", "fp8")):
        assert re.search(rf'<input name="{name}"[^>]*value="{value}"', r.text), name  # kept as typed


@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ("context=nan&users=-1&gpu=H1000", {"context", "gpu"}),  # every bad input it can tell at once
        ("context=10", {"context"}),
        ("users=0", {"users"}),
        ("users=2.5", {"users"}),
        ("gpu=RTX 6000", {"gpu"}),  # ambiguous: its matches listed
        ("precision=fp9", {"precision"}),
        ("model=llama-3.1-70bx&precision=bogus", {"model", "precision"}),
    ],
)
def test_a_bad_input_is_a_422_at_its_field(client: TestClient, query: str, fields: set[str]) -> None:
    r = client.get(f"/faq?model=llama-3.1-70b&{query}".replace("model=llama-3.1-70b&model=", "model="))
    assert r.status_code == 422
    assert set(re.findall(r'<span class="field-error" id="err-([a-z]+)"', r.text)) == fields
    for name in fields:
        assert re.search(rf'<input name="{name}"[^>]*aria-invalid="true"', r.text), name
    assert '<dl class="faq"' not in r.text


def test_suggestions_are_links_that_keep_the_other_inputs(client: TestClient) -> None:
    r = client.get("/faq?model=llama-3.1-70b&users=4&gpu=H1000")
    assert '<a href="/faq?model=llama-3.1-70b&amp;users=4&amp;gpu=H100-SXM">H100-SXM</a>' in r.text
    r = client.get("/faq?model=llama-3.1-70b&precision=fp9")
    assert '<a href="/faq?model=llama-3.1-70b&amp;precision=fp8">fp8</a>' in r.text
