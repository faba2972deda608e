"""Where a fitted figure rests on a narrow set of rows (one GPU, one past release), the estimate says so
where that figure applies, and only there."""

from __future__ import annotations

from gpuscout.estimate import precision
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import engine_names, resolve_engine

KNOWN_KEYS = {
    v for k, v in vars(precision).items() if k.startswith(("CLASS_", "KERNEL_")) and isinstance(v, str)
} | {"moe"}


def test_every_basis_key_is_an_efficiency_key_or_moe() -> None:
    for name in engine_names():
        assert set(resolve_engine(name).calibration_basis) <= KNOWN_KEYS, name


def test_sglang_block_fp8_moe_says_its_figures_come_from_the_h20_and_early_2025() -> None:
    e = estimate("deepseek-v3", gpu="B200", gpus=8, engine="sglang", concurrency=64)
    assert e.precision == "fp8-block"
    text = e.assumptions["calibration_basis"]
    assert "block-FP8" in text and "H20" in text and "0.4.2-0.4.3" in text
    assert "MoE constants" in text
    # the variant keeps the note (it runs the same kernels)
    dp = estimate("deepseek-v3", gpu="H200", gpus=8, engine="sglang --enable-dp-attention")
    assert (
        dp.assumptions["calibration_basis"]
        == estimate("deepseek-v3", gpu="H200", gpus=8, engine="sglang").assumptions["calibration_basis"]
    )


def test_a_16_bit_moe_model_gets_only_the_moe_note() -> None:
    text = estimate("qwen3-30b-a3b", gpu="H100", engine="sglang").assumptions["calibration_basis"]
    assert "MoE constants" in text and "block-FP8" not in text


def test_a_dense_16_bit_model_or_another_engine_gets_none() -> None:
    assert "calibration_basis" not in estimate("llama-3.1-8b", gpu="H100", engine="sglang").assumptions
    assert "calibration_basis" not in estimate("deepseek-v3", gpu="B200", gpus=8, engine="vllm").assumptions
