"""A "would fit" suggestion is sized as the engine runs the format it names.

Regression (renter review, stop 48): ``gpuscout estimate llama-3.1-70b --gpu A100 --engine hf`` said
"would fit: ... fp8 on 1 x A100-SXM4-80GB (74.1 GB per GPU)", yet HF transformers dequantizes FP8 to 16
bits below compute capability 8.9, so ``--precision fp8`` answered "does not fit: needs 142.5 GB"; the
same loop for Llama-3.1-8B on a V100. Following a suggestion must give a setup that fits, at the memory
the suggestion stated.
"""

from __future__ import annotations

import re

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.memory import gib

_NARROWER = re.compile(r"(?:^|; )([\w.-]+) on 1 x \S+ \(([\d.]+) GiB per GPU\)")


def _narrower(would_fit: str) -> tuple[str, float]:
    found = _NARROWER.search(would_fit)
    assert found, would_fit
    return found.group(1), float(found.group(2))


@pytest.mark.parametrize(
    ("model", "gpu"),
    [
        ("llama-3.1-70b", "A100"),  # FP8 dequantized to bf16 below CC 8.9
        ("llama-3.1-8b", "V100"),  # FP8 dequantized, bf16 run as fp16 (CC 7.0)
    ],
)
def test_the_narrower_format_suggested_fits_when_followed(model: str, gpu: str) -> None:
    est = estimate(model, gpu, engine="hf-transformers")
    assert not est.fits
    name, shown_gib = _narrower(est.assumptions["would_fit"])
    assert name != "fp8"  # HF transformers holds FP8 in 16 bits on these GPUs: it saves nothing
    followed = estimate(model, gpu, engine="hf-transformers", precision=name)
    assert followed.supported and followed.fits, followed.warnings
    assert followed.precision == name  # held in the format suggested, not dequantized
    assert gib(followed.memory.total_gb) == pytest.approx(shown_gib, abs=0.05)


def test_a_dequantized_format_is_never_suggested() -> None:
    # FP8 on an A100 under HF transformers: the verdict is "dequantized"; the estimate runs it as bf16
    fp8 = estimate("llama-3.1-70b", "A100", engine="hf-transformers", precision="fp8")
    assert fp8.support == "dequantized" and not fp8.fits
    assert "fp8 on" not in fp8.assumptions["would_fit"]
    # vLLM runs FP8 on an A100 weight-only (Marlin W8A16, 8-bit weights in memory): still suggested, and
    # it fits when followed
    vllm = estimate("llama-3.1-70b", "A100", engine="vllm")
    name, shown_gib = _narrower(vllm.assumptions["would_fit"])
    assert name == "fp8"
    followed = estimate("llama-3.1-70b", "A100", engine="vllm", precision="fp8")
    assert followed.fits and gib(followed.memory.total_gb) == pytest.approx(shown_gib, abs=0.05)
