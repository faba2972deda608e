"""FP8 on a GPU without FP8 tensor cores is said once, in the short form."""

from __future__ import annotations

from gpuscout.advise.api import recommend
from gpuscout.advise.workload import ServeWorkload
from tests.advise.helpers import NOW, offer


def test_fp8_without_tensor_cores_is_warned_once() -> None:
    w = ServeWorkload(model="llama-3.1-8b", precision="fp8", concurrency=4)
    (rec,) = recommend(w, [offer("runpod", "A100-SXM4-80GB", 1, 1.5)], now=NOW)
    fp8 = [x for x in rec.warnings if "fp8" in x.lower() or "weight-only" in x]
    assert fp8 == ["fp8 weight-only here (no native tensor cores for it: memory saved, 16-bit math)"]
