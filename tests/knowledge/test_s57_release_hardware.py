"""A named engine release older than the hardware or the precision cannot run it (stop 57): ``--engine
"vllm 0.6.3"`` on a B200 was timed (its wheels carry no sm_100 kernels: Blackwell needs a CUDA 12.8 build,
which vLLM's default wheels reached in 0.9.0), and so was NVFP4 on vLLM 0.6.3 (NVFP4 checkpoints came in
2025). The refusal names the engine field and the release that would run it; where the bound is only a lower
bound, it says "today's ... (not before X)" and not "X or later"."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpuscout import estimate
from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.support import can_run, verdict_for
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.engine_support import _bounds, check_support, support_rules

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("engine", "gpu", "precision", "release", "first"),
    [
        ("vllm", "B200", "bf16", "0.6.3", "0.9"),
        ("vllm", "B200", "bf16", "0.8.5", "0.9"),
        ("vllm", "RTX5090", "fp16", "0.7.3", "0.9"),
        ("tensorrt-llm", "B200", "fp8", "0.16", "0.17"),
        ("sglang", "RTX5090", "bf16", "0.4.3", "0.4.6"),
        ("tgi", "B200", "bf16", "3.2.3", "3.3"),
        ("vllm", "H100-SXM", "nvfp4", "0.6.3", "0.7"),
        ("vllm", "H100-SXM", "fp8", "0.3.3", "0.4"),
        ("vllm", "B200", "mxfp4", "0.9.2", None),  # allowed by the hardware row; refused by nothing here
    ],
)
def test_a_release_before_the_bound_is_refused_and_the_bound_passes(
    engine: str, gpu: str, precision: str, release: str, first: str | None
) -> None:
    acc = resolve_gpu(gpu)
    asked = check_support(engine, precision, acc, release=release)
    if first is None:
        assert asked.supported
        return
    assert not asked.supported and asked.first_release == first
    assert asked.tag == "inferred"  # recalled release notes: the verdict says so
    assert check_support(engine, precision, acc, release=first).supported
    assert check_support(engine, precision, acc).supported  # today's release


def test_the_alternative_is_the_same_engine_from_the_first_release_that_runs_it() -> None:
    old = can_run("vllm 0.6.3", "bf16", "B200")
    assert not old.supported
    assert old.alternatives[0].message() == "vllm 0.9 or later with bf16 (native) [inferred]"
    # a lower bound is not said as the first release that runs it
    nvfp4 = can_run("vllm 0.6.3", "nvfp4", "H100-SXM")
    assert (
        nvfp4.alternatives[0].message().startswith("today's vllm (not before 0.7) with nvfp4 (weight-only)")
    )
    # a release refused whatever its number (vLLM on a K80) gets no such alternative
    k80 = can_run("vllm 0.6.3", "fp16", "K80")
    assert not k80.supported and k80.verdict.first_release == ""
    assert all(not a.since for a in k80.alternatives)


def test_estimate_refuses_it_on_the_engine_field() -> None:
    e = estimate("llama-3.1-8b", "B200", engine="vllm 0.6.3")
    assert not e.supported and e.decode_tokens_per_s == 0
    assert "CUDA 12.8" in e.unsupported_reason and "[inferred]" in e.unsupported_reason
    assert e.assumptions["alternatives"].startswith("vllm 0.9 or later")
    with pytest.raises(ConfigurationRejected) as exc:
        estimate("llama-3.1-8b", "B200", engine="vllm 0.6.3", strict=True)
    assert exc.value.field == "engine"
    assert estimate("llama-3.1-8b", "B200", engine="vllm 0.9").supported
    # a refusal that no release lifts stays on the gpu field (vLLM FP8 on a V100)
    with pytest.raises(ConfigurationRejected) as exc:
        estimate("llama-3.1-8b", "V100-SXM2-32GB", precision="fp8", engine="vllm", strict=True)
    assert exc.value.field == "gpu"


def test_every_release_bounded_refusal_cites_a_source_and_is_not_unverified() -> None:
    bounded = [
        r
        for r in support_rules()
        if r.mode == "unsupported" and any(op == "<" for op, _ in _bounds(r.versions))
    ]
    assert len(bounded) >= 7
    for r in bounded:
        assert r.tag != "unverified" and r.sources, r
        assert all(u.startswith("https://") for u in r.sources), r


def test_no_calibration_run_with_a_named_release_is_refused() -> None:
    """Every measured run ran: a rule that refuses one of them is wrong. Each calibration case whose engine
    names a release is judged with that release on its GPU and precision."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import accuracy  # type: ignore[import-not-found]

    from gpuscout.estimate.precision import resolve_precision

    cases = accuracy.build_cases(accuracy.load(ROOT / "benchmarks" / "data" / "measurements.csv"))
    checked = 0
    for case in cases:
        if case.skip or not case.engine_text or "gpu" not in case.kwargs:
            continue
        eng = resolve_engine(case.engine_text)
        if not eng.version:
            continue
        precision = case.kwargs.get("precision")
        if not isinstance(precision, str):
            continue
        fmt = resolve_precision(precision)
        verdict = verdict_for(eng, fmt, resolve_gpu(case.kwargs["gpu"]))
        checked += 1
        assert verdict.supported or not verdict.first_release, (case.label, verdict.reason)
    assert checked >= 200
