"""The LoRA / QLoRA adapters' dtype on the web: a field of the fine-tuning workload of ``/api/v1/advise``
(its OpenAPI schema lists the values), and a select of the advisor's fine-tuning form. fp32 adapters
(PEFT's default without torch autocast) rank the same offer slower; a bad value, or one given with full
fine-tuning, is a 422 naming the field; the form's own default beside full fine-tuning is not the
user's and still answers."""

from __future__ import annotations

import html
import re
from typing import Any

from fastapi.testclient import TestClient

from gpuscout.advise.workload import FinetuneWorkload
from tests.web.test_advise_batch_kind_fields import _form_values

LORA = {"kind": "finetune", "model": "llama-3.1-8b", "dataset_tokens": 1e8}
KEY = "LoRA adapters"


def _rows(client: TestClient, **changes: Any) -> dict[str, dict[str, Any]]:
    r = client.post("/api/v1/advise", json={"workload": {**LORA, **changes}, "top": 50})
    assert r.status_code == 200, r.text
    rows = r.json()["recommendations"]
    assert rows
    return {row["offer"]["instance_type"]: row for row in rows}


def test_the_api_ranks_fp32_adapters_slower_on_every_offer(client: TestClient) -> None:
    half, full32 = _rows(client), _rows(client, adapter_dtype="fp32")
    assert half == _rows(client, adapter_dtype="16bit")  # the default
    common = half.keys() & full32.keys()
    assert common
    for name in common:
        assert full32[name]["time_to_result_s"] > half[name]["time_to_result_s"], name
        assert full32[name]["estimate"]["throughput"] < half[name]["estimate"]["throughput"], name
        assert half[name]["assumptions"][KEY].startswith("16-bit")
        # the answer names the API's field, not the CLI's flag
        said = full32[name]["assumptions"][KEY]
        assert said.startswith("fp32: PEFT's default") and '"adapter_dtype": "16bit"' in said
        assert "--adapter-dtype" not in said


def test_the_api_refuses_a_bad_value_naming_the_field(client: TestClient) -> None:
    for value in ("fp64", "bf16", 16):
        r = client.post("/api/v1/advise", json={"workload": {**LORA, "adapter_dtype": value}})
        assert r.status_code == 422, (value, r.text)
        assert r.json()["field"] == "adapter_dtype" and r.json()["accepted"] == "16bit, fp32"
    r = client.post("/api/v1/advise", json={"workload": {**LORA, "method": "full", "adapter_dtype": "fp32"}})
    assert r.status_code == 422 and r.json()["field"] == "adapter_dtype"
    assert "trains no adapters" in r.json()["message"]


def test_openapi_lists_the_values_and_the_default(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    field = schemas["FinetuneWorkload"]["properties"]["adapter_dtype"]
    assert field["enum"] == ["16bit", "fp32"] and field["default"] == "16bit"
    assert "adapter_dtype" not in schemas["PretrainWorkload"]["properties"]


# ---- the advisor form --------------------------------------------------------------------------
def _field_error(page: str, name: str) -> str:
    block = page.split(f'id="err-{name}"', 1)[1].split("</span>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", "", block.split(">", 1)[1])).strip()


def test_the_form_has_the_select_with_its_default(client: TestClient) -> None:
    page = client.get("/advise", params={"kind": "finetune"}).text
    select = re.search(r'<select name="adapter_dtype"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None
    assert re.findall(r'<option value="([^"]*)"', select.group(1)) == ["16bit", "fp32"]
    default = FinetuneWorkload.model_fields["adapter_dtype"].default
    assert _form_values(page)["adapter_dtype"] == default
    assert "Adapter dtype" in page and "PEFT&#39;s default" in page
    assert 'name="adapter_dtype"' not in client.get("/advise", params={"kind": "pretrain"}).text


def test_the_form_ranks_with_fp32_adapters_and_says_so(client: TestClient) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "finetune"}).text)
    params = {**blank, "model": "llama-3.1-8b", "dataset_tokens": "1e8"}
    r = client.get("/advise", params={**params, "adapter_dtype": "fp32"})
    assert r.status_code == 200 and 'id="ranked"' in r.text
    page = html.unescape(r.text)
    assert "fp32: PEFT's default" in page and "“Adapter dtype” 16bit" in page
    assert "--adapter-dtype" not in page
    assert _form_values(r.text)["adapter_dtype"] == "fp32"  # kept after the submit


def test_full_fine_tuning_sent_as_the_form_stands_answers(client: TestClient) -> None:
    blank = _form_values(client.get("/advise", params={"kind": "finetune"}).text)
    params = {**blank, "model": "llama-3.2-1b", "dataset_tokens": "1e7", "method": "full"}
    r = client.get("/advise", params=params)  # the select's 16bit is the form's, not the user's
    assert r.status_code == 200 and 'id="err-adapter_dtype"' not in r.text
    changed = client.get("/advise", params={**params, "adapter_dtype": "fp32"})
    assert changed.status_code == 422 and 'id="ranked"' not in changed.text
    assert _field_error(changed.text, "adapter_dtype").startswith(
        "Adapter dtype: applies to LoRA and QLoRA adapters; full fine-tuning (“Method” full) trains no "
        "adapters"
    )


def test_the_form_says_a_bad_value_at_the_field(client: TestClient) -> None:
    r = client.get(
        "/advise",
        params={"kind": "finetune", **{k: str(v) for k, v in LORA.items()}, "adapter_dtype": "bf16"},
    )
    assert r.status_code == 422 and 'id="err-adapter_dtype"' in r.text
    assert "16bit" in _field_error(r.text, "adapter_dtype") and "fp32" in _field_error(
        r.text, "adapter_dtype"
    )
