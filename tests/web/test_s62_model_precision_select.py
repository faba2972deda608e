"""The model page's Precision select names the format alone; which one is the checkpoint's own is said in
the hint under it. '… · as published' in the chosen option was cut at 390 px ("bf16 · as publishe"), as
the advisor form's 'native' and 'auto' options were before their meaning moved to the hint."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def _field(html: str) -> str:
    return html.split("<label>Precision", 1)[1].split("</label>", 1)[0]


def test_the_options_name_the_format_and_the_hint_says_which_is_published(client: TestClient) -> None:
    field = _field(client.get("/models/llama-3.1-70b").text)
    options = re.findall(r"<option value=\"([^\"]+)\"[^>]*>([^<]*)</option>", field)
    assert options and all(value == label for value, label in options), options
    assert '<small class="hint" id="hint-precision">bf16: as published</small>' in field
    # another format chosen: the hint still names the published one
    asked = _field(client.get("/models/llama-3.1-70b", params={"precision": "int4"}).text)
    assert '<option value="int4" selected>int4</option>' in asked and "bf16: as published" in asked
