"""Support rules that hold for a range of engine releases: vLLM ran Volta (CC 7.0) through 0.19 (docs "compute
capability 7.0 or higher", sm_70 in CMake's CUDA 12.8+ list) and dropped it in 0.20 (docs 7.5+, sm_70 only
below CUDA 12.8). A release named after the engine ("vllm 0.6") is judged by the rules of that release; no
release is today's."""

from __future__ import annotations

import pytest

import gpuscout
from gpuscout.estimate.engines import resolve_engine
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.engine_support import SupportRule, _bounds, check_support, support_rules

V100 = "V100-SXM2-32GB"


def _rule(versions: str) -> SupportRule:
    fields = ("vllm", "*", "nvidia", "7.0", "7.0", "native", "sourced", "vllm 0.19.1", "r", "u")
    return SupportRule(*fields, versions=versions)


@pytest.mark.parametrize(
    ("versions", "release", "holds"),
    [
        ("<0.20", "0.19.1", True),
        ("<0.20", "0.6", True),
        ("<0.20", "0.20", False),  # 0.20 == 0.20.0
        ("<0.20", "0.20.1", False),
        ("<0.20", "", False),  # today's release is past every bound
        (">=0.20", "", True),
        (">=0.20", "0.20.0", True),
        (">=0.20", "0.19.9", False),
        (">=0.8,<0.20", "0.8.5", True),
        (">=0.8,<0.20", "0.7.3", False),
        ("", "0.1", True),
    ],
)
def test_a_rule_holds_for_the_releases_its_range_names(versions: str, release: str, holds: bool) -> None:
    assert _rule(versions).applies_to(release) is holds


def test_a_malformed_release_range_is_refused() -> None:
    with pytest.raises(ValueError, match="versions"):
        _bounds("~=0.20")


@pytest.mark.parametrize("release", ["", "0.4.2", "0.6.3", "0.19.1", "0.19.9", "0.20", "0.20.1", "0.34.0"])
def test_exactly_one_vllm_volta_platform_row_holds_for_any_release(release: str) -> None:
    volta = [
        r
        for r in support_rules()
        if r.engine == "vllm" and r.precision == "*" and (r.min_cc, r.max_cc) == ("7.0", "7.0")
    ]
    assert len([r for r in volta if r.applies_to(release)]) == 1


def test_vllm_runs_a_v100_through_0_19_and_not_from_0_20() -> None:
    today = gpuscout.can_run("vllm", "fp16", V100)
    assert not today.supported and "from vLLM 0.20" in today.verdict.reason
    for release in ("vllm 0.6", "vLLM 0.6.3", "vllm 0.19.1"):
        assert gpuscout.can_run(release, "fp16", V100).mode == "native", release
        # no bfloat16 on Volta in any release: dtype auto falls back to float16
        assert gpuscout.can_run(release, "bf16", V100).mode == "fallback-fp16", release
    assert not gpuscout.can_run("vllm 0.20", "fp16", V100).supported


def test_old_vllm_on_volta_runs_gptq_through_its_own_kernel_but_not_awq_or_fp8() -> None:
    assert gpuscout.can_run("vllm 0.19", "gptq", V100).mode == "weight-only"
    awq = gpuscout.can_run("vllm 0.19", "awq", V100)
    assert not awq.supported and "get_min_capability 75" in awq.verdict.reason
    fp8 = gpuscout.can_run("vllm 0.6", "fp8", V100)
    assert not fp8.supported and "get_min_capability 80" in fp8.verdict.reason
    # a rule read in a later release than the one asked says so
    bf16 = gpuscout.can_run("vllm 0.6", "bf16", V100)
    assert bf16.verdict.reason.endswith("read in vllm 0.33.0, not checked for 0.6")


def test_today_s_rules_carry_no_release_caveat() -> None:
    v = check_support("vllm", "fp8", resolve_gpu("A100-SXM4-80GB"))
    assert v.supported and "not checked" not in v.reason and v.release == ""


def test_an_estimate_names_the_release_and_times_it() -> None:
    old = gpuscout.estimate("llama-3.1-8b", V100, engine="vllm 0.6")
    assert old.supported and old.decode_tokens_per_s > 0
    today = gpuscout.estimate("llama-3.1-8b", V100, engine="vllm")
    assert not today.supported and not today.decode_tokens_per_s


@pytest.mark.parametrize(
    ("name", "release"),
    [
        ("vllm", ""),
        ("vLLM 0.6.3", "0.6.3"),
        ("vllm 0.6.3.dev116 ROCm (built from source)", "0.6.3"),
        ("vllm (CUDA 12.1)", ""),  # another product's version, in parentheses
        ("AutoAWQ 0.1.6 (HF transformers generate, fused layers)", ""),  # AutoAWQ's number, not transformers'
        ("HF transformers 4.51.3", "4.51.3"),
        ("vllm 0.19 --max-num-seqs 8", "0.19"),
    ],
)
def test_the_profile_keeps_the_engine_s_own_release(name: str, release: str) -> None:
    assert resolve_engine(name).version == release


def test_an_estimate_s_alternatives_are_those_of_the_release_asked() -> None:
    """AWQ is refused on a V100 by vLLM 0.19; its own GPTQ kernel would run there, and the estimate says so
    as can_run does (not today's vLLM, which runs nothing on Volta)."""
    est = gpuscout.estimate("llama-3.1-8b", V100, engine="vllm 0.19", precision="awq")
    assert not est.supported
    assert est.assumptions["alternatives"].startswith("vllm with GPTQ int4 (weight-only)")
    check = gpuscout.can_run("vllm 0.19", "awq", V100)
    assert check.alternatives[0].message() == "vllm with GPTQ int4 (weight-only)"


def test_a_plain_int4_on_volta_with_old_vllm_is_gptq_only() -> None:
    v = gpuscout.can_run("vllm 0.19", "int4", V100).verdict
    assert v.mode == "weight-only" and "GPTQ checkpoints only" in v.reason and "unverified" not in v.message()


@pytest.mark.parametrize(
    ("engine", "read_in"),
    [
        ("hf transformers 4.30.0", "transformers 5.24.0"),  # not the PyTorch version beside it
        ("tgi 1.4", "tgi 3.3.6-dev0"),
    ],
)
def test_the_caveat_names_the_release_the_rule_was_read_in(engine: str, read_in: str) -> None:
    v = gpuscout.can_run(engine, "fp8", "H100-SXM").verdict
    assert v.reason.endswith(f"; read in {read_in}, not checked for {engine.rsplit(' ', 1)[1]}")


def test_a_release_in_parentheses_is_read_by_the_rules_as_by_the_timing() -> None:
    prof = resolve_engine("vllm (0.6.3)")
    assert (prof.era, prof.version) == ("v0", "0.6.3")
    assert gpuscout.can_run("vllm (0.6.3)", "fp16", V100).mode == "native"


def test_the_advisor_names_a_checkpoint_alternative_so_that_it_runs() -> None:
    """The advisor estimates the alternatives it offers (the engine named as the user wrote it, its release
    and flags: ``inference_configs``): vLLM 0.19's GPTQ kernel on a V100 is named "gptq" (a plain int4
    would not say which checkpoint runs), and estimate() runs it."""
    from gpuscout.advise.backends import support_alternatives

    options = support_alternatives("vllm 0.19", "awq", resolve_gpu(V100))
    first = options[0]
    assert (first.engine, first.precision) == ("vllm", "gptq")
    assert gpuscout.estimate("llama-3.1-8b", V100, engine="vllm 0.19", precision=first.precision).supported


@pytest.mark.parametrize(
    ("release", "mode"),
    [
        ("vllm 0.6", "unsupported"),
        ("vllm 0.13", "unsupported"),
        ("vllm 0.14", "weight-only"),
        ("vllm", "weight-only"),
    ],
)
def test_vllm_fp8_on_a_t4_needs_0_14(release: str, mode: str) -> None:
    """Fp8Config's get_min_capability is 80 from 0.6.3 through 0.13.0 and 75 (FP8 Marlin) from 0.14."""
    assert gpuscout.can_run(release, "fp8", "T4").mode == mode
    assert gpuscout.can_run(release, "fp8", "A100-SXM4-80GB").mode == "weight-only"


def test_a_past_release_is_labelled_under_the_product_name() -> None:
    assert resolve_engine("vllm 0.6").label == "vLLM (V0 engine, 0.4-0.7)"  # not "(V1 engine) (V0 engine..."
    assert resolve_engine("tgi 1.0.3").label == "HF TGI (1.x, no CUDA graphs)"
    assert resolve_engine("vllm").label == "vLLM (V1 engine)"
    assert resolve_engine("vllm --enforce-eager").label.startswith("vLLM (V1 engine) (--enforce-eager")


def test_the_caveat_speaks_only_of_a_rule_the_verdict_quotes() -> None:
    """FP8 on a T4 under 0.6 is decided by a rule read for that range; the Turing platform row (read in 0.33,
    it only admits the engine) is not quoted, so no "not checked" is said of it."""
    v = gpuscout.can_run("vllm 0.6", "fp8", "T4").verdict
    assert "get_min_capability 80" in v.reason and "not checked" not in v.reason


@pytest.mark.parametrize(
    ("release", "kernel"),
    [
        ("vllm 0.6", "own GEMM kernel"),
        ("vllm 0.13", "own GEMM kernel"),
        ("vllm 0.14", "Marlin"),
        ("vllm", "Marlin"),
    ],
)
def test_awq_on_a_t4_ran_its_own_kernel_before_0_14(release: str, kernel: str) -> None:
    """awq_marlin.py's get_min_capability is 80 in 0.6.3 through 0.13.0 and 75 from 0.14.0; awq.py's is 75."""
    v = gpuscout.can_run(release, "awq", "T4").verdict
    assert v.mode == "weight-only" and kernel in v.reason
