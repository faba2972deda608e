"""The tensor-rate cells of an accelerator table, said the same by the CLI (``gpuscout gpus``) and the
web (``/gpus``): the dense rate where the source gives one, "yes*" where the part computes in the format
without a published rate, "no BF16" / "no FP8" / "no FP4" where it does not compute in it."""

from __future__ import annotations

from dataclasses import dataclass

from gpuscout.estimate.precision import has_bf16
from gpuscout.knowledge.accelerator_types import Accelerator

#: What "yes*" in a rate column means (the CLI's caption, the web's note).
RATE_FOOTNOTE = "yes* = native support, rate not in the source"


def rate_cell(rate: float | None, supported: bool, label: str, digits: int = 0) -> str:
    """One cell: ``rate`` TFLOPS with ``digits`` decimals; "yes*" when the part computes in ``label``'s
    format without a published rate; "no LABEL" when it does not."""
    if rate is not None:
        return f"{rate:,.{digits}f}"
    return "yes*" if supported else f"no {label}"


@dataclass(frozen=True)
class RateCells:
    """The BF16, FP8 and FP4 cells of one accelerator's row."""

    bf16: str
    fp8: str
    fp4: str


def rate_cells(acc: Accelerator) -> RateCells:
    """``acc``'s dense BF16, FP8 and FP4 cells (BF16 to one decimal, as vendors state it: 989.5)."""
    return RateCells(
        bf16=rate_cell(acc.bf16_tflops, has_bf16(acc), "BF16", 1),
        fp8=rate_cell(acc.fp8_tflops, acc.fp8_supported, "FP8"),
        fp4=rate_cell(acc.fp4_tflops, acc.fp4_supported, "FP4"),
    )
