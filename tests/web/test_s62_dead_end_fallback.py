"""The advisor page's fallback under an empty answer that says nothing of what binds (stop 62, a review)
said "Loosen a constraint, or try a smaller precision (fp8, int4) or a smaller model" whatever the engine:
llama.cpp runs neither, its narrower levels are GGUF Q8_0 and Q4_K_M. It now names the narrower
precisions the workload's engine runs, in the advisor's words (gpuscout.advise.answer.loosen_words), as the
dead end's memory levers do. (Every empty answer the advisor gives carries its diagnosis; the fallback is
for one that does not, made here by dropping it.)"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gpuscout.advise.types import Advice
from gpuscout.web.services import WebServices
from tests.web.test_s58_dead_end_note import client as client


@pytest.fixture()
def undiagnosed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every answer the page gets comes without its diagnosis."""
    advice = WebServices.advice

    def without_binding(self: WebServices, *args: Any, **kwargs: Any) -> Advice:
        return dataclasses.replace(advice(self, *args, **kwargs), binding=None)

    monkeypatch.setattr(WebServices, "advice", without_binding)
    yield


def _note(client: TestClient, **params: str) -> str:
    r = client.get("/advise", params={"kind": "serve", "concurrency": "4", "sent": "1", **params})
    block = r.text.split('id="no-results"', 1)[1].split("</div>", 1)[0]
    assert 'id="binding"' not in block
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", block)).split())


def test_llama_cpps_fallback_names_its_gguf_levels(client: TestClient, undiagnosed: None) -> None:
    text = _note(client, model="llama-3.1-405b", engine="llama.cpp")
    assert text.endswith(
        "1 offer looked at. Loosen a constraint, or try a narrower precision (gguf-q8_0, gguf-q4_k_m) or a "
        "smaller model."
    ), text
    assert "fp8" not in text and "int4" not in text


def test_the_server_engines_fallback_names_fp8_and_int4(client: TestClient, undiagnosed: None) -> None:
    text = _note(client, model="llama-3.1-405b")
    assert text.endswith(
        "Loosen a constraint, or try a narrower precision (fp8, int4) or a smaller model."
    ), text


def test_nothing_narrower_than_int4_is_named(client: TestClient, undiagnosed: None) -> None:
    text = _note(client, model="llama-3.1-405b", precision="int4")
    assert text.endswith("1 offer looked at. Loosen a constraint, or try a smaller model."), text
