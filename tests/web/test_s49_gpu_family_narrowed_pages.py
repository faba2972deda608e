"""The web's family page and the API's ``/api/v1/gpus/{name}`` name only the members a name matches.

Regression: ``/gpus/A100 PCIe`` compared the two A100-SXM4 boards with the PCIe ones, and
``/api/v1/gpus/A100 PCIe`` answered (then a 422) with the SXM4 parts among the variants to choose from.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

PCIE = ["A100-PCIe-40GB", "A100-PCIe-80GB"]


def test_the_api_names_only_the_pcie_variants(client: TestClient) -> None:
    r = client.get("/api/v1/gpus/A100 PCIe")
    assert r.status_code == 200, r.text
    assert r.json()["name"] in PCIE
    note = r.json()["resolution"]["note"]
    assert all(name in note for name in PCIE) and "A100-SXM4" not in note


def test_the_family_page_lists_only_the_pcie_variants(client: TestClient) -> None:
    r = client.get("/gpus/A100 PCIe")
    assert r.status_code == 200, r.text
    assert all(name in r.text for name in PCIE)
    assert "A100-SXM4" not in r.text
