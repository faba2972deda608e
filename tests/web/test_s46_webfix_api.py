"""The JSON API says what the pages say: a family name is not one GPU (``/api/v1/gpus/H100`` answers for
the variant it reads as and names the others, as ``gpuscout gpus H100 --json`` does); an uncalibrated
pick carries its calibrated alternative in full, however far down it is; ``dominated_by`` states the
advisor's real rule; a training row's layout is described as training; an export of a page past the
last one is an error naming the last page, as the page says, never a file of the header row alone."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.types import Advice, UncalibratedPick
from gpuscout.errors import InvalidInputError
from gpuscout.web import create_app
from gpuscout.web.exports import export_rows
from gpuscout.web.filters import OfferFilters
from gpuscout.web.services import WebServices

SERVE = {"workload": {"kind": "serve", "model": "llama-3.1-8b"}}


# ---- 7. a family name where one GPU is answered -------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "variants"),
    [("H100", {"H100-SXM", "H100-PCIe", "H100-NVL"}), ("A100-80GB", {"A100-SXM4-80GB", "A100-PCIe-80GB"})],
)
def test_a_gpu_family_is_answered_as_its_assumed_variant_said_so(
    client: TestClient, name: str, variants: set[str]
) -> None:
    r = client.get(f"/api/v1/gpus/{name}")
    assert r.status_code == 200, r.text  # once 200 with H100-SXM's specs, the variant assumed unsaid
    body = r.json()
    assert body["name"] in variants and body["resolution"]["exact"] is False
    assert all(v in body["resolution"]["note"] for v in variants)  # the variant assumed and the others


def test_a_named_variant_is_answered(client: TestClient) -> None:
    for name in ("H100-SXM", "H100 SXM", "h100-pcie"):
        r = client.get(f"/api/v1/gpus/{name}")
        assert r.status_code == 200, (name, r.text)
    assert client.get("/api/v1/gpus/H100-NVL").json()["name"] == "H100-NVL"


# ---- 3. an uncalibrated pick's alternative, in full ----------------------------------------------------
class _Uncalibrated(WebServices):
    """Serving answers whose cheapest pick is said uncalibrated, its calibrated alternative row ``number``."""

    number = 5

    def advice(self, workload: Any, **kw: Any) -> Advice:
        advice = super().advice(workload, **kw)
        said = UncalibratedPick("cheapest", 1, "RTX4090 serving", self.number)
        return replace(advice, uncalibrated_picks=(said,))


@pytest.fixture()
def services(db_url: str) -> _Uncalibrated:
    return _Uncalibrated(db_url, cache_seconds=0)


@pytest.fixture()
def uncalibrated(db_url: str, services: _Uncalibrated) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, services=services)) as client:
        yield client


# the sample answer's picks are rows 1, 2 and 4: ranked with top 3 (or 5), its rows are the picks first,
# without row 3 (or 5)
@pytest.mark.parametrize("number", [3, 5])
def test_an_uncalibrated_pick_names_its_alternative_past_top(
    uncalibrated: TestClient, services: _Uncalibrated, number: int
) -> None:
    services.number = number
    r = uncalibrated.post("/api/v1/advise", json={**SERVE, "top": 1})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [x["rank"] for x in body["recommendations"]] == [1]
    pick = body["uncalibrated_picks"][0]
    assert {"pick", "number", "what", "calibrated", "text"} <= set(pick)  # the keys it had
    row = pick["calibrated_row"]
    assert row is not None and row["number"] == number and row["in_recommendations"] is False
    # the same row as the answer ranked with room for it
    wide = uncalibrated.post("/api/v1/advise", json={**SERVE, "top": 10}).json()
    same = next(x for x in wide["recommendations"] if x["rank"] == number)
    assert row["provider"] == same["offer"]["provider"]
    assert row["instance_type"] == same["offer"]["instance_type"]
    assert row["total_usd"] == pytest.approx(same["total_usd"])
    assert row["time_to_result_s"] == pytest.approx(same["time_to_result_s"])
    assert row["gpus"] == same["config"]["instances"] * same["config"]["gpus_per_instance"]
    assert wide["uncalibrated_picks"][0]["calibrated_row"]["in_recommendations"] is True


# ---- 4. the rule a row off the front is held to ---------------------------------------------------------
def test_the_api_states_the_rule_a_dominated_row_is_beaten_by(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()["components"]["schemas"]["RecommendationOut"]["properties"]
    said = spec["dominated_by"]["description"]
    assert "cheaper and faster" not in said  # was: "rank of a shown row that is cheaper and faster"
    assert "costs no more and takes no longer" in said and "worth the wait" in said


def test_the_config_schema_names_the_training_layouts(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    said = schemas["ConfigOut"]["properties"]["parallel"]["description"]
    assert "training rows" in said and "fsdp" in said and "data" in said


# ---- 9. an export past the last page -------------------------------------------------------------------
def test_an_export_past_the_last_page_names_the_last_page(db_url: str) -> None:
    services = WebServices(db_url, cache_seconds=0)
    pages = services.offer_page(OfferFilters(per_page=5)).pages
    assert len(export_rows(services, OfferFilters(per_page=5, page=pages), "page")) >= 1
    with pytest.raises(InvalidInputError) as caught:
        export_rows(services, OfferFilters(per_page=5, page=99), "page")  # was a file of the header alone
    assert caught.value.field == "page"
    assert f"last page of this view ({pages})" in str(caught.value)
    assert caught.value.accepted is not None and caught.value.accepted.startswith(f"1..{pages}")
    # every page of the view is the file of scope=all, whatever page the view is on
    assert export_rows(services, OfferFilters(per_page=5, page=99), "all")
