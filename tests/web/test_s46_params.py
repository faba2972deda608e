"""The HTML pages read their query strings as the API does: a parameter that takes one value, given twice,
is said on the page (never answered for its last value), a list filter given twice adds to the list; a
page that takes no parameters refuses one; the model page reads its context as every face reads a token
count, up to the estimator's limit.

Regressions: ``/advise?model=a&model=b`` ranked b, ``/?gpus=1&gpus=8`` listed 8-GPU offers, ``/faq`` and
``/models/{name}`` took the last value too, where ``/api/v1/...`` answers 422 naming the parameter;
``/?gpu=H100&gpu=A100`` listed A100 offers only (the CSV export of the same view lists both);
``/gpus?x=1``, ``/models?x=1``, ``/sources?x=1`` answered 200 as if it were not there (``/gpus/{name}``
refused it); ``/models/{name}?context=32k`` was refused and its limit was 1,048,576, not the estimator's
10,000,000.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from gpuscout.estimate.arguments import MAX_CONTEXT

M = "llama-3.1-8b"


def _general_errors(html: str) -> str:
    """The text of the errors above a page's form."""
    found = re.findall(r'<div class="error" role="alert">(.*?)</div>', html, re.S)
    return unescape(re.sub(r"<[^>]+>|\s+", " ", " ".join(found))).strip()


def _field_error(html: str, name: str) -> str:
    block = html.split(f'id="err-{name}"', 1)[1].split("</", 1)[0]
    return unescape(block.split(">", 1)[1]).strip()


# ---- a single-valued parameter given twice -----------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "said"),
    [
        (
            f"/advise?model={M}&model=qwen3-8b",
            f"model: given 2 times ('{M}', 'qwen3-8b') (accepted: one value)",
        ),
        (
            f"/advise?kind=serve&model={M}&concurrency=4&concurrency=64&sent=1",
            "concurrency: given 2 times ('4', '64') (accepted: one value)",
        ),
        ("/?gpus=1&gpus=8", "gpus: given 2 times ('1', '8') (accepted: one value)"),
        ("/?sort=price&sort=age", "sort: given 2 times ('price', 'age') (accepted: one value)"),
        (f"/faq?model={M}&model=qwen3-8b", f"model: given 2 times ('{M}', 'qwen3-8b') (accepted: one value)"),
        (
            f"/models/{M}?context=1000&context=2000",
            "context: given 2 times ('1000', '2000') (accepted: one value)",
        ),
    ],
)
def test_a_repeated_parameter_is_said_on_the_page(client: TestClient, url: str, said: str) -> None:
    r = client.get(url)
    assert r.status_code == 422, url  # was 200, answered for the last value
    assert said in _general_errors(r.text)


def test_the_pages_say_a_repeat_in_the_apis_words(client: TestClient) -> None:
    api = client.get(f"/api/v1/estimate?model={M}&gpu=H100&gpus=1&gpus=2")
    assert api.status_code == 422
    assert api.json()["message"] == "gpus: given 2 times ('1', '2') (accepted: one value)"
    assert api.json()["message"] in _general_errors(client.get("/?gpus=1&gpus=2").text)


def test_a_repeated_parameter_is_not_served_from_the_cache_of_the_single_view(db_url: str) -> None:
    from gpuscout.web import create_app
    from gpuscout.web.services import WebServices

    with TestClient(create_app(db_url, services=WebServices(db_url, cache_seconds=600))) as cached:
        assert cached.get("/?gpus=8").status_code == 200
        assert cached.get("/?gpus=1&gpus=8").status_code == 422
        assert cached.get(f"/faq?model={M}").status_code == 200
        assert cached.get(f"/faq?model={M}&model={M}").status_code == 422


def test_a_renamed_model_keeps_a_repeat_through_its_redirect(client: TestClient) -> None:
    r = client.get("/models/Llama-3.1-8B?context=1000&context=2000", follow_redirects=False)
    assert r.status_code == 307 and "context=1000&context=2000" in r.headers["location"]
    assert client.get("/models/Llama-3.1-8B?context=1000&context=2000").status_code == 422


# ---- a list given twice adds to the list ------------------------------------------------------------
def _offer_rows(html: str) -> set[str]:
    return set(re.findall(r'href="/gpus/([^"]+)"', html.split("<tbody", 1)[1].split("</tbody>", 1)[0]))


def test_a_repeated_list_filter_of_the_offers_page_adds_to_the_list(client: TestClient) -> None:
    both = client.get("/?gpu=H100&gpu=A100-80GB")
    assert both.status_code == 200, _general_errors(both.text)
    joined = client.get("/", params={"gpu": "H100,A100-80GB"})
    assert (
        _offer_rows(both.text) == _offer_rows(joined.text) == {"H100-SXM", "A100-SXM4-80GB"}
    )  # was A100 only
    # as the export of the same view reads it
    csv = client.get("/offers.csv?gpu=H100&gpu=A100-80GB").text
    assert "H100-SXM" in csv and "A100-SXM4-80GB" in csv
    providers = client.get("/?provider=alphacloud&provider=betagpu")
    assert providers.status_code == 200 and "gammacompute" not in providers.text.split("<tbody", 1)[1]


def test_a_repeated_list_field_of_the_advisor_adds_to_the_list(client: TestClient) -> None:
    r = client.get(
        "/advise",
        params=[
            ("kind", "serve"),
            ("model", M),
            ("sent", "1"),
            ("accelerators", "H100"),
            ("accelerators", "L40S"),
        ],
    )
    assert r.status_code == 200, _general_errors(r.text)
    assert "given 2 times" not in r.text
    assert re.search(r"accelerators:\s*\n\s*- H100\s*\n\s*- L40S", unescape(r.text))  # the workload ranked


# ---- pages that take no parameters ------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/gpus", "/models", "/sources", "/docs", "/gpus/H100-SXM"])
def test_a_page_without_parameters_refuses_one(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 200
    r = client.get(f"{path}?gpu=H100")
    assert r.status_code == 422, path  # was 200 on /gpus, /models, /sources, /docs
    assert "gpu: not a parameter of this page, which takes none (accepted: no query parameters)" in unescape(
        re.sub(r"\s+", " ", r.text)
    )


# ---- the model page's context -------------------------------------------------------------------------
def test_the_model_page_reads_a_token_count_up_to_the_estimators_limit(client: TestClient) -> None:
    r = client.get(f"/models/{M}", params={"context": "32k"})
    assert r.status_code == 200  # was 422: "must be a whole number"
    assert "one sequence of 32,000 tokens" in r.text
    r = client.get(f"/models/{M}", params={"context": str(MAX_CONTEXT + 1)})
    assert r.status_code == 422
    assert _field_error(r.text, "context") == (
        "Context (tokens) must be a whole number from 1 to 131,072 (llama-3.1-8b's context); "
        f"you typed “{MAX_CONTEXT + 1}”"
    )  # was "from 1 to 1,048,576", then the estimator's 10,000,000 (past the model's window: stop 62)
    api = client.get(f"/api/v1/models/{M}", params={"context": 2_000_000})
    assert api.status_code == 422 and api.json()["accepted"] != "1..1048576"  # the model's window refuses it


def test_the_faq_reads_its_context_as_a_token_count(client: TestClient) -> None:
    r = client.get("/faq", params={"model": M, "context": "32k"})
    assert r.status_code == 200, _general_errors(r.text)  # was 422: "must be a whole number"
    r = client.get("/faq", params={"model": M, "context": "lots"})
    assert r.status_code == 422
    assert "Context (tokens) must be a whole number of tokens (32768, 32k, 1.5M)" in _field_error(
        r.text, "context"
    )
