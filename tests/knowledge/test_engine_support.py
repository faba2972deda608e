"""The engine support rules as the advisor reads them: verdicts remembered, never changed by it."""

from __future__ import annotations


def test_a_verdict_is_judged_once_and_is_the_rules_verdict() -> None:
    """check_support remembers verdicts (the advisor asks thousands of times): the remembered one is
    what the rules give, for the table's parts and for a part re-wired over PCIe (an equal copy)."""
    import dataclasses

    from gpuscout.knowledge.accelerators import resolve_gpu
    from gpuscout.knowledge.engine_support import _judge, check_support

    for name in ("H100-SXM", "V100-SXM2-16GB", "K80", "MI300X"):
        acc = resolve_gpu(name)
        for engine, precision in (("vllm", "fp8"), ("vllm", "bf16"), ("llama.cpp", "gguf")):
            first = check_support(engine, precision, acc)
            assert check_support(engine, precision, acc) is first
            assert first == _judge(engine, precision, acc)
            rewired = dataclasses.replace(acc, interconnect="PCIe")
            assert check_support(engine, precision, rewired) == _judge(engine, precision, rewired)


def test_a_reason_names_only_what_applies_to_that_generation() -> None:
    """vLLM below compute capability 7.0: CUDA 12's missing Kepler target is said for Kepler, not for a
    Pascal or Maxwell part (CUDA 12 builds for both)."""
    from gpuscout.knowledge.accelerators import resolve_gpu
    from gpuscout.knowledge.engine_support import check_support

    kepler = check_support("vllm", "bf16", resolve_gpu("K80"))
    assert not kepler.supported and "Kepler" in kepler.reason and "7.0" in kepler.reason
    for name in ("P40", "M60"):
        verdict = check_support("vllm", "bf16", resolve_gpu(name))
        assert not verdict.supported and "7.0" in verdict.reason and "Kepler" not in verdict.reason


def test_alternatives_do_not_list_the_same_run_twice() -> None:
    """On a P40, vLLM's bf16 is refused; llama.cpp runs one F16 / BF16 GGUF whether bf16 or fp16 is
    asked, and transformers runs bf16 as fp16: each is offered once, and the freed place goes to
    something else."""
    from gpuscout.knowledge.accelerators import resolve_gpu
    from gpuscout.knowledge.engine_support import alternatives

    alts = alternatives("vllm", "bf16", resolve_gpu("P40"))
    shown = [a.message() for a in alts]
    assert sum("GGUF BF16/F16" in m or "GGUF F16" in m for m in shown) == 1
    assert [a.precision for a in alts if a.engine == "hf-transformers"] == ["bf16"]  # runs as fp16: once
    assert any("Q8_0" in m for m in shown)


def test_a_legacy_platform_range_says_its_caveat_with_the_verdict() -> None:
    """transformers on a V100 runs (float16), but only with PyTorch's legacy cu126 wheels: a sourced platform
    row with an upper compute-capability bound is said beside the precision's rule; a T4 (7.5, the default
    wheel's range) gets no such note."""
    from gpuscout.knowledge.accelerators import resolve_gpu
    from gpuscout.knowledge.engine_support import check_support

    volta = check_support("hf-transformers", "fp16", resolve_gpu("V100-SXM2-16GB"))
    assert volta.mode == "native" and "platform: " in volta.reason and "legacy cu126" in volta.reason
    turing = check_support("hf-transformers", "fp16", resolve_gpu("T4"))
    assert turing.mode == "native" and "platform: " not in turing.reason
