"""An image estimate on a GPU without bf16 (Volta, Turing) says it runs in fp16, and names the attention
kernel PyTorch's SDPA runs there (its memory-efficient one: FlashAttention-2 needs sm80), where it said
"bf16" and "FlashAttention-2 on other"."""

from __future__ import annotations

import pytest

from gpuscout.estimate.diffusion import estimate_images


@pytest.mark.parametrize("gpu", ["V100", "T4"])
def test_pre_ampere_runs_fp16_with_sdpas_memory_efficient_kernel(gpu: str) -> None:
    r = estimate_images("sdxl", gpu)
    assert r.precision == "fp16"
    assert "SDPA memory-efficient on pre-Ampere" in r.assumptions["efficiency"]
    assert "FlashAttention-2 on" not in r.assumptions["efficiency"]
    assert r.assumptions["weights"].startswith("denoiser fp16") and "VAE fp16" in r.assumptions["weights"]


def test_ampere_keeps_bf16_and_flash_attention_2() -> None:
    r = estimate_images("sdxl", "A100")
    assert r.precision == "bf16"
    assert "FlashAttention-2 on Ampere/Ada" in r.assumptions["efficiency"]


def test_fp32_is_said_as_asked() -> None:
    assert estimate_images("sdxl", "V100", precision="fp32").precision == "fp32"
