"""FAQ answers: computed from the model and the offers given (real estimator), typed for the web page."""

from __future__ import annotations

import pytest

from gpuscout.advise.faq import faq
from gpuscout.errors import InvalidInputError
from tests.advise.helpers import NOW, offer

OFFERS = [
    offer("runpod", "RTX4090", 1, 0.69, spot=0.35, memory=24, instance="4090"),
    offer("runpod", "L40S", 1, 0.86, spot=0.4, memory=48, instance="l40s"),
    offer("lambda", "H100-SXM", 1, 2.49, instance="h100"),
    offer("lambda", "H100-SXM", 2, 4.98, instance="2xh100"),
    offer("vastai", "RTX3090", 2, 0.5, spot=0.2, memory=24, instance="2x3090"),
]


def test_four_answers_with_this_models_numbers() -> None:
    f = faq("llama-3.1-8b", OFFERS, now=NOW)
    assert f.model == "llama-3.1-8b"
    assert [a.key for a in f.answers] == ["vram", "spot", "card_class", "slow_generation"]
    vram = f.answers[0]
    assert vram.figures["bf16_gb"] > vram.figures["fp8_gb"] > vram.figures["int4_gb"]  # type: ignore[operator]
    assert vram.figures["kv_gb_per_user_4k"] == pytest.approx(131072 * 4096 / 1e9, rel=1e-3)
    assert "16 GB" in vram.details[0] or "17 GB" in vram.details[0]  # bf16 weights of an 8B model
    assert vram.offers and all(r.fits for r in vram.offers)


def test_spot_answer_prices_both_and_keeps_endpoints_on_demand() -> None:
    spot = faq("llama-3.1-8b", OFFERS, now=NOW).answers[1]
    assert spot.figures["spot_total"] is not None and spot.figures["on_demand_total"] is not None
    assert spot.figures["spot_total"] < spot.figures["on_demand_total"]  # type: ignore[operator]
    assert "on-demand" in spot.answer and "LoRA" in spot.answer
    assert any(r.config.spot for r in spot.offers)


def test_card_class_compares_the_classes_on_cost_per_token() -> None:
    answer = faq("llama-3.1-8b", OFFERS, now=NOW).answers[2]
    assert answer.figures["bf16_80_usd_per_m"] is not None
    assert answer.figures["bf16_consumer_usd_per_m"] is not None
    assert "cheaper per token" in answer.answer


def test_slow_generation_is_explained_with_the_bandwidth_ceiling() -> None:
    slow = faq("llama-3.1-8b", OFFERS, now=NOW).answers[3]
    assert slow.figures["reference_gpu"] == "H100-SXM"
    assert slow.figures["compute_utilisation"] < 0.05  # type: ignore[operator]
    assert slow.figures["batch32_tok_s_total"] > 10 * slow.figures["batch1_tok_s"]  # type: ignore[operator]
    assert slow.figures["int4_tok_s"] > slow.figures["batch1_tok_s"]  # type: ignore[operator]
    assert "memory bandwidth" in slow.answer


def test_moe_streams_only_the_active_experts() -> None:
    slow = faq("mixtral-8x7b", OFFERS, now=NOW).answers[3]
    assert "active experts" in slow.details[0]


def test_non_language_model_is_refused_with_a_hint() -> None:
    with pytest.raises(InvalidInputError) as exc:
        faq("sdxl", OFFERS, now=NOW)
    assert exc.value.field == "model" and "recommend batch" in str(exc.value)
