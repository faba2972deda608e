"""The FAQ's figures are the estimator's own for the same inputs.

``faq gemma-3-27b`` said "KV cache 6.2 GB for 8 x 4,096 tokens" beside "every extra user ... adds
2.08 GB": the per-user figure was bytes/token x context, every layer keeping every token, where 52 of
Gemma 3's 62 layers keep only their 1,024-token window (gpt-oss: 1.2 GB for 8 beside 0.30 GB a user).
``faq gpt-oss-120b`` said each token "streams ~3.2 GB ... caps it near 1265 tok/s": the active
parameters' share of the MXFP4 weights, where the active set is mostly bf16 (attention, lm_head) and
the estimator reads ~5 GB a step.
"""

from __future__ import annotations

import pytest

from gpuscout.advise.faq import _gb, faq
from gpuscout.estimate.api import estimate, memory_needed
from gpuscout.estimate.diagnose import diagnose
from gpuscout.estimate.memory import gib
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.advise.helpers import NOW, offer

OFFERS = [
    offer("runpod", "RTX4090", 1, 0.69, spot=0.35, memory=24, instance="4090"),
    offer("lambda", "H100-SXM", 1, 2.49, instance="h100"),
    offer("lambda", "H100-SXM", 2, 4.98, instance="2xh100"),
]


@pytest.mark.parametrize(
    ("model", "precision", "per_user"),
    [
        # 10 full layers x 4,096 tokens + 52 sliding x 1,024, 16 KV heads x 128 x (K + V) x 2 B
        ("gemma-3-27b", "bf16", (10 * 4096 + 52 * 1024) * 16 * 128 * 2 * 2 / 1e9),
        # 18 full layers x 4,096 + 18 sliding x 128, 8 KV heads x 64 x (K + V) x 2 B
        ("gpt-oss-120b", "mxfp4-moe", (18 * 4096 + 18 * 128) * 8 * 64 * 2 * 2 / 1e9),
        ("llama-3.1-8b", "bf16", 131072 * 4096 / 1e9),  # no window: bytes/token x context
    ],
)
def test_each_users_cache_is_the_estimators_total_over_the_users(
    model: str, precision: str, per_user: float
) -> None:
    vram = faq(model, OFFERS, now=NOW).answers[0]
    figure = vram.figures["kv_gb_per_user"]
    assert figure == pytest.approx(per_user, rel=0.01)  # (the figure is rounded to 1 MB)
    # the same inputs through the estimator: 8 users of 4,096 tokens on one H100, and one user more
    eight = memory_needed(model, "H100-SXM", gpus=1, precision=precision, batch=8, context=4096)
    nine = memory_needed(model, "H100-SXM", gpus=1, precision=precision, batch=9, context=4096)
    assert figure == pytest.approx(eight.memory.kv_cache_gb / 8, abs=5e-4)
    assert figure == pytest.approx(nine.memory.kv_cache_gb - eight.memory.kv_cache_gb, abs=5e-4)
    assert f"adds {gib(figure):.2f} GiB of KV cache" in vram.answer  # said in GiB, as GPU memory is sold


@pytest.mark.parametrize(
    ("model", "gpu", "low", "high"),
    [
        # MXFP4 experts 1.9 GB + bf16 attention 1.9 GB + bf16 lm_head 1.2 GB + the cache: ~5.1 GB
        ("gpt-oss-120b", "H100", 4.7, 5.5),
        # 8B in bf16 less its 1.05 GB input embedding (a row lookup), with a 0.5 GB cache
        ("llama-3.1-8b", "A10G", 15.0, 15.6),
        # Mixtral: 2 of 8 experts a token, ~12.9 B active in bf16
        ("mixtral-8x7b", "H100", 25.0, 27.0),
    ],
)
def test_the_bytes_each_token_streams_are_the_estimators(
    model: str, gpu: str, low: float, high: float
) -> None:
    slow = faq(model, OFFERS, now=NOW, gpu=gpu).answers[3]
    gpus, precision = slow.figures["gpus"], slow.figures["precision"]
    assert isinstance(gpus, int) and isinstance(precision, str)
    e1 = estimate(model, gpu, gpus=gpus, precision=precision, batch=1, context_in=3584, context_out=512)
    assert slow.figures["batch1_tok_s"] == pytest.approx(e1.decode_tokens_per_s, abs=0.05)
    d = diagnose(
        model, gpu, measured_tps=1.0, precision=e1.precision, batch=1, engine=e1.engine, gpus=gpus,
        context=4096,
    )  # fmt: skip
    streamed = slow.figures["streamed_gb_per_token"]
    assert isinstance(streamed, float) and low < streamed < high
    assert streamed == pytest.approx(d.bytes_per_step * gpus / 1e9, abs=5e-4)  # tensor parallel
    bandwidth = resolve_gpu(gpu).bandwidth_gbps * 1e9
    assert slow.figures["bandwidth_ceiling_tok_s"] == pytest.approx(bandwidth / d.bytes_per_step, abs=0.05)
    assert f"each token streams ~{_gb(streamed)}" in slow.details[0] or (
        f"each token streams {_gb(streamed)}" in slow.details[0]
    )


def test_gpt_oss_on_four_consumer_cards_is_capped_near_800_not_1265() -> None:
    slow = faq("gpt-oss-120b", OFFERS, now=NOW).answers[3]
    assert slow.figures["gpus"] == 4 and slow.figures["gpu"] == "RTX4090"
    ceiling = slow.figures["bandwidth_ceiling_tok_s"]
    assert isinstance(ceiling, float) and 700 < ceiling < 850
    assert f"~{ceiling:.0f} tok/s" in slow.answer


def test_a_layer_split_streams_the_whole_step_through_one_card_at_a_time() -> None:
    # llama.cpp splits Llama-3.1-70B Q4_K_M over 2 RTX 4090s by layers: the cards take turns, so one
    # card's 1 TB/s streams the whole ~43 GB a token (the ceiling said 2 TB/s: twice the speed)
    slow = faq("llama-3.1-70b", OFFERS, now=NOW, precision="q4_k_m").answers[3]
    assert slow.figures["gpus"] == 2
    d = diagnose(
        "llama-3.1-70b", "RTX4090", measured_tps=1.0, precision="gguf-q4_k_m", batch=1,
        engine="llama.cpp", gpus=2, context=4096,
    )  # fmt: skip
    assert slow.figures["streamed_gb_per_token"] == pytest.approx(d.bytes_per_step / 1e9, abs=5e-4)
    bandwidth = resolve_gpu("RTX4090").bandwidth_gbps * 1e9
    assert slow.figures["bandwidth_ceiling_tok_s"] == pytest.approx(bandwidth / d.bytes_per_step, abs=0.05)
    assert "the 2 cards take turns" in slow.details[0]


def test_gpt_oss_tensor_share_is_of_the_16bit_peak() -> None:
    """gpt-oss multiplies bf16 activations (its MXFP4 experts W4A16, the rest bf16): the FAQ's share of
    the tensor peak is of the 16-bit peak, not of a B200's FP4 one (which made it look 4x idle)."""
    from gpuscout.advise.faq import _compute_class

    assert _compute_class("mxfp4-moe") == "bf16"
    assert _compute_class("nvfp4") == "fp4"  # a W4A4 checkpoint keeps the FP4 rate
    assert _compute_class("fp8") == "fp8"
