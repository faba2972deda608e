"""The stop-62 reviewer's form defects: errors said in one round, hints per kind, digit groups, the
model page's context limit, the offers page's /offers and past-the-end pager."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from tests.web.test_s46_params import _field_error

M = "llama-3.1-8b"
#: Where a page echoes its inputs as typed: the inputs' values and the links that carry them.
ECHO = r'(value|href)="[^"]*"'


def _errors(html: str) -> dict[str, str]:
    """Every field error of a page, by field."""
    return {m: _field_error(html, m) for m in re.findall(r'id="err-([a-z_]+)"', html)}


# ---- 1. one submit says every error -------------------------------------------------------------------
def test_an_unknown_model_is_said_beside_the_range_errors(client: TestClient) -> None:
    r = client.get("/advise", params={"kind": "serve", "model": "lama3-8b", "concurrency": "-5", "sent": "1"})
    assert r.status_code == 422
    errors = _errors(r.text)
    assert "Concurrency must be" in errors["concurrency"]
    assert "“lama3-8b” is not a name gpuscout knows; did you mean one of these?" in errors["model"]
    alone = client.get("/advise", params={"kind": "serve", "model": "lama3-8b", "sent": "1"})
    assert _errors(alone.text)["model"].split("<")[0] == errors["model"].split("<")[0]  # the same words
    # the suggestions are links to the form with the name replaced, the other inputs kept
    links = re.findall(r'href="(/advise\?[^"]*)"', r.text.split('id="err-model"', 1)[1].split("</ul>", 1)[0])
    assert links and all("concurrency=-5" in unescape(u) for u in links)


@pytest.mark.parametrize(
    ("kind", "field", "value", "other"),
    [
        ("serve", "prompt_tokens", "200000", {"concurrency": "-5"}),
        ("finetune", "seq_len", "1000000", {"dataset_tokens": "1M", "budget_usd": "-1"}),
    ],
)
def test_a_context_past_the_models_is_said_beside_the_range_errors(
    client: TestClient, kind: str, field: str, value: str, other: dict[str, str]
) -> None:
    base = {"kind": kind, "model": M, field: value, "sent": "1"}
    if kind == "finetune":
        base["dataset_tokens"] = "1M"
    alone = client.get("/advise", params=base)
    assert alone.status_code == 422
    said = _errors(alone.text)[field]
    assert "exceed llama-3.1-8b's context of 131,072 tokens" in said
    both = client.get("/advise", params={**base, **other})
    assert both.status_code == 422
    errors = _errors(both.text)
    assert errors[field] == said
    assert set(other) - {"dataset_tokens"} <= set(errors)


def test_a_context_within_the_models_is_no_error(client: TestClient) -> None:
    r = client.get(
        "/advise",
        params={"kind": "serve", "model": M, "prompt_tokens": "100000", "concurrency": "-5", "sent": "1"},
    )
    assert set(_errors(r.text)) == {"concurrency"}


# ---- 2. budget and egress hints by kind ---------------------------------------------------------------
def _hint(html: str, name: str) -> str:
    block = html.split(f'name="{name}"', 1)[0].rsplit("<label", 1)[1] + html.split(f'name="{name}"', 1)[1]
    return unescape(block.split("</div>", 1)[0])


@pytest.mark.parametrize(
    ("kind", "said", "not_said"),
    [
        ("serve", "per month", "per run"),
        ("finetune", "per run", "per month"),
        ("pretrain", "per run", "per month"),
        ("batch", "per run", "per month"),
    ],
)
def test_budget_and_egress_hints_say_each_kinds_period(
    client: TestClient, kind: str, said: str, not_said: str
) -> None:
    html = client.get("/advise", params={"kind": kind}).text
    for name in ("budget_usd", "egress_gb"):
        hint = _hint(html, name)
        assert said in hint and not_said not in hint and "serve:" not in hint, (name, hint)


# ---- 3. digit groups ----------------------------------------------------------------------------------
@pytest.mark.parametrize("typed", ["1,000", "1 000", "1\u2009000", "1\u202f000", "1\u00a0000", "1_000"])
def test_a_number_with_digit_groups_is_read(client: TestClient, typed: str) -> None:
    plain = client.get("/advise", params={"kind": "serve", "model": M, "concurrency": "1000", "sent": "1"})
    grouped = client.get("/advise", params={"kind": "serve", "model": M, "concurrency": typed, "sent": "1"})
    assert plain.status_code == 200
    assert grouped.status_code == 200, _errors(grouped.text)
    assert 'id="err-concurrency"' not in grouped.text
    yaml = [
        h.split('<details class="yaml">', 1)[1].split("</details>", 1)[0] for h in (plain.text, grouped.text)
    ]
    assert "concurrency: 1000" in yaml[0] and yaml[1] == yaml[0]  # the workload ranked is the same


def test_a_grouped_float_and_a_token_count_with_spaces_are_read(client: TestClient) -> None:
    r = client.get(
        "/advise",
        params={
            "kind": "serve",
            "model": M,
            "concurrency": "8",
            "budget_usd": "12,500.50",
            "prompt_tokens": "2 048",
            "sent": "1",
        },
    )
    assert r.status_code == 200, _errors(r.text)


@pytest.mark.parametrize(
    ("field", "typed"), [("budget_usd", "1,5"), ("concurrency", "1,5"), ("concurrency", "10,00")]
)
def test_a_decimal_comma_is_an_error_that_says_use_a_dot(client: TestClient, field: str, typed: str) -> None:
    r = client.get("/advise", params={"kind": "serve", "model": M, field: typed, "sent": "1"})
    assert r.status_code == 422
    said = _errors(r.text)[field]
    assert f"you typed “{typed}”" in said and "a dot" in said, said


def test_the_offers_filters_read_digit_groups(client: TestClient) -> None:
    r = client.get("/", params={"max_price": "1,000", "min_vram": "0"})
    assert r.status_code == 200 and 'id="err-max_price"' not in r.text


# ---- 4. the model page's context limit ----------------------------------------------------------------
def test_a_context_past_every_limit_gives_the_models_own(client: TestClient) -> None:
    r = client.get("/models/llama-3.1-70b", params={"context": "999999999"})
    assert r.status_code == 422
    said = _field_error(r.text, "context")
    assert "1 to 131,072 (llama-3.1-70b's context)" in said and "10,000,000" not in said, said


# ---- 6. /offers and the pager -------------------------------------------------------------------------
def test_offers_redirects_to_the_offers_page_with_its_query(client: TestClient) -> None:
    r = client.get("/offers?gpu=H100&min_vram=0", follow_redirects=False)
    assert r.status_code in (301, 307, 308) and r.headers["location"] == "/?gpu=H100&min_vram=0"
    assert client.get("/offers", follow_redirects=False).headers["location"] == "/"


def test_a_page_past_the_end_is_not_page_2_of_1(client: TestClient) -> None:
    r = client.get("/", params={"min_vram": "0", "page": "50"})
    pages = re.findall(r"page (\d+) of (\d+)", r.text)
    assert all(int(a) <= int(b) for a, b in pages), pages
    assert "no page 50" in r.text


# ---- 5. a select's chosen value reads whole -----------------------------------------------------------
def test_the_default_precision_and_engine_read_whole_and_are_explained_in_the_hint(
    client: TestClient,
) -> None:
    html = client.get("/advise", params={"kind": "serve"}).text
    for name, short, explained in (
        ("precision", "native", "the checkpoint's own"),
        ("engine", "auto", "llama.cpp for GGUF, else vLLM"),
    ):
        select = html.split(f'name="{name}"', 1)[1].split("</select>", 1)[0]
        first = unescape(select.split("<option", 2)[1].split(">", 1)[1].split("<", 1)[0]).strip()
        assert first == short, first
        assert explained in _hint(html, name)


@pytest.mark.parametrize(
    ("field", "typed"), [("users", "1,000"), ("users", "1 000"), ("context", "32\u202f000")]
)
def test_the_faq_reads_digit_groups(client: TestClient, field: str, typed: str) -> None:
    plain = {"users": "1000", "context": "32000"}[field]
    r = client.get("/faq", params={"model": M, field: typed})
    assert r.status_code == 200 and f'id="err-{field}"' not in r.text, _errors(r.text)
    answers = client.get("/faq", params={"model": M, field: plain}).text
    # the same answers: the page differs only where it echoes the input as typed
    assert re.sub(ECHO, "", r.text) == re.sub(ECHO, "", answers)


@pytest.mark.parametrize(
    "params", [{"kind": "finetune"}, {"kind": "pretrain"}, {"kind": "batch", "model": "flux.1-dev"}]
)
def test_a_precision_with_no_native_choice_has_no_native_hint(
    client: TestClient, params: dict[str, str]
) -> None:
    html = client.get("/advise", params=params).text
    select = html.split('name="precision"', 1)[1].split("</select>", 1)[0]
    assert ">native<" not in select and "native" not in _hint(html, "precision")
