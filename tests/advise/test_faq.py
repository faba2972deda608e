"""FAQ answers: computed from the model, the user's load and GPU, and the offers given (real estimator)."""

from __future__ import annotations

import pytest

from gpuscout.advise.faq import CLEAR_DIFFERENCE, compare_costs, faq
from gpuscout.errors import InvalidInputError
from tests.advise.helpers import NOW, offer

OFFERS = [
    offer("runpod", "RTX4090", 1, 0.69, spot=0.35, memory=24, instance="4090"),
    offer("runpod", "L40S", 1, 0.86, spot=0.4, memory=48, instance="l40s"),
    offer("lambda", "H100-SXM", 1, 2.49, instance="h100"),
    offer("lambda", "H100-SXM", 2, 4.98, instance="2xh100"),
    offer("vastai", "RTX3090", 2, 0.5, spot=0.2, memory=24, instance="2x3090"),
]


def test_four_answers_with_this_models_numbers_at_the_users_load() -> None:
    f = faq("llama-3.1-8b", OFFERS, now=NOW)
    assert f.model == "llama-3.1-8b"
    assert [a.key for a in f.answers] == ["vram", "card_class", "spot", "slow_generation"]
    vram = f.answers[0]
    assert vram.figures["bf16_gb"] > vram.figures["fp8_gb"] > vram.figures["int4_gb"]  # type: ignore[operator]
    assert vram.figures["kv_gb_per_user"] == pytest.approx(131072 * 4096 / 1e9, rel=1e-3)
    # bf16 weights of an 8B model, in GiB as GPU memory is sold: 8.03e9 x 2 B = 16.1e9 B = 15.0 GiB
    assert "weights 15 GiB" in vram.details[0]
    assert vram.offers and all(r.fits for r in vram.offers)
    # the user's context and concurrency change the answer: more users, more KV cache
    busy = faq("llama-3.1-8b", OFFERS, now=NOW, users=32, context=8192).answers[0]
    assert busy.figures["bf16_gb"] > vram.figures["bf16_gb"]  # type: ignore[operator]
    assert "32 users at 8,192 tokens" in busy.answer


def test_card_class_compares_fit_speed_fp8_fabric_and_cost_per_token() -> None:
    answer = faq("llama-3.1-8b", OFFERS, now=NOW).answers[1]
    assert answer.figures["hbm_card"] == "H100-SXM" and answer.figures["consumer_card"] == "RTX4090"
    assert answer.figures["bf16_80_gpus"] == 1 and answer.figures["bf16_consumer_gpus"] == 1
    hbm, consumer = answer.figures["bf16_80_tok_s_per_user"], answer.figures["bf16_consumer_tok_s_per_user"]
    assert hbm is not None and consumer is not None and hbm > consumer  # HBM bandwidth shows per user
    text = " ".join(answer.details)
    for needed in ("memory free", "tok/s per user", "TTFT", "FP8 tensor cores", "/M output tokens"):
        assert needed in text
    assert "per token" in answer.answer
    # a model that spans cards says which fabric joins them
    big = faq("llama-3.1-70b", OFFERS, now=NOW).answers[1]
    assert any("NVLink" in d for d in big.details) and any("PCIe only" in d for d in big.details)


def test_cost_verdicts_are_not_over_literal() -> None:
    assert "about the same" in compare_costs(0.298, 0.299, "consumer card", "80 GB card")
    assert "cheaper" in compare_costs(1.0, 1.0 / (1 - 2 * CLEAR_DIFFERENCE), "a", "b")
    assert compare_costs(1.0, 2.0, "a", "b").startswith("the a is 50% cheaper")
    # the cheaper side's price comes first, whichever argument it was
    assert compare_costs(1.24, 0.698, "80 GB card", "consumer card") == (
        "the consumer card is 44% cheaper per token ($0.698/M vs $1.24/M on the 80 GB card)"
    )


def test_spot_answer_prices_resumable_jobs_both_ways_and_keeps_endpoints_on_demand() -> None:
    spot = faq("llama-3.1-8b", OFFERS, now=NOW).answers[2]
    assert (
        spot.figures["finetune_spot_total"] is not None
        and spot.figures["finetune_on_demand_total"] is not None
    )
    assert spot.figures["finetune_spot_total"] < spot.figures["finetune_on_demand_total"]  # type: ignore[operator]
    assert "on-demand" in spot.answer and "LoRA" in spot.answer
    assert any(r.config.spot for r in spot.offers)
    assert any("always-on endpoint" in d for d in spot.details)
    assert any("batch generation" in d for d in spot.details)


def test_slow_generation_is_explained_on_the_users_gpu() -> None:
    slow = faq("llama-3.1-8b", OFFERS, now=NOW, gpu="A10G").answers[3]
    assert slow.figures["gpu"] == "A10G" and "A10G" in slow.question
    assert slow.figures["compute_utilisation"] < 0.05  # type: ignore[operator]
    assert slow.figures["batch1_tok_s"] <= slow.figures["bandwidth_ceiling_tok_s"]  # type: ignore[operator]
    assert slow.figures["batched_users"] > 1  # type: ignore[operator]
    assert slow.figures["batched_tok_s_total"] > 3 * slow.figures["batch1_tok_s"]  # type: ignore[operator]
    assert slow.figures["int4_tok_s"] > slow.figures["batch1_tok_s"]  # type: ignore[operator]
    assert slow.figures["hbm_tok_s"] > slow.figures["batch1_tok_s"]  # type: ignore[operator]
    assert "memory bandwidth" in slow.answer


def test_slow_generation_says_what_each_step_goes_to_when_it_is_not_the_memory() -> None:
    # Qwen3-30B-A3B in bf16 spans 4 RTX 4090s: one user reads ~6.7 GB a token, which their 4 TB/s would
    # stream 600 times a second, but each ~10 ms step spends about as long on its all-reduces over PCIe
    # and on fixed costs as on the reads: "set by memory bandwidth" and "a card with faster (HBM)
    # memory" were the wrong diagnosis and the wrong advice
    slow = faq("qwen3-30b-a3b", OFFERS, now=NOW, gpu="RTX4090", context=1024).answers[3]
    assert slow.figures["gpus"] == 4 and slow.figures["binding"] == "split"
    assert slow.figures["batch1_tok_s"] < 0.5 * slow.figures["bandwidth_ceiling_tok_s"]  # type: ignore[operator]
    assert "no one cost sets the pace" in slow.answer
    assert "all-reduces" in slow.answer and "reads" in slow.answer and "fixed costs" in slow.answer
    assert "set by memory bandwidth" not in slow.answer and "HBM" not in slow.answer
    assert "each step" in slow.details[0] and "all-reduces" in slow.details[0]
    # where the reads do set it, the answer says so
    a10g = faq("llama-3.1-8b", OFFERS, now=NOW, gpu="A10G").answers[3]
    assert a10g.figures["binding"] == "bandwidth" and "set by memory bandwidth" in a10g.answer


def test_a_step_is_split_only_when_no_part_takes_half_of_it() -> None:
    from gpuscout.advise.faq import _slow_cause, _split_step

    even = {"total": 10.1, "memory": 3.4, "compute": 0.4, "interconnect": 3.5, "fixed": 3.3}
    assert _split_step(even) == "all-reduces take 3.5 ms, reads 3.4 and fixed costs 3.3"
    assert _split_step({"total": 8.0, "memory": 7.0, "compute": 0.5, "interconnect": 0.0, "fixed": 0.6}) == ""
    assert _split_step({}) == ""
    cause, helps = _slow_cause("interconnect", 4)
    assert "all-reduces between the 4 cards" in cause and "NVLink" in helps
    assert "CUDA graphs" in _slow_cause("overhead", 1)[1]


def test_moe_streams_only_the_active_experts() -> None:
    slow = faq("mixtral-8x7b", OFFERS, now=NOW, gpu="H100").answers[3]
    assert "active experts" in slow.details[0]


def test_bad_inputs_are_refused_naming_the_field() -> None:
    with pytest.raises(InvalidInputError) as exc:
        faq("sdxl", OFFERS, now=NOW)
    assert exc.value.field == "model" and "recommend batch" in str(exc.value)
    with pytest.raises(InvalidInputError) as ctx:
        faq("llama-2-7b", OFFERS, now=NOW, context=8192)  # a 4k-context model
    assert ctx.value.field == "context"
    with pytest.raises(InvalidInputError):
        faq("llama-3.1-8b", OFFERS, now=NOW, users=0)


def test_a_natively_quantized_model_is_answered_in_its_own_format() -> None:
    """gpt-oss ships MXFP4 experts: the FAQ sizes and times it so unless told otherwise."""
    f = faq("gpt-oss-120b", OFFERS, now=NOW)
    assert "at mxfp4" in f.summary
    vram = f.answers[0]
    assert vram.details[0].startswith("mxfp4")
    assert float(vram.figures["mxfp4-moe_gb"] or 0) < 80  # one 80 GB card holds it
    assert "at bf16" in faq("gpt-oss-120b", OFFERS, now=NOW, precision="bf16").summary


def test_vram_and_card_answers_hold_every_users_cache_at_once() -> None:
    # 64 users x 32,768 tokens of Llama-3.1-70B: 80 layers x 8 KV heads x 128 x (K + V) x 2 B = 320 KiB
    # a token, 687 GB of cache. The answers used to take an estimate's memory, capped at what one card's
    # cache holds (one sequence): "155 GB ... KV cache 11 GB for 64 users", and "fits on 4 H100s" with a
    # TTFT of 11 minutes of queueing
    f = faq("llama-3.1-70b", OFFERS, now=NOW, users=64, context=32768)
    vram, cards = f.answers[0], f.answers[1]
    kv = 64 * 32768 * 80 * 8 * 128 * 2 * 2 / 1e9
    assert vram.figures["bf16_gb"] == pytest.approx(141.1 + kv + 3.5, abs=3.0)  # type: ignore[arg-type]
    assert "KV cache 640 GiB for 64 x 32,768 tokens" in vram.details[0]  # 64 x 32,768 x 320 KiB
    # 832 GB over 8 x 80 GB is still 104 GB a card: no count up to 8 holds all 64 users at bf16
    assert cards.figures["bf16_80_gpus"] is None
    assert any("does not hold it at bf16 for 64 users, even on 8" in d for d in cards.details)


def test_a_model_shorter_than_the_usual_context_is_answered_at_its_own() -> None:
    # Falcon-40B (and MPT, Qwen-14B, GPT-3, Phi-1.5) hold 2,048 tokens: the FAQ asked for 4,096, which
    # no field of the web page could change, so every question failed with "4,096 tokens exceed
    # falcon-40b's context of 2,048"
    f = faq("falcon-40b", OFFERS, now=NOW)
    assert f.context == 2048 and len(f.answers) == 4
    assert "8 users x 2,048 tokens (falcon-40b's whole context; the usual 4,096 is longer)" in f.summary
    assert "KV cache" in f.answers[0].details[0] and "8 x 2,048 tokens" in f.answers[0].details[0]
    # a model that holds the usual context is asked it, and says nothing about shortening
    usual = faq("llama-3.1-8b", OFFERS, now=NOW)
    assert usual.context == 4096 and "whole context" not in usual.summary
    # a context the user asks for is never shortened: too long is still an error at the field
    with pytest.raises(InvalidInputError) as exc:
        faq("falcon-40b", OFFERS, now=NOW, context=4096)
    assert exc.value.field == "context" and "2,048" in str(exc.value)


def test_the_cli_faq_answers_a_2k_context_model() -> None:
    from typer.testing import CliRunner

    from gpuscout.cli import app

    result = CliRunner().invoke(app, ["faq", "falcon-40b", "--json"])
    assert result.exit_code == 0, result.output
    assert '"context": 2048' in result.output and "whole context" in result.output


def test_the_80_gb_class_is_80_gb_cards_only() -> None:
    # a 94 GB H100-NVL was cited as "the cheapest 80 GB HBM offer" (a 70B model on 2 of them, after the
    # answer said the 80 GB card needs 4)
    nvl = offer("lambda", "H100-NVL", 2, 1.0, memory=94, instance="2xnvl")
    f = faq("llama-3.1-70b", [*OFFERS, nvl], now=NOW)
    cards = f.answers[1]
    assert all(r.offer.accelerator != "H100-NVL" for r in cards.offers)
    assert not any("H100-NVL" in d for d in cards.details if "cheapest 80 GiB HBM offer" in d)


def test_speeds_say_the_load_they_are_at() -> None:
    # the card answer gives tok/s per user at the user's load, the slow answer for one user: "17 tok/s
    # per user" and "44 tok/s per user" for the same setup read as a contradiction
    f = faq("llama-3.1-70b", OFFERS, now=NOW)
    cards, slow = f.answers[1], f.answers[3]
    assert all("with 8 users at once" in d for d in cards.details if "tok/s" in d and "card (" in d)
    speeds = [d for d in slow.details if "tok/s" in d and "batched" not in d]
    assert speeds and all("for one user" in d or d.startswith("one user") for d in speeds)
    assert not any("tok/s per user" in d for d in slow.details)


def test_the_offer_count_is_the_current_offers_as_the_banner_counts_them() -> None:
    # the summary counted the stale offers as well ("736 offers" under a banner of 643 current and 93
    # stale), though the advisor leaves the stale ones out
    stale = offer("oldcloud", "H100-SXM", 1, 0.5, stale=True, instance="old")
    f = faq("llama-3.1-8b", [*OFFERS, stale], now=NOW)
    assert f"from the catalog's {len(OFFERS)} current offers" in f.summary
    assert "the 1 flagged stale are left out" in f.summary
    assert "flagged stale" not in faq("llama-3.1-8b", OFFERS, now=NOW).summary


def test_an_hbm_card_is_advised_only_where_its_own_figure_is_faster() -> None:
    # 70B in bf16 on 8 RTX 4090s (8.1 TB/s together) decodes as fast as on the 2 H100s that hold it
    # (6.7 TB/s): the answer advised "a card with faster (HBM) memory" beside its own equal figures
    # (stop 62: nor "an HBM card would not help here": 8 H100s, as many as the 4090s, are ~3x as fast;
    # the answer now advises as many HBM cards, with both figures, tests/advise/test_s62_faq_like_for_like)
    slow = faq("llama-3.1-70b", OFFERS, now=NOW).answers[3]
    assert slow.figures["hbm_tok_s"] < 1.2 * slow.figures["batch1_tok_s"]  # type: ignore[operator]
    assert "faster (HBM) memory" not in slow.answer and "would not help" not in slow.answer
    # one A10G against an H100: the HBM card is faster, and advised
    a10g = faq("llama-3.1-8b", OFFERS, now=NOW, gpu="A10G").answers[3]
    assert "a card with faster (HBM) memory" in a10g.answer
