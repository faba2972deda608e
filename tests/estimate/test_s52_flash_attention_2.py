"""transformers started with attn_implementation='flash_attention_2' needs the flash-attn kernels, which
run on Ampere (compute capability 8.0) and newer: on a T4 or a V100 it does not start, and the answer
says so with its source and what would run, instead of a speed."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.errors import GpuscoutError
from gpuscout.estimate.support import FLASH_ATTENTION_2_SOURCE

FA2 = "hf-transformers flash-attention-2"


@pytest.mark.parametrize("gpu", ["T4", "V100-SXM2-32GB", "RTX2080Ti"])
def test_flash_attention_2_before_ampere_is_not_supported(gpu: str) -> None:
    e = estimate("llama-3.2-1b", gpu, engine=FA2)
    assert e.supported is False
    assert "flash_attention_2" in e.unsupported_reason and "8.0+" in e.unsupported_reason
    assert e.unsupported_field == "engine"
    assert e.decode_tokens_per_s == 0.0 and e.requests_per_s == 0.0
    assert FLASH_ATTENTION_2_SOURCE in e.assumptions["support"]
    assert "attn_implementation='sdpa'" in e.assumptions["alternatives"]


@pytest.mark.parametrize("gpu", ["A10G", "L4", "H100-SXM"])
def test_flash_attention_2_from_ampere_on_runs(gpu: str) -> None:
    e = estimate("llama-3.2-1b", gpu, engine=FA2)
    assert e.supported and e.decode_tokens_per_s > 0


def test_the_default_attention_still_runs_on_a_t4() -> None:
    e = estimate("llama-3.2-1b", "T4", engine="hf-transformers")
    assert e.supported and e.decode_tokens_per_s > 0


def test_strict_names_the_engine_field() -> None:
    with pytest.raises(GpuscoutError) as err:
        estimate("llama-3.2-1b", "T4", engine=FA2, strict=True)
    assert "engine" in str(err.value) and "8.0+" in str(err.value)
