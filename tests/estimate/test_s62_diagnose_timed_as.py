"""``diagnose`` times the decode step on the setup ``estimate`` times (one place, ``api.setup_as_run``):
a weight-only checkpoint that vLLM runs on AMD GPUs through kernels no calibration row fits is timed as
its 16-bit checkpoint by both (``Setup.timed_as``), so the diagnosis's "gpuscout estimate" is the
estimate's own per-sequence speed, not one crediting AWQ's byte saving (528.8 tokens/s against the
estimate's 204.9 on an MI300X before)."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.diagnose import diagnose


@pytest.mark.parametrize(("gpu", "precision"), [("MI300X", "awq"), ("H100-SXM", "bf16")])
def test_diagnose_expected_speed_is_the_estimates(gpu: str, precision: str) -> None:
    d = diagnose("llama-3.1-8b", gpu, measured_tps=150, precision=precision, context=1024)
    # the one decode step of a 1,023-token prompt plus the first output token runs at a 1,024-token
    # context: the step diagnose times at context 1024
    e = estimate("llama-3.1-8b", gpu, precision=precision, context_in=1023, context_out=2)
    assert e.supported
    assert d.expected_tps == pytest.approx(e.decode_tokens_per_s, rel=1e-6)


def test_the_roofline_still_counts_the_checkpoints_own_bytes() -> None:
    # the speed is timed as the 16-bit checkpoint's, but an AWQ run reads its 4-bit weights: a measured
    # speed above the 16-bit roofline is no impossibility
    awq = diagnose("llama-3.1-8b", "MI300X", measured_tps=400, precision="awq", context=1024)
    bf16 = diagnose("llama-3.1-8b", "MI300X", measured_tps=400, precision="bf16", context=1024)
    assert awq.bytes_per_step < 0.5 * bf16.bytes_per_step
    assert awq.roofline_tps > 400 > bf16.roofline_tps
    assert awq.bound != "above-roofline"
