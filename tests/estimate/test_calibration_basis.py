"""Where a fitted figure rests on a narrow set of rows (one GPU, one past release), the estimate says so
where that figure applies, and only there."""

from __future__ import annotations

from gpuscout.estimate import precision
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import engine_names, resolve_engine

KNOWN_KEYS = {
    v for k, v in vars(precision).items() if k.startswith(("CLASS_", "KERNEL_")) and isinstance(v, str)
} | {"moe", "host"}


def test_every_basis_key_is_an_efficiency_key_moe_or_host() -> None:
    for name in engine_names():
        assert set(resolve_engine(name).calibration_basis) <= KNOWN_KEYS, name


def test_sglang_block_fp8_moe_says_its_figures_come_from_the_h20_and_early_2025() -> None:
    e = estimate("deepseek-v3", gpu="B200", gpus=8, engine="sglang", concurrency=64)
    assert e.precision == "fp8-block"
    text = e.assumptions["calibration_basis"]
    assert "block-FP8" in text and "H20" in text and "0.4.2-0.4.3" in text
    assert "MoE constants" in text
    # the variant keeps the note (it runs the same kernels)
    dp = estimate("deepseek-v3", gpu="H200", gpus=8, engine="sglang --enable-dp-attention", concurrency=64)
    plain = estimate("deepseek-v3", gpu="H200", gpus=8, engine="sglang", concurrency=64)
    assert dp.binding_limit == plain.binding_limit == "bandwidth"
    assert dp.assumptions["calibration_basis"] == plain.assumptions["calibration_basis"]


def test_a_16_bit_moe_model_gets_only_the_moe_note() -> None:
    text = estimate("qwen3-30b-a3b", gpu="H100", engine="sglang").assumptions["calibration_basis"]
    assert "MoE constants" in text and "block-FP8" not in text


def test_sglang_says_where_its_host_step_binds_and_what_it_rests_on() -> None:
    """A 1B model at batch 1 is host-bound under SGLang: the step cost that sets its speed rests on one
    release's runs on one H20 host, and the estimate says so; a 70B over four GPUs is not host-bound."""
    small = estimate("llama-3.2-1b", gpu="H100", engine="sglang", batch=1)
    assert small.binding_limit == "overhead"
    assert "host time per step" in small.assumptions["calibration_basis"]
    big = estimate("llama-3.1-70b", gpu="H100", gpus=4, engine="sglang", batch=1)
    assert big.binding_limit != "overhead" and "calibration_basis" not in big.assumptions


def test_a_dense_16_bit_model_or_another_engine_gets_none() -> None:
    assert "calibration_basis" not in estimate("llama-3.1-8b", gpu="H100", engine="sglang").assumptions
    assert "calibration_basis" not in estimate("deepseek-v3", gpu="B200", gpus=8, engine="vllm").assumptions
