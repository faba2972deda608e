"""A GGUF quant of gpt-oss keeps the checkpoint's MXFP4 experts (stop 60).

gpt-oss ships its routed experts in MXFP4 (models.csv native_precision ``mxfp4-moe``); GGUF files of it keep
them in ggml's MXFP4 type at every quant level (the 2880-wide expert rows are no multiple of the 256 that
K-quant blocks need), the quant level applying to attention, router, embeddings and output only. gpuscout
re-quantized the experts: gpt-oss-120b Q8_0 was 115 GiB of weights ("does not fit" on an H100).
"""

from __future__ import annotations

import pytest

from gpuscout.estimate import estimate
from gpuscout.estimate.api import memory_needed
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.precision import resolve_precision
from gpuscout.knowledge.models import resolve_model

MXFP4_BITS = 4.25  # 4-bit e2m1 + one e8m0 scale per 32 weights


def _hand_weights_gb(model: str, quant_bits: float) -> float:
    """Weights on the GPU, counted by hand: every routed expert at MXFP4, the rest of the body and the output
    head at the quant level (llama.cpp keeps the token embedding in host memory)."""
    c = model_consts(resolve_model(model))
    experts = c.expert_params * c.num_experts * c.moe_layers
    return (experts * MXFP4_BITS + (c.dense_body + c.lm_head) * quant_bits) / 8.0 / 1e9


@pytest.mark.parametrize(
    ("model", "precision", "bits"),
    [
        ("gpt-oss-120b", "q8_0", 8.5),
        ("gpt-oss-20b", "q8_0", 8.5),
        ("gpt-oss-120b", "f16", 16.0),
    ],
)
def test_gguf_quant_of_gpt_oss_keeps_mxfp4_experts(model: str, precision: str, bits: float) -> None:
    need = memory_needed(model, "H100-SXM", precision=precision, context=8192)
    # 120b Q8_0: 114.7B experts x 4.25 bits = 60.9 GB, 0.97B body + 0.58B head x 8.5 bits = 1.6 GB
    assert need.memory.weights_gb == pytest.approx(_hand_weights_gb(model, bits), rel=0.005)
    assert need.fits
    assert "MoE experts 4.25 bits/weight" in need.assumptions["precision"]
    assert "keep its routed experts in MXFP4" in need.assumptions["precision"]


def test_gpt_oss_120b_q8_0_fits_one_h100_at_about_63_gb() -> None:
    need = memory_needed("gpt-oss-120b", "H100-SXM", precision="q8_0", context=8192)
    # the whole file, token embedding included: about 63 GB (the published Q8_0 files, recalled)
    assert 61.0 < need.memory.model_weights_gb < 65.0
    assert need.fits


def test_quant_level_only_moves_the_non_expert_weights() -> None:
    q8 = memory_needed("gpt-oss-120b", "H100-SXM", precision="q8_0", context=8192).memory.weights_gb
    q4 = memory_needed("gpt-oss-120b", "H100-SXM", precision="q4_k_m", context=8192).memory.weights_gb
    c = model_consts(resolve_model("gpt-oss-120b"))
    non_expert_q8 = (c.dense_body + c.lm_head) * 8.5 / 8.0 / 1e9
    # Q8_0 8.5 bits vs Q4_K_M 4.80 (body) / Q6_K 6.5625 (output): only the ~1.5B non-expert weights differ
    assert q8 - q4 == pytest.approx(
        (c.dense_body * (8.5 - 4.80) + c.lm_head * (8.5 - 6.5625)) / 8.0 / 1e9, rel=0.01
    )
    assert q8 - q4 < non_expert_q8


def test_decode_reads_the_mxfp4_expert_bytes() -> None:
    """Decode speed follows the same bytes: the quant level barely moves it (the experts dominate), and
    120b Q8_0 runs on one H100 (it was refused for memory)."""
    kw = {"gpu": "H100-SXM", "context_in": 1024, "context_out": 256}
    q8 = estimate("gpt-oss-20b", precision="q8_0", **kw)
    f16 = estimate("gpt-oss-20b", precision="f16", **kw)
    big = estimate("gpt-oss-120b", precision="q8_0", **kw)
    assert big.supported and big.decode_tokens_per_s > 0
    # F16 rest vs Q8_0 rest: 10.2 GB of experts either way, 1.6 vs 3.3 GB of the rest read per full pass
    assert 0.7 < f16.decode_tokens_per_s / q8.decode_tokens_per_s < 1.0


def test_other_checkpoints_are_requantized_whole() -> None:
    """Only a checkpoint format that names an experts type GGUF keeps (data: ``gguf_experts``)."""
    from gpuscout.estimate.precision import gguf_from_checkpoint  # new at stop 60

    q4 = resolve_precision("q4_k_m")
    for native in ("bf16", "fp8-block", "mxfp4", "int4"):
        assert gguf_from_checkpoint(q4, resolve_precision(native)) is q4
    kept = gguf_from_checkpoint(q4, resolve_precision("mxfp4-moe"))
    assert kept.body_bits(True) == MXFP4_BITS and kept.body_bits(False) == q4.bits_per_weight
    # a 16-bit-native MoE (Qwen3-30B-A3B) and DeepSeek-V3 (FP8 experts): the quant level everywhere
    for model in ("qwen3-30b-a3b", "deepseek-v3"):
        need = memory_needed(model, "H200-SXM", precision="q4_k_m", context=4096, gpus=8)
        assert "MoE experts" not in need.assumptions["precision"]


def test_diagnose_times_the_same_bytes_as_the_estimate() -> None:
    # diagnose's yardstick read the experts at Q8_0 (146 tokens/s) where the estimate reads them at MXFP4
    from gpuscout.estimate.diagnose import diagnose

    est = estimate("gpt-oss-20b", "H100", precision="q8_0")
    d = diagnose("gpt-oss-20b", "H100", measured_tps=150.0, precision="q8_0")
    assert est.tpot_ms is not None
    assert d.expected_tps == pytest.approx(1000.0 / est.tpot_ms, rel=0.02)
