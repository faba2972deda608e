"""A web/API review's defects, answered: a Hugging Face id (a name with a slash) is looked up through the
API; a body that is not JSON names ``body``, not a character offset; a value of the wrong JSON type is
said in words (a list of region names, a model name), never pydantic's type names; the token counts of
``/api/v1/estimate`` have an honest schema; a kind tab never opens on an error; names are capped and an
error quotes a few dozen characters of them; a model of another kind is pointed to the API's routes, not
the CLI's commands; a blank filter of ``/api/v1/offers`` is an error naming it; the units of a serving
row's speed, of a model's context and of a launch flag's value are said."""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.workload import MAX_NAME_CHARS, ServeWorkload, Workload, _accepted
from gpuscout.errors import QUOTED_NAME_CHARS, InvalidInputError, UnknownNameError
from gpuscout.estimate.arguments import MAX_CONTEXT, token_count
from gpuscout.estimate.launch_flags import read_flags

RECOMMEND = "/api/v1/recommend"
ADVISE = "/api/v1/advise"


def _serve(**fields: Any) -> dict[str, Any]:
    return {"workload": {"kind": "serve", "model": "llama-3.1-8b", **fields}}


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


# ---- 1. a Hugging Face id through the API ---------------------------------------------------------------
@pytest.mark.parametrize("path", ["meta-llama%2FLlama-3.1-8B", "meta-llama/Llama-3.1-8B"])
def test_a_hugging_face_id_is_looked_up_through_the_models_api(client: TestClient, path: str) -> None:
    r = client.get(f"/api/v1/models/{path}")
    assert r.status_code == 200, r.text  # was 404 {"message": "Not Found"}: the slash ended the route
    assert r.json()["name"] == "llama-3.1-8b" and r.json()["hf_id"] == "meta-llama/Llama-3.1-8B"


def test_an_unknown_name_with_a_slash_is_the_apis_own_404(client: TestClient) -> None:
    body = client.get("/api/v1/models/nobody%2Fno-such-model").json()
    assert body["error"] == "not_found" and body["field"] == "model"  # not the router's bare "Not Found"


def test_a_gpu_name_with_a_slash_is_looked_up_by_the_api_and_the_page(client: TestClient) -> None:
    r = client.get("/api/v1/gpus/nvidia%2Fh100-sxm")
    assert r.status_code == 200, r.text
    assert r.json()["name"] == "H100-SXM"
    page = client.get("/gpus/nvidia%2Fh100-sxm", follow_redirects=False)
    assert page.status_code == 307 and page.headers["location"] == "/gpus/H100-SXM"


def test_the_schema_keeps_the_name_parameters(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/v1/models/{name}", "/api/v1/gpus/{name}"):
        params = paths[path]["get"]["parameters"]
        assert any(p["name"] == "name" and p["in"] == "path" for p in params), path


# ---- 2. a body that is not JSON -------------------------------------------------------------------------
def test_a_body_that_is_not_json_names_the_body_and_where(client: TestClient) -> None:
    text = '{"workload": {"kind": "serve",\n "model": "llama-3.1-8b"}'  # the closing brace missing
    r = client.post(RECOMMEND, content=text, headers={"content-type": "application/json"})
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "body"  # was "55", the offset where the parser stopped
    assert body["message"].startswith("body: is not valid JSON")
    assert "line 2, column" in body["message"] and f"character {len(text)}" in body["message"]
    assert "Expecting" in body["message"]  # the parser's reason
    assert all(e["field"] == "body" for e in body["errors"])


# ---- 3. a value of the wrong JSON type ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"regions": "us"}, "regions", "a list of region names (strings)"),
        ({"providers": "aws"}, "providers", "a list of provider names (strings)"),
        ({"model": 123}, "model", "a model name (a non-empty string"),
        ({"spot_allowed": "maybe"}, "spot_allowed", "true or false"),
        ({"engine": ["vllm"]}, "engine", "an engine name (a string)"),
    ],
)
def test_a_wrong_type_is_said_in_words(
    client: TestClient, fields: dict[str, Any], field: str, words: str
) -> None:
    body = client.post(RECOMMEND, json=_serve(**fields)).json()
    assert body["field"] == field
    assert body["accepted"].startswith(words), body
    for jargon in ("tuple", "str ", "Input should be", "valid string", "bool"):
        assert jargon not in body["message"], body["message"]


def test_an_item_of_a_list_says_what_the_list_takes(client: TestClient) -> None:
    body = client.post(RECOMMEND, json=_serve(regions=["us", 3])).json()
    assert body["field"] == "regions.1"
    assert "3 is a number, not a string" in body["message"]
    assert body["accepted"] == "a list of region names (strings)"


class _Shapes(ServeWorkload):
    """Fields of types no workload has yet: the words come from the types, not from a table of fields."""

    labels: tuple[str, ...] = ()
    weights: list[float] | None = None
    shard_names: list[str] | None = None
    note: str | None = None
    host_name: str = "localhost"
    verbose: bool = False


@pytest.mark.parametrize(
    ("field", "words"),
    [
        ("labels", "a list of label names (strings)"),
        ("weights", "a list of numbers"),
        ("shard_names", "a list of shard names (strings)"),
        ("host_name", "a host name (a string)"),
        ("note", "a note name (a string)"),
        ("verbose", "true or false"),
    ],
)
def test_the_words_come_from_the_type(field: str, words: str) -> None:
    assert _accepted(_Shapes, field) == words


def test_a_workload_file_gets_the_same_words() -> None:
    with pytest.raises(InvalidInputError) as err:
        Workload.from_dict({"kind": "serve", "model": "llama-3.1-8b", "accelerators": 5})
    assert err.value.field == "accelerators"
    assert str(err.value) == (
        "accelerators: 5 is a number, not a list (accepted: a list of accelerator names (strings))"
    )


# ---- 4. the schema of a token count ---------------------------------------------------------------------
def _param(client: TestClient, name: str) -> dict[str, Any]:
    params = client.get("/openapi.json").json()["paths"]["/api/v1/estimate"]["get"]["parameters"]
    return next(p for p in params if p["name"] == name)


@pytest.mark.parametrize("name", ["context_in", "context_out"])
def test_a_token_count_schema_is_json_schema_and_takes_text(client: TestClient, name: str) -> None:
    param = _param(client, name)
    schema = param["schema"]
    assert "ge" not in schema and "le" not in schema  # not JSON Schema keywords: clients saw no bounds
    branches = {b["type"]: b for b in schema["anyOf"]}
    assert branches["integer"]["minimum"] == 0 and branches["integer"]["maximum"] == MAX_CONTEXT
    assert "pattern" in branches["string"]
    description = param["description"]
    assert "32k" in description and "1e6" in description


_SAMPLES = [
    "32k",
    " 32k ",  # the parser strips the spaces: the schema takes them too
    "\t32k\n",  # any white space, as str.strip()
    "1.5M",
    "1e6",
    "32768",
    "1,000",
    "10_000",
    "2B",
    "128K",
    "0",
    "abc",
    "1e6k",
    "k",
    "1.2.3",
    "1,00",
    "-5",
    "1e30",
    "2.5k",
    "1.5e3",
]


@pytest.mark.parametrize("text", _SAMPLES)
def test_the_schemas_pattern_reads_what_the_parser_reads(client: TestClient, text: str) -> None:
    pattern = next(b for b in _param(client, "context_in")["schema"]["anyOf"] if b["type"] == "string")[
        "pattern"
    ]
    try:
        read = token_count(text, "context_in") >= 0  # a negative count is out of the schema's range
    except InvalidInputError:
        read = False
    assert (re.search(pattern, text) is not None) == read


def test_a_token_count_as_text_is_read(client: TestClient) -> None:
    r = client.get(
        "/api/v1/estimate", params={"model": "llama-3.1-8b", "gpu": "H100-SXM", "context_in": "1e3"}
    )
    assert r.status_code == 200, r.text
    assert r.json()["context_in"] == 1000


# ---- 5. the advisor's kind tabs -------------------------------------------------------------------------
def _tabs(html: str) -> dict[str, dict[str, list[str]]]:
    nav = re.search(r'<nav class="kinds".*?</nav>', html, re.S)
    assert nav is not None
    hrefs = re.findall(r'href="([^"]+)"', nav.group(0))
    out: dict[str, dict[str, list[str]]] = {}
    for href in hrefs:
        query = parse_qs(urlsplit(unescape(href)).query)
        out[query["kind"][0]] = query
    return out


def test_a_kind_tab_never_carries_a_model_that_kind_cannot_rank(client: TestClient) -> None:
    tabs = _tabs(client.get("/advise?kind=batch&model=sdxl&images_total=100000").text)
    assert tabs["batch"]["model"] == ["sdxl"]
    for kind in ("serve", "finetune", "pretrain"):
        assert "model" not in tabs[kind], (kind, tabs[kind])  # was model=sdxl: a 422 under that tab
    for kind, query in tabs.items():
        page = client.get("/advise", params={k: v[0] for k, v in query.items()})
        assert page.status_code == 200, (kind, _text(page.text)[:300])


def test_a_language_models_tabs_keep_it(client: TestClient) -> None:
    tabs = _tabs(client.get("/advise?kind=serve&model=llama-3.1-8b").text)
    assert all(query["model"] == ["llama-3.1-8b"] for query in tabs.values())


def test_a_speech_models_tabs_open_empty_forms(client: TestClient) -> None:
    tabs = _tabs(client.get("/advise?kind=serve&model=whisper-large-v3").text)
    assert all("model" not in query for query in tabs.values())


# ---- 6. names are capped; an error quotes a few dozen characters ---------------------------------------
def test_a_workloads_model_name_is_capped_as_the_estimate_endpoints(client: TestClient) -> None:
    r = client.post(RECOMMEND, json=_serve(model="x" * 100_000))
    assert r.status_code == 422
    assert len(r.content) < 1000, len(r.content)  # was 100 KB: the name echoed whole
    body = r.json()
    assert body["field"] == "model" and "100,000 characters" in body["message"]
    assert f"at most {MAX_NAME_CHARS} characters" in body["accepted"]
    assert (
        client.get(
            "/api/v1/estimate", params={"model": "x" * (MAX_NAME_CHARS + 1), "gpu": "H100"}
        ).status_code
        == 422
    )


def test_the_advise_form_caps_the_model_name(client: TestClient) -> None:
    r = client.get("/advise", params={"kind": "serve", "sent": "1", "model": "x" * 60_000})
    assert r.status_code == 422
    assert len(r.content) < 40_000, len(r.content)  # was 6 copies of the name (372 KB here, 712 KB at 100K)
    error = re.search(r'id="err-model">(.*?)</span>', r.text, re.S)
    assert error is not None and f"at most {MAX_NAME_CHARS}" in error.group(1) and "60,000" in error.group(1)


def test_an_unknown_name_is_quoted_cut() -> None:
    message = str(UnknownNameError("model", "y" * 5000, ["llama-3.1-8b"]))
    assert len(message) < 160 and "5,000 characters" in message
    assert "'" + "y" * 50 + "'" in message
    short = str(UnknownNameError("model", "llama-9", ["llama-3.1-8b"]))
    assert short == "model: unknown name 'llama-9'; closest known: llama-3.1-8b"


def test_an_unknown_long_name_in_the_api_is_quoted_cut(client: TestClient) -> None:
    name = "z" * MAX_NAME_CHARS
    body = client.get("/api/v1/estimate", params={"model": name, "gpu": "H100-SXM"}).json()
    assert body["field"] == "model" and name not in body["message"]
    assert "z" * 50 in body["message"]


@pytest.mark.parametrize(
    ("workload", "field"),
    [({"regions": ["r" * 5000]}, "regions"), ({"k" * 5000: 1}, "k" * QUOTED_NAME_CHARS + "...")],
)
def test_a_long_region_or_field_name_is_quoted_cut(
    client: TestClient, workload: dict[str, Any], field: str
) -> None:
    r = client.post(RECOMMEND, json=_serve(**workload))
    assert r.status_code == 422
    assert r.json()["field"] == field
    cut = QUOTED_NAME_CHARS + 1  # one figure for every quote of a user's text (errors)
    assert "r" * cut not in r.json()["message"] and "k" * cut not in r.json()["message"]
    assert len(r.content) < 1500, len(r.content)  # was 5 KB and 10 KB: the text echoed whole


# ---- 7. a model of another kind, in the API's words -----------------------------------------------------
def test_an_image_model_in_the_api_is_pointed_to_the_api(client: TestClient) -> None:
    body = client.get("/api/v1/estimate", params={"model": "sdxl", "gpu": "H100"}).json()
    assert body["field"] == "model"
    message = body["message"]
    assert "gpuscout images" not in message and "`gpuscout" not in message and "Python:" not in message
    assert "POST /api/v1/advise" in message and '"images_total"' in message
    assert "GET /api/v1/models/sdxl" in message
    # the route it names answers
    assert (
        client.post(
            ADVISE, json={"workload": {"kind": "batch", "model": "sdxl", "images_total": 1000}}
        ).status_code
        == 200
    )


def test_the_advisor_api_says_it_too(client: TestClient) -> None:
    body = client.post(ADVISE, json={"workload": {"kind": "serve", "model": "sdxl"}}).json()
    assert body["field"] == "model" and "POST /api/v1/advise" in body["message"]
    assert "gpuscout" not in body["message"]


# ---- 8. a blank filter of the offers API ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("gpu=", "gpu"),
        ("gpu=%20", "gpu"),
        ("gpu=%2C", "gpu"),
        ("provider=", "provider"),
        ("region=", "region"),
        ("min_vram=", "min_vram"),
        ("gpu=H100&sort=", "sort"),
    ],
)
def test_a_blank_filter_of_the_offers_api_is_an_error_naming_it(
    client: TestClient, query: str, field: str
) -> None:
    r = client.get(f"/api/v1/offers?{query}")
    assert r.status_code == 422, r.text[:200]  # was 200 with every offer
    body = r.json()
    assert body["field"] == field and "empty" in body["message"]


def test_the_offers_page_still_reads_its_forms_blanks_as_any(client: TestClient) -> None:
    r = client.get("/?gpu=&min_vram=&gpus=&provider=&region=&max_price=")
    assert r.status_code == 200
    assert client.get("/api/v1/offers?gpu=H100").status_code == 200


# ---- 9. units ------------------------------------------------------------------------------------------
def test_a_serving_rows_per_user_speed_says_its_unit(client: TestClient) -> None:
    html = client.get("/advise?kind=serve&model=llama-3.1-8b&sent=1").text
    speeds = [_text(c) for c in re.findall(r'<td class="speed".*?</td>', html, re.S)]
    assert speeds
    for speed in speeds:
        assert re.fullmatch(r"[\d,.]+ tok/s served · [\d,]+ tok/s per user decoding", speed), speed


def test_the_models_table_says_the_context_unit(client: TestClient) -> None:
    html = client.get("/models").text
    assert "Max context (tokens)</th>" in html


def test_a_launch_flag_with_a_word_for_its_value_asks_for_a_whole_number(client: TestClient) -> None:
    with pytest.raises(InvalidInputError, match="--max-num-seqs needs a whole number, not 'abc'"):
        read_flags("--max-num-seqs abc")
    with pytest.raises(InvalidInputError, match="--max-num-seqs needs a value"):
        read_flags("--max-num-seqs --enforce-eager")  # none given: still so
    with pytest.raises(InvalidInputError, match="--gpu-memory-utilization needs a number, not 'high'"):
        read_flags("--gpu-memory-utilization high")
    params = {"model": "llama-3.1-8b", "gpu": "H100-SXM", "engine": "vllm --max-num-seqs abc"}
    body = client.get("/api/v1/estimate", params=params).json()
    assert body["field"] == "engine" and "needs a whole number" in body["message"]
