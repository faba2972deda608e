"""``/api/v1/estimate`` with a GPU family name ("A100", "H100") answers for the variant it reads as and
says so in ``warnings`` (a 200, not a 422: clients pass "H100"); ``/api/v1/gpus/A100`` answers for the same
variant, its ``resolution`` naming the variants the knowledge layer names.

Regression: ``?model=llama-3.1-70b&gpu=A100&precision=int4`` returned ``"gpu": "A100-SXM4-80GB",
"fits": true`` and no warning, though A100-SXM4-40GB does not hold it.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from gpuscout.knowledge.accelerators import assumed_variant_warning, gpu_family_members, resolve_gpu

QUERY = {"model": "llama-3.1-70b", "precision": "int4"}


@pytest.mark.parametrize("family", ["A100", "H100", "H200", "V100"])
def test_a_family_name_is_answered_with_the_variant_named_in_the_warnings(
    client: TestClient, family: str
) -> None:
    r = client.get("/api/v1/estimate", params={**QUERY, "gpu": family})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["gpu"] == resolve_gpu(family).name
    said = [w for w in body["warnings"] if "read as" in w]
    assert said == [assumed_variant_warning(family)]
    members = gpu_family_members(family)
    assert members is not None and all(m.name in said[0] for m in members)


def test_the_a100_answer_says_the_40_gb_parts_it_did_not_size(client: TestClient) -> None:
    body = client.get("/api/v1/estimate", params={**QUERY, "gpu": "A100"}).json()
    assert body["fits"] and body["gpu"] == "A100-SXM4-80GB"
    assert "A100-SXM4-40GB (40 GiB)" in body["warnings"][0]
    small = client.get("/api/v1/estimate", params={**QUERY, "gpu": "A100-SXM4-40GB"}).json()
    assert not small["fits"]
    assert not any("read as" in w for w in small["warnings"])


def test_the_gpu_endpoint_reads_a_family_name_as_the_estimate_does(client: TestClient) -> None:
    r = client.get("/api/v1/gpus/A100")
    assert r.status_code == 200, r.text
    members = gpu_family_members("A100")
    assert members is not None
    assert r.json()["name"] == resolve_gpu("A100").name
    assert all(m.name in r.json()["resolution"]["note"] for m in members)
