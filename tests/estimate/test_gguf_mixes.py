"""GGUF mixes: the body bits ``precision.py`` carries are llama-quantize's per-tensor rules, which
reproduce the published file sizes (benchmarks/gguf_mix.py)."""

from __future__ import annotations

import pytest

import gpuscout
from gpuscout.estimate.precision import resolve_precision
from tests.conftest import REPO, load_benchmark

mix = load_benchmark("gguf_mix")
PUBLISHED_70B = mix.published_sizes(REPO / "benchmarks" / "data" / "measurements.csv")


def test_the_calibration_csv_publishes_ten_llama3_70b_sizes() -> None:
    assert set(PUBLISHED_70B) == {
        "IQ2_XS", "Q2_K", "Q3_K_M", "IQ4_XS", "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K", "Q8_0", "F16",
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(set(PUBLISHED_70B) - {"F16"}))
def test_the_rules_give_each_published_llama3_70b_file_size(name: str) -> None:
    _, size_gib = mix.derive(name)
    assert size_gib == pytest.approx(PUBLISHED_70B[name], rel=0.001)


@pytest.mark.parametrize("name", sorted(set(mix.QUANTIZE_HELP_8B) - {"Q2_K_S"}))
def test_the_rules_give_llama_quantize_help_sizes_for_llama3_8b(name: str) -> None:
    # Q2_K_S is left out: the help text repeats Q2_K's 2.96G for it, while its rules (ffn_down Q4_K in
    # the first eighth only, attn_output at the base type) make a smaller file
    _, size_gib = mix.derive(name, mix.LLAMA3_8B)
    assert size_gib == pytest.approx(mix.QUANTIZE_HELP_8B[name], rel=0.004)


def test_the_70b_size_class_widens_attn_v_only_on_80_layers() -> None:
    assert mix.tensor_type("Q4_K_S", "v", 10, 80, size_70b=True) == "Q5_K"
    assert mix.tensor_type("Q4_K_S", "v", 10, 32, size_70b=False) == "Q4_K"


@pytest.mark.parametrize("name", sorted(mix.BASE_TYPE))
def test_each_carried_mix_is_the_derivation(name: str) -> None:
    fmt = resolve_precision(f"gguf-{name.lower()}")
    body, _ = mix.derive(name)
    assert fmt.bits_per_weight == pytest.approx(body, abs=0.006)
    assert fmt.embedding_bits == mix.BLOCK_BITS[mix.embedding_type(name)]
    assert fmt.lm_head_bits == mix.BLOCK_BITS[mix.output_type(name)]
    assert fmt.gguf


def test_iq2_xs_llama3_70b_sizes_as_published() -> None:
    from gpuscout.estimate.memory import weights_bytes_total
    from gpuscout.knowledge.models import resolve_model

    size = weights_bytes_total(resolve_model("llama-3-70b"), resolve_precision("iq2_xs")) / (1 << 30)
    assert size == pytest.approx(PUBLISHED_70B["IQ2_XS"], rel=0.01)


def test_llama_quantize_aliases() -> None:
    assert resolve_precision("q4_k").name == "gguf-q4_k_m"
    assert resolve_precision("Q3_K").name == "gguf-q3_k_m"
    assert resolve_precision("GGUF IQ1_M").name == "gguf-iq1_m"


def test_an_i_quant_says_its_kernel_speed_is_not_measured() -> None:
    e = gpuscout.estimate("llama-3.1-70b", "RTX 4090", precision="iq2_xs", batch=1, context_in=1000)
    assert e.fits and e.decode_tokens_per_s > 0
    assert "IQ2_XS's codebook kernels" in e.assumptions["uncalibrated"]
    k = gpuscout.estimate("llama-3.1-8b", "RTX 4090", precision="q4_k_m", batch=1, context_in=1000)
    assert "uncalibrated" not in k.assumptions
