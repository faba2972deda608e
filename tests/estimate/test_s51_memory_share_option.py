"""A near miss names the cheapest remedy first: the same GPUs and format, the engine started with a larger
memory budget (``RAISED_MEMORY_SHARE``), where the engine has the flag and that budget holds the setup.

Qwen2.5-72B in AWQ int4 on two RTX 4090s under vLLM's default 0.9 falls a fraction of a GiB short; renters
run it with ``--gpu-memory-utilization 0.95``. Before, the only remedy named was renting twice the GPUs.
"""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import RAISED_MEMORY_SHARE, estimate
from gpuscout.estimate.diagnose import diagnose
from gpuscout.estimate.types import FitOption


def _qwen72_awq(engine: str) -> object:
    return estimate("qwen2.5-72b", "RTX4090", gpus=2, precision="awq", engine=engine)


@pytest.mark.parametrize(
    ("engine", "flag"), [("vllm", "--gpu-memory-utilization"), ("sglang", "--mem-fraction-static")]
)
def test_near_miss_names_the_larger_budget_first(engine: str, flag: str) -> None:
    est = _qwen72_awq(engine)
    assert not est.fits
    first = est.fit_options[0]
    assert (first.format, first.gpus, first.gpu, first.parallel) == ("int4", 2, "RTX4090", "")
    assert first.flags == f"{flag} {RAISED_MEMORY_SHARE:g}"
    assert first.text.startswith(f"int4 on 2 x RTX4090 started with {flag} {RAISED_MEMORY_SHARE:g} (")
    assert est.assumptions["would_fit"] == "; ".join(o.text for o in est.fit_options)
    # more GPUs stay on offer after it
    assert any(o.gpus > 2 for o in est.fit_options[1:])


def test_the_option_is_what_estimate_gives_when_started_so() -> None:
    est = _qwen72_awq("vllm")
    option = est.fit_options[0]
    started = _qwen72_awq(f"vllm {option.flags}")
    assert started.fits
    m = started.memory
    total_gib = (m.weights_gb + m.kv_cache_gb + m.activations_gb + m.overhead_gb) * 1e9 / 2**30
    assert total_gib == pytest.approx(option.per_gpu_gib, rel=1e-6)


def test_a_budget_already_at_or_above_it_is_not_offered() -> None:
    est = _qwen72_awq(f"vllm --gpu-memory-utilization {RAISED_MEMORY_SHARE}")
    assert not any(o.flags for o in est.fit_options)


def test_far_misses_and_engines_without_the_flag_get_no_flag_option() -> None:
    far = estimate("llama-3.1-70b", "RTX4090", precision="bf16", engine="vllm")
    assert not far.fits and not any(o.flags for o in far.fit_options)
    gguf = estimate("llama-3.1-70b", "RTX4090", gpus=2, engine="llama.cpp")
    assert not gguf.fits and not any(o.flags for o in gguf.fit_options)


def test_text_without_flags_is_unchanged() -> None:
    o = FitOption(format="int4", gpus=2, gpu="L4", parallel="tensor", per_gpu_gib=9.0)
    assert o.text == "int4 on 2 x L4 (tensor parallel, 9.0 GiB per GPU)"


def test_diagnose_prices_the_option_started_with_its_flag() -> None:
    d = diagnose("qwen2.5-72b", "RTX4090", measured_tps=10.0, gpus=2, precision="awq", engine="vllm")
    fits = [line for line in d.suggestions if line.startswith("Fits: int4 on 2 x RTX4090 started with")]
    assert fits and "tokens/s per sequence (estimated)" in fits[0]


def test_with_flags_replaces_the_same_flag_asked() -> None:
    from gpuscout.estimate.launch_flags import with_flags

    assert with_flags(
        "vllm --gpu-memory-utilization 0.9 --max-num-seqs 64", "--gpu-memory-utilization 0.95"
    ) == ("vllm --max-num-seqs 64 --gpu-memory-utilization 0.95")
    assert with_flags("sglang --mem-fraction-static 0.85", "--mem-fraction-static 0.95") == (
        "sglang --mem-fraction-static 0.95"
    )
    assert with_flags("vllm", "") == "vllm"


def test_diagnose_prices_the_option_when_the_engine_asked_already_sets_the_flag() -> None:
    # a flag is read at its first occurrence: appended after the user's 0.9, the option's 0.95 was ignored
    # and the option left out of the suggestions
    d = diagnose(
        "qwen2.5-72b",
        "RTX4090",
        measured_tps=10.0,
        gpus=2,
        precision="awq",
        engine="vllm --gpu-memory-utilization 0.9",
    )
    assert any(line.startswith("Fits: int4 on 2 x RTX4090 started with") for line in d.suggestions), (
        d.suggestions
    )
