"""Pages and API errors found by a renter review: a model page for every model in the registry (the
default context is the model's window where that is shorter), a page that says so when a query
parameter is not one it reads (never an answer to another question), and an API error that always
says what is accepted."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from gpuscout.estimate.api import MAX_CONCURRENCY
from gpuscout.user_models import registry
from gpuscout.web import api, model_view
from gpuscout.web.query_params import query_spec
from gpuscout.web.schemas import RecommendIn


def _general_errors(html: str) -> str:
    """The text of the errors above a page's form."""
    found = re.findall(r'<div class="error" role="alert">(.*?)</div>', html, re.S)
    return unescape(re.sub(r"<[^>]+>|\s+", " ", " ".join(found)))


# --- 1. every model's page and API answer, at the model's window where it is under the default ---


def _models() -> list[str]:
    return [m.name for m in registry().all()]


def test_the_registry_has_models_whose_window_is_under_the_default() -> None:
    short = {m.name for m in registry().all() if m.kind == "llm" and m.max_position_embeddings < 4096}
    assert {"falcon-40b", "phi-1.5", "mpt-7b", "gpt-3-175b", "qwen-14b"} <= short


def test_every_model_page_answers(client: TestClient) -> None:
    failed = {}
    for name in _models():
        r = client.get(f"/models/{name}")
        if r.status_code != 200:
            failed[name] = (r.status_code, _general_errors(r.text)[:200])
    assert not failed  # was 422 for falcon-40b, mpt-*, gpt-3-*, phi-1.5, qwen-14b


def test_every_model_answers_on_the_api(client: TestClient) -> None:
    failed = {}
    for spec in registry().all():
        r = client.get(f"/api/v1/models/{spec.name}")
        if r.status_code != 200:
            failed[spec.name] = r.json().get("message", "")[:120]
        elif spec.kind == "llm":
            assert r.json()["context"] == min(4096, spec.max_position_embeddings), spec.name
    assert not failed  # was 422: "context: 4,096 tokens exceed phi-1.5's context window of 2,048 tokens"


def test_the_page_says_which_context_it_used(client: TestClient) -> None:
    r = client.get("/models/falcon-40b")
    assert r.status_code == 200
    note = re.search(r'id="context-note">(.*?)<', r.text)
    assert note is not None and "2,048 tokens, falcon-40b's whole context window" in unescape(note.group(1))
    assert "one sequence of 2,048 tokens" in r.text
    assert re.search(r'name="context"[^>]*value="2048"', r.text)
    # a model whose window holds the default says nothing of it
    r = client.get("/models/llama-3.1-8b")
    assert r.status_code == 200 and 'id="context-note"' not in r.text
    assert "one sequence of 4,096 tokens" in r.text
    # a context given is used as given: not noted, and one past the window is still refused
    r = client.get("/models/falcon-40b?context=1024")
    assert r.status_code == 200 and 'id="context-note"' not in r.text
    for context in (4096, 8192):
        assert client.get(f"/models/falcon-40b?context={context}").status_code == 422
        r = client.get(f"/api/v1/models/phi-1.5?context={context}")
        assert r.status_code == 422 and r.json()["field"] == "context"
        assert "context window of 2,048 tokens" in r.json()["message"]


def test_the_default_context_is_clamped_to_the_window() -> None:
    spec = registry().resolve("phi-1.5")
    assert model_view.default_context(spec) == 2048
    assert model_view.default_context(registry().resolve("llama-3.1-8b")) == model_view.DEFAULT_CONTEXT
    sized = model_view.memory_by_precision(spec)  # was InvalidInputError naming context
    assert [p for p, _ in sized] == list(model_view.precisions_for(spec))
    assert model_view.fits(spec, "bf16")


# --- 2. a query parameter a page does not read is said, not ignored ---


def test_the_advisor_names_an_unknown_parameter_and_the_closest_field(client: TestClient) -> None:
    r = client.get("/advise?model=llama-3.1-8b&kind=serve&concurrency=32&prompt=2000&output=500")
    assert r.status_code == 422  # was 200, ranked at the default 1,024 prompt + 256 output tokens
    said = _general_errors(r.text)
    assert "prompt: not a field of a serve workload; did you mean prompt_tokens (“Prompt tokens”)?" in said
    assert "output: not a field of a serve workload; did you mean output_tokens (“Output tokens”)?" in said
    assert 'id="ranked"' not in r.text  # nothing ranked without the inputs asked for
    r = client.get(
        "/advise?model=llama-3.1-8b&kind=serve&concurrency=32&prompt_tokens=2000&output_tokens=500"
    )
    assert r.status_code == 200 and 'id="ranked"' in r.text


def test_the_advisor_says_which_kind_a_field_belongs_to(client: TestClient) -> None:
    r = client.get("/advise?kind=serve&model=llama-3.1-8b&concurrency=4&images_total=5&min_headroom=0.1")
    assert r.status_code == 422
    said = _general_errors(r.text)
    assert "images_total: not a field of a serve workload (it is one of a batch workload)" in said
    assert "min_headroom: not a field of a serve workload (it is one of a finetune or pretrain" in said
    # a bad kind and a stray parameter: both said
    r = client.get("/advise?kind=srve&model=llama-3.1-8b&contxt=4")
    assert r.status_code == 422 and "contxt: not a field of a serve workload" in _general_errors(r.text)


def test_the_advisor_forms_own_links_send_only_its_fields(client: TestClient) -> None:
    # the kind tabs, a submitted form (with its hidden inputs) and the show/explain inputs are all read
    r = client.get(
        "/advise?kind=serve&sent=1&model=llama-3.1-8b&concurrency=4&objective=cost&top=5&explain=1"
        "&include_stale=false&spot_reclaims_per_hour="
    )
    assert r.status_code == 200, _general_errors(r.text)
    for kind in ("batch", "finetune", "pretrain"):
        assert client.get(f"/advise?kind={kind}&model=llama-3.1-8b").status_code == 200


def test_the_offers_page_names_an_unknown_filter(client: TestClient) -> None:
    r = client.get("/?limit=3")
    assert r.status_code == 422  # was 200 with every row
    said = _general_errors(r.text)
    assert "limit: not a filter of this page; did you mean per_page (“Rows per page”)?" in said
    assert client.get("/?per_page=3").status_code == 200


def test_the_exports_refuse_an_unknown_parameter_as_the_api_does(client: TestClient) -> None:
    r = client.get("/offers.json?limit=3")
    assert r.status_code == 422  # was every row
    body = r.json()
    assert body["field"] == "limit" and "per_page" in body["accepted"] and "scope" in body["accepted"]
    assert client.get("/offers.csv?limit=3").status_code == 422
    # a repeated list filter adds to the list, as on /api/v1/offers
    rows = client.get("/offers.json?gpu=RTX4090&gpu=A100-SXM4-80GB&scope=all").json()
    assert {row["accelerator"] for row in rows} == {"RTX4090", "A100-SXM4-80GB"}


def test_the_model_and_faq_pages_name_an_unknown_parameter(client: TestClient) -> None:
    r = client.get("/models/llama-3.1-8b?ctx=1024")
    assert r.status_code == 422
    said = _general_errors(r.text)
    assert "ctx: not a field of this page; did you mean context (“Context (tokens)”)?" in said
    assert client.get("/models/llama-3.1-8b?context=1024&precision=fp8").status_code == 200
    assert client.get("/faq?model=llama-3.1-8b").status_code == 200  # the default view, kept
    r = client.get("/faq?model=llama-3.1-8b&user=3")
    assert r.status_code == 422  # not the kept default view
    assert "user: not a field of this page; did you mean users (“Users”)?" in _general_errors(r.text)


def test_the_gpu_page_takes_no_parameter(client: TestClient) -> None:
    r = client.get("/gpus/H100-SXM?gpus=8")
    assert r.status_code == 422
    assert "gpus: not a parameter of this page, which takes none" in unescape(r.text)
    assert client.get("/gpus/H100-SXM").status_code == 200


# --- 3. every API error says what is accepted ---

_BAD = ("-1", "0", "abc", "1e12", "nan", "")
_BASE = {
    "/api/v1/estimate": {"model": "llama-3.1-8b", "gpu": "H100"},
    "/api/v1/history": {"gpu": "H100-SXM"},
}


def _null_accepted(r: Any, what: object) -> list[object]:
    if r.status_code < 400 or r.status_code in (401, 403):
        return []
    body = r.json()
    return [(what, r.status_code, body.get("message"))] if not body.get("accepted") else []


def test_concurrency_zero_says_the_estimators_range(client: TestClient) -> None:
    r = client.get("/api/v1/estimate?model=llama-3.1-8b&gpu=H100&concurrency=0")
    assert r.status_code == 422
    assert r.json()["accepted"] == f"1..{MAX_CONCURRENCY}"  # was null; the CLI says 1..1000000
    assert r.json()["errors"][0]["accepted"] == f"1..{MAX_CONCURRENCY}"


def test_no_api_error_leaves_accepted_null(client: TestClient) -> None:
    """Every route of the API x every query parameter it declares x an out-of-range or wrong-type value,
    an unknown parameter, and the numeric fields of the advisor's body."""
    nulls: list[object] = []
    routes = [r for r in api.router.routes if isinstance(r, APIRoute)]
    assert {r.path for r in routes} >= {"/api/v1/estimate", "/api/v1/offers", "/api/v1/models/{name:path}"}
    for route in routes:
        name = "llama-3.1-8b" if "/models/" in route.path else "H100-SXM"
        path = re.sub(r"\{name(?::path)?\}", name, route.path)  # a name may hold a slash (an HF id)
        method = sorted(route.methods)[0]
        nulls += _null_accepted(client.request(method, path, params={"zzz": "1"}), (path, "zzz"))
        for name in query_spec(route.dependant).names:
            for bad in _BAD:
                params = {**_BASE.get(route.path, {}), name: bad}
                nulls += _null_accepted(client.request(method, path, params=params), (path, name, bad))
        for required in _BASE.get(route.path, {}):
            params = {k: v for k, v in _BASE[route.path].items() if k != required}
            nulls += _null_accepted(client.get(path, params=params), (path, "missing", required))
    workload = {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 2}
    numeric = [n for n, f in RecommendIn.model_fields.items() if n != "workload"]
    serve = ["concurrency", "prompt_tokens", "output_tokens", "ttft_ms_max", "budget_usd", "hours_per_day"]
    for path in ("/api/v1/recommend", "/api/v1/advise"):
        for bad_value in (-1, 0, "abc", 1e12, None):
            for name in (*numeric, "zzz"):
                r = client.post(path, json={"workload": workload, name: bad_value})
                nulls += _null_accepted(r, (path, name, bad_value))
            for name in (*serve, "zzz"):
                r = client.post(path, json={"workload": {**workload, name: bad_value}})
                nulls += _null_accepted(r, (path, "workload", name, bad_value))
        nulls += _null_accepted(client.post(path, json={}), (path, "no workload"))
    assert not nulls


@pytest.mark.parametrize(
    ("query", "field", "accepted"),
    [
        ("/api/v1/offers?page=0", "page", "1..10000"),
        ("/api/v1/offers?order=up", "order", "asc, desc"),
        ("/api/v1/offers?max_price=0", "max_price", "> 0, <= 1000000"),
        ("/api/v1/history?gpu=H100-SXM&limit=abc", "limit", "1..5000"),
        ("/api/v1/estimate?model=llama-3.1-8b&gpu=H100&concurrency=2&batch=4", "concurrency", None),
        ("/api/v1/estimate?gpu=H100", "model", "required: text of 1 to 200 characters"),
        ("/api/v1/gpus?x=1", "x", "no query parameters"),
    ],
)
def test_what_an_error_accepts(client: TestClient, query: str, field: str, accepted: str | None) -> None:
    r = client.get(query)
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == field
    if accepted is None:  # an error across fields: one of them
        assert body["accepted"] == "one of batch, concurrency, request_rate"
    else:
        assert body["accepted"] == accepted


def test_an_unknown_name_says_where_the_names_are_listed(client: TestClient) -> None:
    body = client.get("/api/v1/estimate?model=llama-3.1-8b&gpu=H1000").json()
    assert body["field"] == "gpu" and body["accepted"].startswith("a GPU name or alias, as GET /api/v1/gpus")
    assert body["suggestions"] and body["suggestions"][0] in body["accepted"]
