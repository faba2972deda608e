"""The FAQ answers a quantized checkpoint's name in the format the name says, as ``estimate`` and the
advisor do, and compares it only with formats of another width (stop 55)."""

from __future__ import annotations

import pytest

from gpuscout.advise.faq import distinct_widths, faq
from tests.advise.helpers import NOW
from tests.advise.test_faq import OFFERS


def test_an_awq_checkpoint_is_sized_and_timed_as_awq() -> None:
    f = faq("Qwen/Qwen3-8B-AWQ", OFFERS, now=NOW)
    assert "at awq" in f.summary  # was "at bf16": the original's weights, 2.6x the AWQ file's
    vram = f.answers[0]
    assert vram.details[0].startswith("awq:")
    # 8.2B parameters at ~4 bits: well under the bf16 original's 15 GiB
    assert float(vram.figures["awq_gb"] or 0) < float(vram.figures["bf16_gb"] or 0) * 0.7
    # the same width is not listed twice ("13 GiB at awq and 13 GiB at int4")
    assert "int4_gb" not in vram.figures
    assert "at int4" not in vram.answer


def test_a_gguf_repo_is_answered_in_its_q4_k_m_file() -> None:
    f = faq("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", OFFERS, now=NOW)
    assert "at gguf-q4_k_m" in f.summary


def test_a_stated_precision_still_wins_over_the_name() -> None:
    assert "at bf16" in faq("Qwen/Qwen3-8B-AWQ", OFFERS, now=NOW, precision="bf16").summary


def test_a_plain_name_keeps_all_three_widths() -> None:
    vram = faq("llama-3.1-8b", OFFERS, now=NOW).answers[0]
    assert {"bf16_gb", "fp8_gb", "int4_gb"} <= set(vram.figures)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        (("awq", "bf16", "fp8", "int4"), ("awq", "bf16", "fp8")),
        (("fp8-block", "bf16", "fp8", "int4"), ("fp8-block", "bf16", "int4")),
        (("mxfp4-moe", "int4"), ("mxfp4-moe",)),
        (("bf16", "bf16", "int4"), ("bf16", "int4")),
        (("gguf-q8_0", "fp8"), ("gguf-q8_0",)),
        (("fp32", "bf16", "fp8", "int4"), ("fp32", "bf16", "fp8", "int4")),  # fp32 is not 16-bit
        (("gguf-q5_k_m", "bf16", "fp8", "int4"), ("gguf-q5_k_m", "bf16", "fp8", "int4")),  # 5.7 bits
        (("gguf-q4_k_m", "int4"), ("gguf-q4_k_m",)),
    ],
)
def test_one_format_per_width_the_first_stays(given: tuple[str, ...], kept: tuple[str, ...]) -> None:
    assert distinct_widths(given) == kept
