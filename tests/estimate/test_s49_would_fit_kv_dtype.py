"""A "would fit" suggestion of a narrower format is sized with the KV cache the user asked for.

Regression: ``gpuscout estimate qwen2.5-32b --gpu L40S --context-in 32256 --context-out 512 --kv-dtype fp8``
did not fit and said "would fit: ... int4 on 1 x L40S": the narrower formats were sized with the engine's
default (bf16) cache, not the fp8 one asked for, with which fp8 weights fit on one L40S. Llama-3.1-8B at
128k tokens on one 24 GB card had no narrower format suggested at all, though fp8 weights with the fp8
cache asked for fit.
"""

from __future__ import annotations

import re

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.memory import gib
from gpuscout.estimate.types import Estimate

_NARROWER = re.compile(r"(?:^|; )([\w.-]+) on 1 x \S+ \(([\d.]+) (GB|GiB) per GPU\)")


@pytest.mark.parametrize(
    ("model", "gpu", "context"),
    [
        ("qwen2.5-32b", "L40S", 32_768),  # int4 with a bf16 cache; fp8 weights with the fp8 one
        ("llama-3.1-8b", "RTX4090", 131_072),  # none with a bf16 cache; fp8 weights with the fp8 one
    ],
)
def test_the_narrower_format_suggested_is_sized_with_the_kv_dtype_given(
    model: str, gpu: str, context: int
) -> None:
    est = _fp8_cache(model, gpu, context)
    assert not est.fits and est.kv_dtype == "fp8"
    found = _NARROWER.search(est.assumptions["would_fit"])
    assert found, est.assumptions["would_fit"]
    name, stated = found.group(1), float(found.group(2))
    assert name == "fp8"  # the widest narrower format: the fp8 cache leaves room for 8-bit weights
    # followed with the same cache, it fits at the memory the suggestion stated
    followed = _fp8_cache(model, gpu, context, precision=name)
    assert followed.fits and followed.kv_dtype == "fp8", followed.warnings
    assert _in(found.group(3), followed.memory.total_gb) == pytest.approx(stated, abs=0.05)


def test_no_kv_dtype_given_keeps_the_engines_own_cache_in_the_suggestion() -> None:
    # the default cache (bf16 here) sizes the suggestion, as before: int4 on one L40S
    est = estimate("qwen2.5-32b", "L40S", context_in=32_256, context_out=512)
    found = _NARROWER.search(est.assumptions["would_fit"])
    assert found and found.group(1) == "int4", est.assumptions["would_fit"]
    followed = estimate("qwen2.5-32b", "L40S", precision="int4", context_in=32_256, context_out=512)
    assert followed.fits
    assert _in(found.group(3), followed.memory.total_gb) == pytest.approx(float(found.group(2)), abs=0.05)


def _fp8_cache(model: str, gpu: str, context: int, precision: str | None = None) -> Estimate:
    """The estimate of ``context`` tokens (512 of them output) with the fp8 KV cache asked for."""
    return estimate(
        model, gpu, precision=precision, context_in=context - 512, context_out=512, kv_dtype="fp8"
    )


def _in(unit: str, gb: float) -> float:
    """``gb`` (the estimator's GB) in the unit the suggestion states it in."""
    return gib(gb) if unit == "GiB" else gb
