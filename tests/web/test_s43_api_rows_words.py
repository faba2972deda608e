"""Every text of the JSON API's and the web page's advisor answers names the API's fields or the form's
inputs, never a flag of ``gpuscout recommend``: rows left out included (their reasons and warnings, not only
why they were left out), and rows of ``/api/v1/recommend``."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.test_python_api_words import _flags_in
from tests.web.test_s41_advisor_options import STALE_ONLY

SERVE = {"kind": "serve", "model": "llama-3.1-70b", "concurrency": 16}


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, list):
        return [s for item in obj for s in _strings(item)]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() if k != "offer" for s in _strings(v)]
    return []


def test_the_api_answer_with_its_rows_left_out_names_no_cli_flag(client: TestClient) -> None:
    for workload in (STALE_ONLY, SERVE):
        r = client.post("/api/v1/advise", json={"workload": workload, "show_rejected": True})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["rejected"], workload
        flagged = [s for s in _strings(body) if _flags_in(s)]
        assert flagged == [], flagged[:5]


def test_recommend_rows_name_no_cli_flag(client: TestClient) -> None:
    r = client.post("/api/v1/recommend", json={"workload": SERVE, "include_stale": True})
    assert r.status_code == 200, r.text
    flagged = [s for s in _strings(r.json()) if _flags_in(s)]
    assert flagged == [], flagged[:5]
