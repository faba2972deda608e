"""Block-scaled FP8 (DeepSeek-V3/R1 and Qwen3 FP8 checkpoints: one scale per 128x128 weight block,
activations quantised per token and 128-channel group before every GEMM) is its own kernel family within
the FP8 compute class: blockwise GEMM kernels, not the per-tensor FP8 GEMM. Engine profiles may key their
efficiencies on it, and fall back to their FP8 figure, then their default, where they have none."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.memory import weights_bytes_total
from gpuscout.estimate.precision import resolve_precision
from gpuscout.estimate.support import can_run
from gpuscout.knowledge.hf_config import native_precision
from gpuscout.knowledge.models import resolve_model


def test_block_fp8_is_an_fp8_format_with_its_own_kernel_family() -> None:
    block, tensor = resolve_precision("fp8-block"), resolve_precision("fp8")
    assert block.compute_class == tensor.compute_class == "fp8"
    assert block.native == "fp8"  # same tensor cores: the support rules and rate are FP8's
    assert (block.efficiency_class, tensor.efficiency_class) == ("fp8-block", "fp8")
    for alias in ("block-fp8", "FP8 blockwise", "fp8_block"):
        assert resolve_precision(alias) is block
    # one fp32 scale per 16,384 weights: the same ~1 byte a weight
    spec = resolve_model("qwen3-8b")
    assert weights_bytes_total(spec, block) == pytest.approx(weights_bytes_total(spec, tensor))


def test_checkpoints_say_which_fp8_they_are() -> None:
    # quantization_config of DeepSeek-V3 / Qwen3-8B-FP8: quant_method fp8 with weight_block_size [128, 128]
    assert native_precision({"quant_method": "fp8", "weight_block_size": [128, 128]}) == "fp8-block"
    assert native_precision({"quant_method": "fp8", "activation_scheme": "dynamic"}) == "fp8"
    assert resolve_model("deepseek-v3").native_precision == "fp8-block"
    # asking DeepSeek for "fp8" is asking for its published checkpoint
    assert estimate("deepseek-r1", "H200", gpus=8, precision="fp8").precision == "fp8-block"
    # "fp8" is the model's FP8 checkpoint: Qwen's are block-scaled, Llama's (Neural Magic, ModelOpt) per
    # tensor; per-tensor scales can be asked for by name (vLLM --quantization fp8 on a 16-bit checkpoint)
    assert estimate("qwen3-8b", "H100", precision="fp8").precision == "fp8-block"
    assert estimate("Qwen/Qwen3-8B-FP8", "H100").precision == "fp8-block"
    assert estimate("llama-3.1-8b", "H100", precision="fp8").precision == "fp8"
    assert estimate("qwen3-8b", "H100", precision="fp8-per-tensor").precision == "fp8"


def test_block_fp8_follows_the_fp8_support_rules() -> None:
    for gpu in ("V100", "A100", "H100"):
        assert can_run("vllm", "fp8-block", gpu).mode == can_run("vllm", "fp8", gpu).mode, gpu
    assert estimate("deepseek-v3", "V100", gpus=8, engine="vllm", precision="fp8").supported is False


def test_profiles_fall_back_from_block_fp8_to_fp8_then_to_default() -> None:
    vllm, sglang, trt = resolve_engine("vllm"), resolve_engine("sglang"), resolve_engine("tensorrt-llm")
    # vLLM has FP8 figures and none for blocks: blocks take the FP8 ones
    assert vllm.bandwidth_eff("fp8-block") == vllm.bandwidth_eff("fp8")
    assert vllm.compute_eff("fp8-block") == vllm.compute_eff("fp8")
    # TensorRT-LLM has an FP8 compute figure and one bandwidth figure for everything
    assert trt.compute_eff("fp8-block") == trt.compute_eff("fp8")
    assert trt.bandwidth_eff("fp8-block") == trt.bandwidth_eff("16bit")
    # SGLang's FP8 rows are all block-scaled (Qwen3 FP8 on the H20, DeepSeek-R1): per-tensor FP8 has no
    # row and streams at its 16-bit figure
    assert sglang.bandwidth_eff("fp8") == sglang.bandwidth_eff("16bit")
    assert sglang.bandwidth_eff("fp8-block") < sglang.bandwidth_eff("fp8")


def test_sglang_runs_a_per_tensor_fp8_70b_about_as_fast_as_vllm() -> None:
    """Llama-3.1-70B FP8 (per tensor) on 2x H100 at batch 1: ~36 GB of weights per GPU (68.5 B body
    parameters at 1 byte, embedding and lm_head at 2). At SGLang's 16-bit streaming figure (vLLM's 0.63 of
    3.35 TB/s) that is ~17 ms a token, as vLLM's; with the block-FP8 figure (0.44) and its 35 us per layer
    it would be ~27 ms: what SGLang used to be given for every FP8 model."""
    kw = {"gpus": 2, "precision": "fp8", "context_in": 1000, "context_out": 200}
    sglang = estimate("llama-3.1-70b", "H100", engine="sglang", **kw)
    vllm = estimate("llama-3.1-70b", "H100", engine="vllm", **kw)
    block = estimate("llama-3.1-70b", "H100", engine="sglang", **{**kw, "precision": "fp8-block"})
    assert sglang.binding_limit == vllm.binding_limit == "bandwidth"
    assert 0.8 < sglang.decode_tokens_per_s / vllm.decode_tokens_per_s < 1.2
    assert block.decode_tokens_per_s < 0.75 * sglang.decode_tokens_per_s


def test_tensorrt_llm_gives_per_tensor_fp8_checkpoints_an_fp8_cache_only() -> None:
    # a ModelOpt FP8 checkpoint carries the KV-cache scale; DeepSeek-R1's block-scaled one has no KV
    # quantisation, and kv_cache_dtype "auto" keeps the cache 16-bit
    assert estimate("llama-3.1-8b", "H100", precision="fp8", engine="tensorrt-llm").kv_dtype == "fp8"
    assert estimate("deepseek-r1", "H200", gpus=8, engine="tensorrt-llm").kv_dtype == "bf16"
