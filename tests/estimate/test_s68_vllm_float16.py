"""vLLM refuses float16 for Gemma 2 / Gemma 3 (and GLM-4) from 0.9.1 (stop 68; read in the sdists on PyPI,
``_FLOAT16_NOT_SUPPORTED_MODELS``; see ``gpuscout.knowledge.float16_refusals``).

So on a GPU without bfloat16 (T4, compute capability 7.5) ``--dtype auto`` loads Gemma in float32, not in
float16 as it does every other bf16 model: 4-byte weights, a float32 KV cache. Hand check, Gemma 3 1B on one
T4: 999,885,952 weights x 4 bytes = 4.00 GB (float16 would be 2.00 GB). An explicit float16 is refused on
every GPU, and a quantized Gemma checkpoint on a T4 (AWQ, GPTQ, FP8 kernels take float16 / bfloat16
activations only) too.
"""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.errors import ConfigurationRejected
from gpuscout.knowledge.float16_refusals import float16_refusal
from gpuscout.knowledge.models import resolve_model
from gpuscout.knowledge.params import count_params


def test_gemma_on_a_t4_runs_in_float32_under_vllm() -> None:
    est = estimate("gemma-3-1b", "T4", engine="vllm")
    assert est.supported and est.precision == "fp32" and est.kv_dtype == "fp32"
    weights = count_params(resolve_model("gemma-3-1b")).total * 4 / 1e9
    assert est.memory.weights_gb == pytest.approx(weights, rel=0.01)
    assert any("runs as fp32" in w and "Numerical instability" in w for w in est.warnings)
    # another bf16 model of the same size falls back to float16 as the support rules say
    llama = estimate("llama-3.2-1b", "T4", engine="vllm")
    assert llama.precision == "fp16"
    # float32 is slower than the float16 vLLM ran before the rule: twice the bytes a decode step reads
    before = estimate("gemma-3-1b", "T4", engine="vllm 0.9.0")
    assert before.precision == "fp16"
    assert est.decode_tokens_per_s < 0.8 * before.decode_tokens_per_s


def test_gemma_2_9b_in_float32_does_not_fit_a_t4() -> None:
    est = estimate("gemma-2-9b", "T4", engine="vllm")
    assert est.supported and est.precision == "fp32" and not est.fits  # ~37 GB of weights on 15 GB


def test_explicit_float16_is_refused_on_every_gpu() -> None:
    for gpu in ("T4", "A100", "H100"):
        est = estimate("gemma-3-4b", gpu, engine="vllm", precision="fp16")
        assert not est.supported and not est.decode_tokens_per_s
        assert "refuses float16 for gemma3 models" in est.unsupported_reason
    with pytest.raises(ConfigurationRejected) as err:
        estimate("gemma-2-9b", "A100", engine="vllm", precision="fp16", strict=True)
    assert err.value.field == "precision"


@pytest.mark.parametrize("precision", ["awq", "gptq", "int4", "fp8"])
def test_a_quantized_gemma_on_a_t4_is_refused(precision: str) -> None:
    est = estimate("gemma-3-4b", "T4", engine="vllm", precision=precision)
    assert not est.supported
    assert "float32" in est.unsupported_reason and "activations only" in est.unsupported_reason


def test_the_rule_is_vllms_from_0_9_1_only() -> None:
    # before the table (0.9.0) bf16 falls back to float16 on a T4, as for any model
    old = estimate("gemma-3-4b", "T4", engine="vllm 0.9.0")
    assert old.supported and old.precision == "fp16"
    assert estimate("gemma-3-4b", "T4", engine="vllm 0.9.1").precision == "fp32"
    assert float16_refusal("vllm", "", "gemma3") is not None
    assert float16_refusal("vllm", "0.9.0", "gemma2") is None
    assert float16_refusal("sglang", "", "gemma3") is None
    assert float16_refusal("vllm", "", "llama") is None
    # on a GPU with bfloat16 nothing changes: bf16 stays bf16, a quantized checkpoint runs
    assert estimate("gemma-3-12b", "A100", engine="vllm").precision == "bf16"
    assert estimate("gemma-3-12b", "L4", engine="vllm", precision="fp8").supported
    # other engines are not judged by it
    assert estimate("gemma-3-4b", "A100", engine="hf-transformers", precision="fp16").supported
