"""``diagnose`` sizes the precision as ``estimate`` takes it.

``gpuscout diagnose gpt-oss-120b --gpu H100 --precision mxfp4`` read 3.62 GB a step, every weight in
MXFP4, where ``estimate`` runs "mxfp4" on gpt-oss as its published checkpoint (mxfp4-moe: MXFP4 experts,
attention and lm_head bf16); "fp8" on DeepSeek-V3 is its block-scaled checkpoint there too.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import diagnose


def test_mxfp4_on_gpt_oss_is_its_checkpoint() -> None:
    d = diagnose("gpt-oss-120b", "H100", measured_tps=100, precision="mxfp4")
    est = estimate("gpt-oss-120b", "H100", precision="mxfp4", context_in=1023, context_out=1)
    assert d.precision == est.precision == "mxfp4-moe"
    same = diagnose("gpt-oss-120b", "H100", measured_tps=100, precision="mxfp4-moe")
    assert d.bytes_per_step == pytest.approx(same.bytes_per_step)
    assert d.bytes_per_step > 4.5e9  # 16-bit attention and lm_head; all MXFP4 was 3.62 GB
    assert d.expected_tps == pytest.approx(same.expected_tps)


def test_fp8_on_deepseek_v3_is_block_scaled() -> None:
    d = diagnose("deepseek-v3", "H200", measured_tps=20, precision="fp8", gpus=8)
    est = estimate("deepseek-v3", "H200", gpus=8, precision="fp8", context_in=1023, context_out=1)
    assert d.precision == est.precision == "fp8-block"


def test_the_kv_cache_read_is_the_estimates_dtype() -> None:
    # TensorRT-LLM keeps an FP8 cache beside FP8 weights: a step reads 1-byte KV elements
    d = diagnose(
        "llama-3.1-8b", "H100", measured_tps=100, precision="fp8", engine="tensorrt-llm", context=32768
    )
    est = estimate(
        "llama-3.1-8b", "H100", precision="fp8", engine="tensorrt-llm", context_in=1000, context_out=1
    )
    assert est.kv_dtype == "fp8"
    vllm = diagnose("llama-3.1-8b", "H100", measured_tps=100, precision="fp8", engine="vllm", context=32768)
    # 32 layers x 8 KV heads x 128 x 2 (K and V) x 32,768 tokens: 4.3 GB in bf16, half in fp8
    assert vllm.bytes_per_step - d.bytes_per_step == pytest.approx(2.15e9, rel=0.02)


def test_a_plain_precision_is_unchanged() -> None:
    d = diagnose("llama-3.1-8b", "H100", measured_tps=100)
    assert d.precision == "bf16"
