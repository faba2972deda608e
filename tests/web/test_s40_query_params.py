"""The JSON API's query strings are read strictly (``web/query_params.py``): a parameter a route does not
take is a 422 naming it with the accepted names, the closest first; a parameter that takes one value
given twice is a 422; a comma-separated list the CLI repeats (``offers --gpu``/``--provider``/``--region``)
adds up."""

from __future__ import annotations

import re
from typing import Annotated

import pytest
from fastapi import APIRouter, FastAPI, Query
from fastapi.testclient import TestClient

from gpuscout.web import api, create_app
from gpuscout.web.errors import install_error_handlers
from gpuscout.web.query_params import (
    COMMA_LIST,
    QuerySpec,
    RepeatedParameterError,
    StrictQueryRoute,
    UnknownParameterError,
    checked_query,
    closest_first,
)
from gpuscout.web.services import WebServices

OFFERS = "/api/v1/offers"
ESTIMATE = "/api/v1/estimate?model=llama-3.1-8b&gpu=H100"


def test_an_unknown_parameter_is_named_with_the_accepted_names_closest_first(client: TestClient) -> None:
    r = client.get(f"{ESTIMATE}&prompt=4000")  # the CLI's --prompt; computed at 512 before
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "prompt" and "unknown parameter" in body["message"]
    accepted = body["accepted"].split(", ")
    assert {"context_in", "context_out", "gpus", "model"} <= set(accepted)
    r = client.get(f"{ESTIMATE}&context=4000")
    assert r.status_code == 422 and r.json()["field"] == "context"
    assert r.json()["accepted"].split(", ")[:2] == ["context_in", "context_out"]  # the closest first
    r = client.get(f"{OFFERS}?gpu_name=H100")  # all offers before
    assert r.status_code == 422 and r.json()["field"] == "gpu_name"
    assert r.json()["accepted"].split(", ")[0] == "gpu"


def test_a_single_valued_parameter_given_twice_is_refused(client: TestClient) -> None:
    r = client.get(f"{ESTIMATE}&gpus=2&gpus=4")  # used 4 before
    assert r.status_code == 422
    assert r.json()["field"] == "gpus" and "given 2 times" in r.json()["message"]
    r = client.get("/api/v1/history?gpu=H100&provider=alphacloud&provider=betagpu")  # history --provider: one
    assert r.status_code == 422 and r.json()["field"] == "provider"


def test_repeated_gpu_and_provider_add_up_as_the_cli_options_do(client: TestClient) -> None:
    both = client.get(f"{OFFERS}?gpu=H100,A100&per_page=200").json()
    repeated = client.get(f"{OFFERS}?gpu=H100&gpu=A100&per_page=200")  # only the A100s before
    assert repeated.status_code == 200
    assert repeated.json() == both
    assert {i["accelerator"] for i in both["items"]} == {"H100-SXM", "A100-SXM4-80GB"}
    joined = client.get(f"{OFFERS}?provider=alphacloud,betagpu").json()
    r = client.get(f"{OFFERS}?provider=alphacloud&provider=betagpu")
    assert r.status_code == 200 and r.json() == joined
    assert {i["provider"] for i in joined["items"]} == {"alphacloud", "betagpu"}
    # region too, as the CLI's repeatable --region (tests/web/test_s42_api_region.py)
    joined = client.get(f"{OFFERS}?region=eu-west,us-west").json()
    r = client.get(f"{OFFERS}?region=eu-west&region=us-west")
    assert r.status_code == 200 and r.json() == joined and joined["total"] == 2


def _paths() -> list[tuple[str, str]]:
    """(method, path with its path parameter filled) of every route of the /api/v1 router (POST ones
    too: their query string is read the same way)."""
    out = []
    for route in api.router.routes:
        assert isinstance(route, StrictQueryRoute)
        out.extend((method, route.path.replace("{name}", "H100")) for method in sorted(route.methods))
    return out


@pytest.mark.parametrize(("method", "path"), _paths())
def test_every_api_route_refuses_an_unknown_parameter(client: TestClient, method: str, path: str) -> None:
    r = client.request(method, f"{path}?no_such_parameter=1")
    assert r.status_code == 422, (method, path, r.text)
    assert r.json()["field"] == "no_such_parameter"


def test_a_route_without_query_parameters_says_so(client: TestClient) -> None:
    r = client.get("/api/v1/gpus?sort=price")
    assert r.status_code == 422
    assert r.json()["message"] == "sort: unknown parameter: this route takes no query parameters"


def test_a_declared_list_takes_every_value_and_a_comma_list_joins_them() -> None:
    """The mechanism reads what each route declares: a ``list`` query parameter takes repeats (FastAPI
    reads them all), a ``COMMA_LIST`` one joins them, any other refuses them."""
    router = APIRouter(route_class=StrictQueryRoute)

    @router.get("/api/x")  # an /api/ path: errors answer in JSON
    def x(
        tag: Annotated[list[str] | None, Query()] = None,
        names: Annotated[str | None, COMMA_LIST, Query()] = None,
        one: int = 0,
    ) -> dict[str, object]:
        return {"tag": tag, "names": names, "one": one}

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    client = TestClient(app)
    r = client.get("/api/x?tag=a&tag=b&names=p&names=q, r&one=1")
    assert r.status_code == 200 and r.json() == {"tag": ["a", "b"], "names": "p,q, r", "one": 1}
    r = client.get("/api/x?one=1&one=2")
    assert r.status_code == 422 and r.json()["field"] == "one"
    r = client.get("/api/x?tags=a")
    assert r.status_code == 422 and r.json()["accepted"].split(", ")[0] == "tag"


def test_checked_query_leaves_a_plain_query_string_as_it_is() -> None:
    spec = QuerySpec(("gpu", "page"), joined=frozenset({"gpu"}))
    plain = b"gpu=H100%2CA100&page=2"
    assert checked_query(plain, spec) is plain
    assert checked_query(b"gpu=H100&page=2&gpu=A%C3%A9", spec) == b"gpu=H100%2CA%C3%A9&page=2"
    assert checked_query(b"gpu=&gpu=", spec) == b"gpu="  # blanks: the default, as one blank is
    with pytest.raises(UnknownParameterError) as unknown:
        checked_query(b"gpus=2", spec)
    assert unknown.value.field == "gpus" and unknown.value.accepted == "gpu, page"
    with pytest.raises(RepeatedParameterError) as repeated:
        checked_query(b"page=1&page=2", spec)
    assert repeated.value.field == "page" and re.search(r"given 2 times \('1', '2'\)", str(repeated.value))


def test_closest_first_keeps_the_declared_order_among_equals() -> None:
    assert closest_first("context", ["model", "context_out", "context_in"])[:2] == [
        "context_in",
        "context_out",
    ]
    assert closest_first("zzz", ["b", "a"]) == ["b", "a"]


def test_refresh_sources_repeat_as_the_cli_source_option(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gpuscout refresh --source`` repeats: so does the API's comma-separated ``source``."""
    monkeypatch.setenv("GPUSCOUT_ADMIN_TOKEN", "t0ken")
    services = WebServices(db_url, cache_seconds=0)
    calls: list[object] = []
    monkeypatch.setattr(services, "refresh", lambda names: calls.append(names) or [])
    with TestClient(create_app(db_url, services=services)) as client:
        auth = {"Authorization": "Bearer t0ken"}
        r = client.post("/api/v1/refresh?source=lambda&source=vastai", headers=auth)
        assert r.status_code == 202 and r.json()["sources"] == ["lambda", "vastai"]
        r = client.post("/api/v1/refresh?sources=lambda", headers=auth)
        assert r.status_code == 422 and r.json()["field"] == "sources"
    assert calls == [["lambda", "vastai"]]
