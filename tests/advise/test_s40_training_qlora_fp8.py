"""A QLoRA fine-tune at ``precision: fp8`` is costed as the bf16 run it is.

Regression: the row warned that fp8 "is treated as bf16" under QLoRA but was timed at the FP8 tensor peak:
70B QLoRA on 1x B200 cost $10.61 in 21,144 s at fp8 against $15.87 in 29,076 s at bf16 (bitsandbytes
dequantises the NF4 base to bf16 for every matmul; it has no FP8 GEMM). The estimator's side is in
tests/estimate/test_s40_training_qlora_precision.py.
"""

from __future__ import annotations

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers


def _rows(precision: str) -> list[tuple[str, float, float]]:
    w = Workload.from_dict(
        {
            "kind": "finetune",
            "model": "llama-3-70b",
            "method": "qlora",
            "dataset_tokens": 5e7,
            "epochs": 2,
            "precision": precision,
            "accelerators": ["H100", "B200"],
        }
    )
    rows = advise(w, current_offers(), top=5).rows
    assert rows
    if precision == "fp8":
        assert all(any("computed as bf16" in x for x in r.warnings) for r in rows)
    return [
        (r.offer.instance_type, round(r.cost.total, 6), round(r.time_to_result_s or 0.0, 3)) for r in rows
    ]


def test_qlora_fp8_rows_cost_and_take_what_bf16_rows_do() -> None:
    assert _rows("fp8") == _rows("bf16")
