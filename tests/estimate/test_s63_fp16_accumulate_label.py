"""The peak rate an explain line names where llama.cpp's fp16-accumulate GEMMs double a GeForce part's
datasheet rate: that doubled rate is fp16's, not bf16's. The Ada whitepaper's RTX 4090 table (recalled)
lists FP16 tensor 330.3 TFLOPS with FP16 accumulate and 165.2 with FP32 accumulate, BF16 only with FP32
accumulate (165.2): PTX's bf16 mma.sync takes f32 accumulators only (recalled), so "bf16 ... fp16
accumulate" names a rate no kernel has."""

from __future__ import annotations

from gpuscout.estimate.api import estimate


def test_a_doubled_geforce_rate_is_named_fp16() -> None:
    # RTX 4090: the table's 16-bit rate 165.2 TFLOPS (fp32 accumulate) x 2 = 330.4 with fp16 accumulate
    est = estimate("Llama-3.1-8B", "RTX 4090", engine="llama.cpp", precision="gguf-q4_k_m")
    line = est.assumptions["compute_efficiency"]
    assert "330.4 TFLOPS fp16 (dense, fp16 accumulate)" in line
    assert "bf16" not in line


def test_an_undoubled_rate_keeps_its_own_name() -> None:
    # the same engine on an H100 (a datacenter part: no doubling) names the bf16 rate the table gives
    est = estimate("Llama-3.1-8B", "H100", engine="llama.cpp", precision="gguf-q4_k_m")
    assert "989.5 TFLOPS bf16 (dense)" in est.assumptions["compute_efficiency"]
    # and vLLM on the RTX 4090 (fp32 accumulate) its datasheet bf16 rate
    vllm = estimate("Llama-3.1-8B", "RTX 4090", engine="vllm")
    assert "165.2 TFLOPS bf16 (dense)" in vllm.assumptions["compute_efficiency"]
