"""`diagnose` reads a multi-GPU speed the way the estimate runs it: the engine's own split (a layer
split for llama.cpp: every weight is read once per token, the GPUs taking turns), and the engine the
estimate would pick (llama.cpp for a GGUF precision) when none is given."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import diagnose


def test_a_gguf_precision_is_diagnosed_on_llama_cpp_by_default() -> None:
    d = diagnose("llama-3.1-70b", "RTX 4090", measured_tps=19, gpus=2, precision="q4_k_m")
    assert d.engine == "llama.cpp"  # was vllm, which refuses GGUF
    assert "not supported" not in d.assumptions.get("support", "")


def test_a_layer_split_streams_the_whole_model_per_token() -> None:
    d = diagnose("llama-3.1-70b", "RTX 4090", measured_tps=19, gpus=2, precision="q4_k_m")
    one = diagnose(
        "llama-3.1-70b", "RTX 4090", measured_tps=19, gpus=1, precision="q4_k_m", engine="llama.cpp"
    )
    # the GPUs take turns: the bytes of a step are the whole model's, as on one GPU, not half of them
    assert d.bytes_per_step == pytest.approx(one.bytes_per_step, rel=0.05)
    assert "in all (the 2 GPUs take turns, a layer split)" in d.verdict and "per GPU" not in d.verdict
    # and the expected speed is the estimate's, split the same way
    e = estimate("llama-3.1-70b", "RTX 4090", gpus=2, precision="q4_k_m", context_in=1023, context_out=1)
    assert e.parallel == "layer"
    assert d.expected_tps == pytest.approx(e.decode_tokens_per_s, rel=0.15)


def test_tensor_parallel_still_reads_a_share_per_gpu() -> None:
    d = diagnose("llama-3.1-70b", "H100", measured_tps=30, gpus=4)
    one = diagnose("llama-3.1-70b", "H100", measured_tps=30, gpus=1, precision="fp8")
    assert d.engine == "vllm" and "per GPU" in d.verdict
    assert d.bytes_per_step < one.bytes_per_step
