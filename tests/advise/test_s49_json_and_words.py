"""Stop 49 renter review: the advisor's words on a layer split's decode step, an AMD target and the FAQ's
card classes, and strict JSON from the advisor's web API where rows are rejected."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gpuscout.advise.faq import _split_step, faq
from gpuscout.estimate.api import estimate
from gpuscout.estimate.types import step_parts
from tests.advise.helpers import NOW
from tests.advise.test_faq import OFFERS
from tests.advise.web_helpers import web_client, web_offer


def _strict(constant: str) -> object:
    raise ValueError(f"not JSON: {constant}")


def test_a_layer_splits_decode_step_says_hand_offs_not_all_reduces() -> None:
    # "all-reduces 0.3" on a llama.cpp layer split: a layer split hands activations on, it never all-reduces
    layer = estimate("llama-3.1-70b", "RTX-4090", gpus=6, engine="llama.cpp", concurrency=1)
    assert layer.parallel == "layer" and layer.step_ms.get("interconnect", 0.0) >= 0.05
    assert "hand-offs between GPUs" in layer.step_summary()
    assert "all-reduce" not in layer.step_summary()
    tensor = estimate("llama-3.1-70b", "H100-SXM", gpus=4, concurrency=1)
    assert tensor.parallel == "tensor" and "all-reduces" in tensor.step_summary()
    assert "hand-offs" not in tensor.step_summary()


def test_the_faq_names_the_step_parts_by_the_split() -> None:
    even = {"total": 10.0, "memory": 3.4, "compute": 0.2, "interconnect": 3.5, "fixed": 3.3}
    assert _split_step(even, "layer") == "hand-offs between GPUs take 3.5 ms, reads 3.4 and fixed costs 3.3"
    assert _split_step(even) == "all-reduces take 3.5 ms, reads 3.4 and fixed costs 3.3"
    assert dict(step_parts("replicas"))["interconnect"] == "all-reduces"  # each replica's own tensor split


def test_the_faqs_card_classes_are_said_in_gib() -> None:
    # "80 GB HBM card (H100-SXM, 80 GiB HBM3, ...)": two units for one card in one phrase
    cards = faq("llama-3.1-8b", OFFERS, now=NOW, precision="int4").answers[1]
    text = " ".join([cards.question, cards.answer, *cards.details])
    assert "80 GiB HBM card (H100-SXM, 80 GiB" in text
    assert not re.search(r"\b(80|24) GB\b", text), text


def test_the_advise_api_writes_rejected_rows_as_strict_json_and_an_amd_target_without_cc(
    tmp_path: Path,
) -> None:
    offers = [
        web_offer("mi300x8", "MI300X", 192, 20.0, gpus=8),
        web_offer("h100x8", "H100-SXM", 80, 24.0, gpus=8),
    ]
    workload = {"kind": "serve", "model": "llama-3.1-70b", "engine": "tensorrt-llm", "concurrency": 8}
    with web_client(tmp_path, offers) as client:
        answer = client.post("/api/v1/advise", json={"workload": workload, "show_rejected": True})
    assert answer.status_code == 200, answer.text
    body = json.loads(answer.text, parse_constant=_strict)  # no Infinity / NaN anywhere
    amd = [r["rejected"] for r in body["rejected"] if r["offer"]["accelerator"] == "MI300X"]
    assert amd and all("MI300X (gfx942)" in why for why in amd), amd
    assert not any("CC gfx" in why for why in amd)  # "CC" is NVIDIA's compute capability
