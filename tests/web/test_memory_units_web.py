"""One unit for GPU memory on the web pages (GiB, as it is sold) and a true unit in the API's docs.

The pages showed a card's memory as "80 GB" beside the model pages' GiB figures; they now say the
vendor's figure in the unit it is (an "80 GB" H100 holds 80 GiB), never converted. The JSON keeps its
``*_gb`` fields: the estimator's are GB (1e9 bytes) and the OpenAPI document says so; the card's
``memory_gb`` is the vendor's figure, which is GiB, and the document says that, checked against what
the estimator sizes a card from.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from gpuscout.estimate.memory import DRIVER_RESERVED_FRACTION, capacity_bytes
from gpuscout.knowledge.accelerators import resolve_gpu


def _props(spec: dict, schema: str) -> dict:
    return spec["components"]["schemas"][schema]["properties"]


def test_card_memory_on_the_pages_is_the_vendors_figure_in_gib(client: TestClient) -> None:
    model = client.get("/models/llama-3.1-8b").text
    fits = model.split("GPUs (smallest memory first)", 1)[1].split("</table>", 1)[0]
    assert '<a href="/gpus/L4">L4</a> <span class="sub">24 GiB</span>' in fits
    assert not re.search(r"\d GB<", fits)
    offers = client.get("/").text
    cells = re.findall(r'data-label="Memory">([^<]*)<span class="sub"> · ([^<]*) total', offers)
    assert cells and all(c.endswith(" GiB") and t.endswith(" GiB") for c, t in cells), cells
    assert "Showing GPUs with 24 GiB or more each" in offers
    gpus = client.get("/gpus").text
    assert "80 GiB HBM3" in gpus and "80 GB HBM3" not in gpus


def test_the_api_documents_the_estimators_gb_as_1e9_bytes(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    memory = _props(spec, "MemoryOut")
    for field in ("weights_gb", "kv_cache_gb", "activations_gb", "overhead_gb", "usable_gb", "total_gb"):
        assert "GB = 1e9 bytes" in memory[field]["description"], field
    assert "GB = 1e9 bytes" in _props(spec, "ImageSpeedOut")["memory_gb"]["description"]
    assert "GB = 1e9 bytes" in _props(spec, "RecommendationOut")["estimate"]["description"]


@pytest.mark.parametrize(
    ("schema", "field"),
    [
        ("GpuOut", "memory_gb"),
        ("GpuDetailOut", "memory_gb"),
        ("GpuFitOut", "memory_gb"),
        ("ImageSpeedOut", "gpu_memory_gb"),
    ],
)
def test_a_cards_memory_gb_is_documented_as_the_gib_it_is(
    client: TestClient, schema: str, field: str
) -> None:
    doc = _props(client.get("/openapi.json").json(), schema)[field]["description"]
    assert "GiB (2**30 bytes)" in doc, doc
    # and GiB it is: the API's 80 for an H100 is what the estimator sizes as 80 x 2**30 bytes
    h100 = client.get("/api/v1/gpus/H100-SXM").json()
    assert h100["memory_gb"] == 80
    assert capacity_bytes(resolve_gpu("H100-SXM")) == pytest.approx(
        80 * 2**30 * (1 - DRIVER_RESERVED_FRACTION)
    )
