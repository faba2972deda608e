"""The advisor form: an unknown GPU, engine or provider names the closest names at its own field, as
links that keep the other inputs (only the model field did); and a fine-tune or pre-training run offers
only the formats training accepts (the inference list offered GGUF, int4, nf4, mxfp4...)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from gpuscout.estimate.training_memory import PRECISIONS
from gpuscout.web import advise_form

SERVE = "/advise?kind=serve&model=llama-3.1-8b&sent=1&concurrency=4"


def field_error(html: str, name: str) -> tuple[str, list[tuple[str, dict[str, list[str]]]]]:
    """The text of the error at input ``name`` and its links (text, query parameters)."""
    m = re.search(rf'<span class="field-error" id="err-{name}"[^>]*>(.*?)</span>\s*</label>', html, re.S)
    assert m, f"no error at {name}"
    links = [
        (text, parse_qs(urlsplit(unescape(href)).query))
        for href, text in re.findall(r'<a href="([^"]+)">([^<]+)</a>', m.group(1))
    ]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m.group(1))).strip(), links


@pytest.mark.parametrize(
    ("name", "typed", "first"),
    [
        ("accelerators", "H1000", "H100-SXM"),
        ("engine", "vlm", "vllm"),
        ("providers", "alphaclod", "alphacloud"),
    ],
)
def test_an_unknown_name_lists_the_closest_at_its_field(
    client: TestClient, name: str, typed: str, first: str
) -> None:
    r = client.get(f"{SERVE}&{name}={typed}")
    assert r.status_code == 422
    text, links = field_error(r.text, name)
    assert f"“{typed}” is not a name gpuscout knows; did you mean one of these?" in text
    assert links and links[0][0] == first
    for suggestion, params in links:
        assert params[name] == [suggestion]
        assert params["concurrency"] == ["4"] and params["model"] == ["llama-3.1-8b"]  # the rest kept


def test_a_link_replaces_only_the_unknown_name_of_a_list(client: TestClient) -> None:
    r = client.get(f"{SERVE}&accelerators=L40S, H1000,A100")
    _, links = field_error(r.text, "accelerators")
    assert links[0][1]["accelerators"] == ["L40S,H100-SXM,A100"]


def test_an_ambiguous_gpu_lists_its_matches(client: TestClient) -> None:
    r = client.get(f"{SERVE}&accelerators=RTX 6000")
    text, links = field_error(r.text, "accelerators")
    assert "matches several; pick one below" in text
    assert {"RTX6000-Ada", "Quadro-RTX6000"} <= {t for t, _ in links}


def test_the_model_field_keeps_its_links(client: TestClient) -> None:
    r = client.get("/advise?kind=serve&model=llama-3.1-8bx&sent=1")
    _, links = field_error(r.text, "model")
    assert links[0][0] == "llama-3.1-8b" and links[0][1]["kind"] == ["serve"]
    assert r.text.count('id="err-model"') == 1


def options(html: str, name: str) -> list[str]:
    m = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert m
    return re.findall(r'<option value="([^"]*)"', m.group(1))


def test_training_forms_offer_the_formats_training_accepts(client: TestClient) -> None:
    finetune = options(client.get("/advise?kind=finetune&model=llama-3.1-8b").text, "precision")
    assert finetune == list(PRECISIONS)  # the training estimator's list, bf16 (the default) first
    pretrain = options(client.get("/advise?kind=pretrain&model=llama-3.1-8b").text, "precision")
    assert pretrain == [p for p in PRECISIONS if p != "int8"]  # "int8 weights cannot be trained"
    serve = options(client.get("/advise?kind=serve&model=llama-3.1-8b").text, "precision")
    assert {"int4", "nf4", "mxfp4", "gguf-q4_k_m"} <= set(serve)  # inference keeps its formats
    labels = dict(advise_form.training_precision_choices("finetune"))
    assert labels["int8"] == "int8 · lora, qlora only" and labels["bf16"] == "bf16"


def test_every_training_choice_is_one_the_workload_runs_with(client: TestClient) -> None:
    for value, _ in advise_form.training_precision_choices("pretrain"):
        r = client.get(f"/advise?kind=pretrain&model=llama-3.1-8b&token_budget=1e9&gpus=8&precision={value}")
        assert 'id="err-precision"' not in r.text, value
