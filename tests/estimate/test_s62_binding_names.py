"""``binding_limit`` names the engine's cap on running sequences "scheduler" and a step's fixed costs
(kernel launches, CPU scheduling) "overhead": both were "scheduler", so a batch capped at max_num_seqs and
a step that is mostly fixed costs read alike, in the JSON and to the estimator itself. Llama-3.2-1B on an
H200 at 2,000 users runs 1,024 (vLLM's max_num_seqs) and fixed costs set its pace: room for more would add
under 10 % requests/s, yet the estimate said "scheduler", and its warning, taking that for the cap, left
the pace unsaid."""

from __future__ import annotations

from gpuscout import estimate


def test_fixed_costs_behind_a_scheduler_cap_are_overhead_and_the_warning_says_so() -> None:
    e = estimate("llama-3.2-1b", "H200-SXM", concurrency=2000, context_in=128, context_out=128)
    assert e.max_running_limit == "scheduler" and e.batch == 1024  # the cap: max_num_seqs
    assert e.binding_limit == "overhead"  # what sets the pace: the step's fixed costs
    assert e.step_ms["fixed"] == max(e.step_ms[k] for k in ("memory", "compute", "interconnect", "fixed"))
    capped = next(w for w in e.warnings if "at most 1024 sequences" in w)
    assert "scheduler cap (max_num_seqs 1024)" in capped and "sets the pace" in capped


def test_a_cap_that_binds_stays_scheduler() -> None:
    e = estimate("qwen3-0.6b", "H100-SXM", engine="sglang", concurrency=3000, context_in=64, context_out=64)
    assert e.binding_limit == "scheduler" and e.max_running_limit == "scheduler" and e.batch == 1024
    capped = next(w for w in e.warnings if "at most 1024 sequences" in w)
    assert "sets the pace" not in capped  # the cap is what binds: raising it would pay


def test_one_user_bound_by_fixed_costs_is_overhead() -> None:
    assert estimate("qwen3-0.6b", "H20", engine="sglang", batch=1).binding_limit == "overhead"
