"""The CLI's advisor options on the JSON API and the web form: ``include_stale``,
``spot_reclaims_per_hour`` and ``min_headroom`` (``gpuscout recommend --include-stale
--spot-reclaims-per-hour X --min-headroom Y``) are body fields of ``/api/v1/advise`` and
``/api/v1/recommend`` with the CLI's ranges, part of the advice cache's key, and inputs of the advisor
form's advanced section (labelled, errors at the field, kept after a submit). And ``/api/v1/estimate``
takes ``request_rate=inf`` (all requests at once) as the CLI and vLLM's benchmark do.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.assumption_overrides import assumption_overrides
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.workload import Workload
from gpuscout.web import advise_form
from gpuscout.web.services import AdvisorOptions, WebServices

# the stale L40S of the test store (tests/web/conftest.py) is the only offer of "deltasnap"
STALE_ONLY = {
    "kind": "serve",
    "model": "llama-3.1-8b",
    "concurrency": 4,
    "accelerators": ["L40S"],
    "providers": ["deltasnap"],
}
BATCH = {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e8}
FINETUNE = {"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": 1e7}


def advise(client: TestClient, workload: dict[str, Any], **options: Any) -> dict[str, Any]:
    r = client.post("/api/v1/advise", json={"workload": workload, **options})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


# ---- the JSON API ------------------------------------------------------------------------------
def test_include_stale_ranks_stale_offers(client: TestClient) -> None:
    left_out = advise(client, STALE_ONLY)
    assert left_out["recommendations"] == []
    assert '"include_stale": true shows them' in left_out["binding"]  # the API's own field, not a CLI flag
    shown = advise(client, STALE_ONLY, include_stale=True)
    assert [(r["offer"]["provider"], r["offer"]["stale"]) for r in shown["recommendations"]] == [
        ("deltasnap", True)
    ]
    recs = client.post("/api/v1/recommend", json={"workload": STALE_ONLY, "include_stale": True}).json()
    assert [r["offer"]["provider"] for r in recs] == ["deltasnap"]


def test_a_rejected_row_names_the_api_field(client: TestClient) -> None:
    body = advise(client, STALE_ONLY, show_rejected=True)
    stale = [r["rejected"] for r in body["rejected"] if r["offer"]["provider"] == "deltasnap"]
    assert stale == [  # a row of the bundled snapshot (no fetch time): not stale by age (session 49)
        "stale: a row of the bundled snapshot kept from an older catalog file"
        ' ("include_stale": true shows it)'
    ]


def test_spot_reclaims_per_hour_sets_every_providers_rate(client: TestClient) -> None:
    default = advise(client, BATCH)["recommendations"]
    never = advise(client, BATCH, spot_reclaims_per_hour=0)["recommendations"]
    often = advise(client, BATCH, spot_reclaims_per_hour=2)["recommendations"]
    assert any(r["config"]["spot"] and r["cost"]["interruption"] > 0 for r in default)
    assert all(r["cost"]["interruption"] == 0 for r in never)
    said = often[0]["assumptions"]["spot interruptions"]
    assert "marketplace 2/h" in said and "hyperscaler 2/h" in said and "unknown kind 2/h" in said
    spot = {r["offer"]["instance_type"]: r["cost"]["interruption"] for r in often if r["config"]["spot"]}
    before = {r["offer"]["instance_type"]: r["cost"]["interruption"] for r in default if r["config"]["spot"]}
    assert spot and all(spot[k] > before[k] for k in spot.keys() & before.keys())


def test_min_headroom_holds_training_layouts_to_it(client: TestClient) -> None:
    default = advise(client, FINETUNE)["recommendations"]
    roomy = advise(client, FINETUNE, min_headroom=0.3)["recommendations"]
    assert default[0]["assumptions"]["training memory headroom"] == ">= 5% of each GPU free"
    assert roomy and all(
        r["assumptions"]["training memory headroom"] == ">= 30% of each GPU free" for r in roomy
    )
    assert len(roomy) < len(default)  # a layout leaving under 30 % free does not count as fitting


@pytest.mark.parametrize(
    ("options", "field", "said"),
    [
        ({"min_headroom": 0.6}, "min_headroom", "less than or equal to 0.5"),
        ({"min_headroom": -0.1}, "min_headroom", "greater than or equal to 0"),
        ({"spot_reclaims_per_hour": -1}, "spot_reclaims_per_hour", "greater than or equal to 0"),
        ({"spot_reclaims_per_hour": 3601}, "spot_reclaims_per_hour", "less than or equal to 3600"),
        ({"spot_reclaims_per_hour": math.nan}, "spot_reclaims_per_hour", "finite number"),
        ({"min_headroom": math.inf}, "min_headroom", "finite number"),
        ({"include_stale": "maybe"}, "include_stale", "valid boolean"),
    ],
)
def test_an_option_out_of_range_is_a_422_naming_it(
    client: TestClient, options: dict[str, Any], field: str, said: str
) -> None:
    body = json.dumps({"workload": FINETUNE, **options})  # NaN and Infinity as JSON extensions
    r = client.post("/api/v1/advise", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["field"] == field and said in r.json()["message"], r.text


@pytest.mark.parametrize("kind", ["serve", "batch"])
def test_min_headroom_is_for_training_only(client: TestClient, kind: str) -> None:
    # the CLI offers --min-headroom on finetune and pretrain only: elsewhere it would do nothing
    workload = STALE_ONLY if kind == "serve" else BATCH
    r = client.post("/api/v1/advise", json={"workload": workload, "min_headroom": 0.1})
    assert r.status_code == 422 and r.json()["field"] == "min_headroom"
    assert "training only" in r.json()["message"] and "finetune or pretrain" in r.json()["accepted"]


def test_openapi_describes_the_options_with_the_clis_ranges(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    props = spec["components"]["schemas"]["RecommendIn"]["properties"]
    assert props["include_stale"]["type"] == "boolean" and props["include_stale"]["default"] is False
    reclaims = props["spot_reclaims_per_hour"]["anyOf"][0]
    assert (reclaims["minimum"], reclaims["maximum"]) == (0, 3600)
    headroom = props["min_headroom"]["anyOf"][0]
    assert (headroom["minimum"], headroom["maximum"]) == (0, 0.5)
    for name in ("include_stale", "spot_reclaims_per_hour", "min_headroom"):
        assert "--" + name.replace("_", "-") in props[name]["description"]


def test_the_advice_cache_keys_on_the_options(db_url: str) -> None:
    services = WebServices(db_url, cache_seconds=600)
    workload = Workload.from_dict(dict(STALE_ONLY))
    assert services.advice(workload).rows == ()
    stale = services.advice(workload, options=AdvisorOptions(include_stale=True))
    assert [r.offer.provider for r in stale.rows] == ["deltasnap"]
    batch = Workload.from_dict(dict(BATCH))
    rates = {
        rate: services.advice(batch, options=AdvisorOptions(spot_reclaims_per_hour=rate)).rows[0]
        for rate in (0.0, 2.0)
    }
    assert rates[0.0].assumptions["spot interruptions"] != rates[2.0].assumptions["spot interruptions"]


def test_the_shared_helper_builds_what_the_cli_builds() -> None:
    from gpuscout.cli.advise_cmds import Shared, _assumptions

    def cli(reclaims: float | None, headroom: float | None) -> Assumptions | None:
        values: dict[str, Any] = {"top": 10, "objective": "cost", "json_out": False, "csv_out": False}
        values.update(include_stale=False, rejected=False, spot_reclaims=reclaims, min_headroom=headroom)
        result: Assumptions | None = _assumptions(Shared.of(values))
        return result

    for reclaims, headroom in ((None, None), (0.3, None), (None, 0.2), (0.0, 0.5)):
        assert assumption_overrides(spot_reclaims_per_hour=reclaims, min_headroom=headroom) == cli(
            reclaims, headroom
        )


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"spot_reclaims_per_hour": math.nan}, "spot_reclaims_per_hour"),
        ({"min_headroom": 0.51}, "min_headroom"),
    ],
)
def test_the_helper_refuses_what_the_faces_refuse(kwargs: dict[str, float], field: str) -> None:
    from gpuscout.errors import InvalidInputError

    with pytest.raises(InvalidInputError) as caught:
        assumption_overrides(**kwargs)
    assert caught.value.field == field


# ---- the advisor form --------------------------------------------------------------------------
SERVE = "/advise?kind=serve&model=llama-3.1-8b&sent=1&concurrency=4"
FT = "/advise?kind=finetune&model=llama-3.1-8b&sent=1&dataset_tokens=10000000"


def advanced(html: str) -> str:
    m = re.search(r'<details class="common advanced" id="advanced"[^>]*>.*?</details>', html, re.S)
    assert m, "no advanced section"
    return m.group(0)


def test_the_form_has_an_advanced_section_in_plain_words(client: TestClient) -> None:
    serve = advanced(client.get("/advise?kind=serve").text)
    assert "Include stale offers" in serve and "Spot reclaims per hour" in serve
    assert 'name="include_stale"' in serve and 'name="spot_reclaims_per_hour"' in serve
    assert 'name="min_headroom"' not in serve  # a training option, as on the CLI
    assert not re.match(r"<details[^>]* open", serve)  # closed until an option is set
    for kind in ("finetune", "pretrain"):
        section = advanced(client.get(f"/advise?kind={kind}").text)
        assert 'name="min_headroom"' in section and "GPU memory kept free (share)" in section


@pytest.mark.parametrize(
    ("url", "name", "typed", "said"),
    [
        (SERVE, "spot_reclaims_per_hour", "lots", "Spot reclaims per hour must be a number from 0 to 3,600"),
        (SERVE, "spot_reclaims_per_hour", "inf", "Spot reclaims per hour must be a number from 0 to 3,600"),
        (FT, "min_headroom", "0.7", "GPU memory kept free (share) must be a number from 0 to 0.5"),
        (SERVE, "include_stale", "maybe", "Include stale offers must be yes or no"),
    ],
)
def test_a_bad_option_is_named_by_its_label_at_its_input(
    client: TestClient, url: str, name: str, typed: str, said: str
) -> None:
    r = client.get(f"{url}&{name}={typed}")
    assert r.status_code == 422
    section = advanced(r.text)
    assert re.match(r"<details[^>]* open", section)  # opened to show the error
    m = re.search(rf'<span class="field-error" id="err-{name}">(.*?)</span>', section, re.S)
    assert m and said in m.group(1) and f"you typed “{typed}”" in m.group(1)
    assert re.search(rf'name="{name}"[^>]*aria-describedby="[^"]*err-{name}', section)


def test_the_options_are_kept_in_the_form(client: TestClient) -> None:
    html = client.get(f"{FT}&include_stale=true&spot_reclaims_per_hour=0.25&min_headroom=0.2").text
    section = advanced(html)
    assert re.match(r"<details[^>]* open", section)
    assert '<option value="true" selected>yes</option>' in section
    assert 'name="spot_reclaims_per_hour" type="text" inputmode="decimal" value="0.25"' in section
    assert 'name="min_headroom" type="text" inputmode="decimal" value="0.2"' in section


def test_the_request_reads_the_options_and_the_workload_leaves_them_out() -> None:
    params = {"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": "1e7", "sent": "1"}
    params.update(include_stale="yes", spot_reclaims_per_hour="0.5", min_headroom="0.1")
    req = advise_form.parse_request(params)
    assert req.options == AdvisorOptions(include_stale=True, spot_reclaims_per_hour=0.5, min_headroom=0.1)
    assert not advise_form.check_values(req)
    workload = advise_form.build_workload(req)
    assert workload.kind == "finetune" and "include_stale" not in workload.to_dict()
    serve = advise_form.parse_request({"kind": "serve", "model": "x", "min_headroom": "0.1"})
    assert "min_headroom" not in serve.values and serve.options == AdvisorOptions()


def test_the_form_says_the_stale_option_in_its_own_words() -> None:
    from gpuscout.advise.option_words import api_words, form_words

    text = "only stale offers can run it; --include-stale shows them"
    assert form_words(text).endswith("“Include stale offers: yes” (under Advanced) shows them")
    assert api_words(text).endswith('"include_stale": true shows them')


# ---- /api/v1/estimate?request_rate=inf -----------------------------------------------------------
EST = "/api/v1/estimate?model=llama-3.1-8b&gpu=H100"


def test_an_infinite_request_rate_is_all_requests_at_once_as_on_the_cli(client: TestClient) -> None:
    from gpuscout.estimate.api import estimate

    cli = estimate("llama-3.1-8b", "H100", request_rate=math.inf, num_requests=100)
    for spelled in ("inf", "Infinity", "+inf"):
        r = client.get(f"{EST}&request_rate={spelled}&num_requests=100")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["ttft_ms"] == pytest.approx(cli.ttft_ms) and body["concurrency"] == 100
        assert body["assumptions"]["load"].startswith("100 requests at once")


def test_an_infinite_request_rate_needs_the_number_of_requests(client: TestClient) -> None:
    r = client.get(f"{EST}&request_rate=inf")
    assert r.status_code == 422 and r.json()["field"] == "num_requests"


@pytest.mark.parametrize("typed", ["nan", "-inf", "0", "-3", "2e6", "lots"])
def test_a_request_rate_not_accepted_names_it_and_says_inf(client: TestClient, typed: str) -> None:
    r = client.get(f"{EST}&request_rate={typed}&num_requests=10")
    body = r.json()
    assert r.status_code == 422 and body["field"] == "request_rate", r.text
    assert "1,000,000" in body["accepted"] and "inf" in body["accepted"]


def test_openapi_request_rate_says_inf(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    (param,) = [
        p for p in spec["paths"]["/api/v1/estimate"]["get"]["parameters"] if p["name"] == "request_rate"
    ]
    branches = param["schema"]["anyOf"]
    assert {"type": "number", "maximum": 1_000_000, "exclusiveMinimum": 0} in branches
    assert {"const": "inf", "type": "string"} in branches
    assert "inf: all num_requests requests at once" in param["description"]
