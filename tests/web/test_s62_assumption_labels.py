"""The advisor page labels a row's assumptions in words ("estimate: KV dtype"), not by their JSON keys
("estimate: kv_dtype"), as the CLI does; the JSON API keeps the keys."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient


def test_assumption_labels_are_words(client: TestClient) -> None:
    html = client.get("/advise?kind=serve&model=llama-3.1-8b").text
    lists = re.findall(r'<dl class="specs assumptions">(.*?)</dl>', html, re.S)
    assert lists
    labels = [unescape(t) for dl in lists for t in re.findall(r"<dt>(.*?)</dt>", dl, re.S)]
    assert "estimate: KV dtype" in labels and "estimate: fixed costs" in labels
    assert not [label for label in labels if "_" in label]
