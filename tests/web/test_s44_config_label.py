"""The JSON API's config description names the GPU as the CLI's config column does ("8x H100-SXM 8
replicas spot"), not "8x GPU 8 replicas spot"; and an image size the pipeline does not generate is a 422
naming the field."""

from __future__ import annotations

from fastapi.testclient import TestClient

BATCH = {"kind": "batch", "model": "sdxl", "images_total": 10_000}


def test_config_description_names_the_accelerator(client: TestClient) -> None:
    advise = client.post("/api/v1/advise", json={"workload": BATCH, "show_rejected": True})
    recommend = client.post("/api/v1/recommend", json={"workload": BATCH})
    assert advise.status_code == recommend.status_code == 200, (advise.text, recommend.text)
    body = advise.json()
    rows = [*body["recommendations"], *body["rejected"], *recommend.json()]
    assert len(rows) > 3
    for row in rows:
        config, accelerator = row["config"], row["offer"]["accelerator"]
        described = config["description"]
        assert " GPU" not in described, described
        head = f"{config['gpus_per_instance']}x {accelerator}"
        assert described.startswith((head, f"{config['instances']} x {head}")), described


def test_an_image_size_not_a_multiple_of_8_is_refused_naming_the_field(client: TestClient) -> None:
    r = client.post("/api/v1/advise", json={"workload": {**BATCH, "width": 1001}})
    assert r.status_code == 422, r.text
    assert "width" in r.text and "1001 is not a multiple of 8" in r.text and "1000 or 1008" in r.text
