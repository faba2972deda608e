"""A narrower precision's budget move names its cheapest row that runs that precision as asked (stop 76).

``recommend batch llama-3.1-8b --output-total 1M --budget 0.004``: at FP8 the cheapest row with the budget
lifted is a V100 running llama.cpp's GGUF Q8_0 in vLLM FP8's place (the support rules' substitution, $0.05
spot). The move was dropped for it, so the answer no longer said that FP8 on an RTX 6000 Ada ($0.06) costs
less than the cheapest bf16 row ($0.08): once FP8 GEMMs computed at their measured 1.56x the bf16 rate on
Ada instead of 2x, the V100 row came first. The move now skips substitution rows, as the within-budget
branch already did.
"""

from __future__ import annotations

from tests.advise.test_s62_sub_dollar_budget import BATCH, _run


def test_the_fp8_move_skips_a_substituted_row_for_one_that_runs_fp8() -> None:
    fp8 = _run(*BATCH, "--precision", "fp8", "--top", "3")
    # the FP8 front's cheapest row runs llama.cpp in vLLM's place: not what "--precision fp8" asks
    first = fp8.split("│ 1 │", 1)[1].split("│ 2 │", 1)[0]
    assert "llama.cpp" in first and "cheapest" in first
    out = _run(*BATCH, "--budget", "0.004")
    assert (
        "--precision fp8 with --budget 0.07 (1x RTX6000-Ada at Vast.ai at $0.06) would show a cheaper row"
        in (out)
    ), out
    # and that budget shows the row it names
    shown = _run(*BATCH, "--precision", "fp8", "--budget", "0.07")
    assert "No offer can run" not in shown and "RTX6000-Ada" in shown
