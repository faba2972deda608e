"""Workload numbers over HTTP: any float (inf, NaN, 1e308, 1e-300, huge integers) in any field of the
advisor form or the recommend API is a 200 with finite costs or a 422 naming the field; never a 500,
never ``$inf``.

Regression for the audit's defect 5 (``/advise?requests_per_s=inf`` and ``output_tokens_total: 1e308``
answered 500; ``storage_retention_days=1e308`` showed ``$inf/month``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuscout.advise.workload import _numeric_fields
from tests.advise.test_workload_bounds import BASES, CONFLICTS, SKIP

FIELDS = [
    (shape, name)
    for shape, (cls, _) in BASES.items()
    for name in sorted(_numeric_fields(cls))
    if name not in SKIP.get(shape, ())
]
VALUES = st.one_of(
    st.sampled_from([math.inf, -math.inf, math.nan, 1e308, -1e308, 1e-300, 0.0, -1.0, 10**30, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**25), max_value=10**25),
)
NON_FINITE_MONEY = re.compile(r"\$\s*(inf|nan|-inf)", re.IGNORECASE)


def _body(shape: str, name: str, value: Any) -> dict[str, Any]:
    base = {k: v for k, v in BASES[shape][1].items() if k not in CONFLICTS.get((shape, name), ())}
    if name == "bursts_per_day":
        base["burst_minutes"] = 5
    if name == "burst_minutes":
        base["bursts_per_day"] = 2
    return {**base, name: value}


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


@pytest.mark.parametrize(("shape", "name"), FIELDS)
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=VALUES)
def test_recommend_api_answers_every_number_with_200_or_422(
    client: TestClient, shape: str, name: str, value: Any
) -> None:
    body = json.dumps({"workload": _body(shape, name, value), "top": 5})  # inf/NaN as JSON's Infinity/NaN
    r = client.post("/api/v1/recommend", content=body, headers={"content-type": "application/json"})
    assert r.status_code in (200, 422), r.text[:300]
    if r.status_code == 422:
        assert name in r.text or "kind" in r.text
        return
    for rec in r.json():
        total = rec["cost"]["total"] if rec.get("cost") else None
        assert total is not None and math.isfinite(total), rec


@pytest.mark.parametrize(("shape", "name"), FIELDS)
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=VALUES)
def test_advisor_page_answers_every_number_with_200_or_422(
    client: TestClient, shape: str, name: str, value: Any
) -> None:
    params = {k: _text(v) for k, v in _body(shape, name, value).items()}
    r = client.get("/advise", params=params)
    assert r.status_code in (200, 422), r.text[:300]
    assert not NON_FINITE_MONEY.search(r.text)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"kind": "serve", "model": "llama-3.1-8b", "requests_per_s": "inf"}, "requests_per_s"),
        (
            {"kind": "serve", "model": "llama-3.1-8b", "storage_retention_days": "1e308"},
            "storage_retention_days",
        ),
        ({"kind": "serve", "model": "llama-3.1-8b", "egress_gb": "nan"}, "egress_gb"),
    ],
)
def test_the_audits_advisor_urls_are_422_naming_the_field(
    client: TestClient, params: dict[str, str], field: str
) -> None:
    r = client.get("/advise", params=params)
    assert r.status_code == 422 and field in r.text


def test_the_audits_recommend_body_is_422_naming_the_field(client: TestClient) -> None:
    r = client.post(
        "/api/v1/recommend",
        json={"workload": {"kind": "batch", "model": "llama-3.1-8b", "output_tokens_total": 1e308}},
    )
    assert r.status_code == 422 and r.json()["field"] == "output_tokens_total"
    assert "1e+15" in (r.json()["accepted"] or "")
