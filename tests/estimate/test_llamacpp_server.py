"""llama.cpp as a server (llama-server): its slots decode together with continuous batching, so users
in flight share the weight reads instead of queueing one behind the other."""

from __future__ import annotations

from gpuscout.estimate.api import estimate


def _at(concurrency: int):  # type: ignore[no-untyped-def]
    return estimate(
        "llama-3.1-8b",
        "L40S",
        engine="llama.cpp",
        precision="q4_k_m",
        concurrency=concurrency,
        context_in=1000,
        context_out=300,
    )


def test_users_in_flight_run_together_not_one_by_one() -> None:
    one, eight = _at(1), _at(8)
    assert eight.supported and eight.fits
    assert eight.batch == 8 and eight.queue_ms == 0.0
    # decode is bandwidth bound: eight sequences share each step's weight reads, so the aggregate
    # grows several-fold while each user slows down only a little
    assert eight.output_tokens_per_s_total > 4 * one.output_tokens_per_s_total
    assert 0.5 * one.decode_tokens_per_s < eight.decode_tokens_per_s < one.decode_tokens_per_s
    assert eight.assumptions["batching"].startswith("continuous")


def test_batch_one_speed_is_the_benchmark_speed() -> None:
    """One request is what llama-bench measures: the server's slots change nothing there."""
    one = _at(1)
    assert one.batch == 1 and one.binding_limit == "bandwidth"


def test_llamacpp_runs_mxfp4_with_its_own_quantised_kernels_not_a_marlin_path() -> None:
    """gpt-oss's MXFP4 experts are a GGUF block type to llama.cpp (MMVQ / MMQ kernels, as Q4_K): no
    mma.sync share is taken off on Hopper, so the H100 prefills at least as fast as the A100 (it came
    out 7.1k against 8.7k tokens/s when MXFP4 was timed as a weight-only Marlin path)."""
    a100 = estimate("gpt-oss-20b", "A100-80GB", engine="llama.cpp", context_in=1000, context_out=500)
    h100 = estimate("gpt-oss-20b", "H100", engine="llama.cpp", context_in=1000, context_out=500)
    assert a100.precision == h100.precision == "mxfp4-moe"
    assert h100.assumptions["compute_class"] == "gguf-quant"
    assert h100.prefill_tokens_per_s > a100.prefill_tokens_per_s
    # the other engines run it through a weight-only kernel (Marlin MXFP4) where FP4 math is absent
    vllm = estimate("gpt-oss-20b", "A100-80GB", engine="vllm", context_in=1000, context_out=500)
    assert vllm.assumptions["compute_class"] == "weight-only"


def test_past_llama_servers_default_slots_the_estimate_says_what_it_assumes() -> None:
    """llama-server runs 4 slots unless --parallel says otherwise (-1 = auto: 4 over a unified KV cache);
    the estimate assumes --parallel for the load and says so; a stated --parallel is the cap."""
    assumed = estimate("llama-3.1-8b", "RTX 4090", engine="llama.cpp", concurrency=8)
    assert "--parallel 8" in assumed.assumptions["slots"] and "4 slots" in assumed.assumptions["slots"]
    stated = estimate("llama-3.1-8b", "RTX 4090", engine="llama.cpp --parallel 4", concurrency=8)
    assert "slots" not in stated.assumptions
    assert "4 running per replica (cap 4, scheduler)" in stated.assumptions["load"]
    assert stated.output_tokens_per_s_total < assumed.output_tokens_per_s_total
    assert "slots" not in estimate("llama-3.1-8b", "RTX 4090", engine="llama.cpp", concurrency=4).assumptions
