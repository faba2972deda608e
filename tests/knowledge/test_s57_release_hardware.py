"""A named engine release older than the hardware or the precision cannot run it (stop 57): ``--engine
"vllm 0.6.3"`` on a B200 was timed (its wheels carry no sm_100 kernels: Blackwell needs a CUDA 12.8 build,
which vLLM's default wheels reached in 0.9.0), and so was NVFP4 on vLLM 0.6.3 (NVFP4 checkpoints came in
2025). The refusal names the engine field and the release that would run it; where the bound is only a lower
bound, it says "a later ... release (none before X runs it)" and not "X or later"."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpuscout import estimate
from gpuscout.errors import ConfigurationRejected
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.support import can_run, verdict_for
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.engine_support import _bounds, check_support, first_running_release, support_rules

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("engine", "gpu", "precision", "release", "first", "at_least"),
    [
        ("vllm", "B200", "bf16", "0.6.3", "0.9", False),
        ("vllm", "B200", "bf16", "0.8.5", "0.9", False),
        ("vllm", "RTX5090", "fp16", "0.7.3", "0.9", False),
        ("tensorrt-llm", "B200", "fp8", "0.16", "0.17", False),
        ("sglang", "RTX5090", "bf16", "0.4.3", "0.4.6", True),
        ("tgi", "B200", "bf16", "3.2.3", "3.3", True),
        ("vllm", "H100-SXM", "nvfp4", "0.6.3", "0.7", True),
        ("vllm", "H100-SXM", "fp8", "0.3.3", "0.4", True),
        (
            "vllm",
            "MI355X",
            "bf16",
            "0.6.3",
            "0.9",
            True,
        ),  # gfx950 (June 2025) postdates every release before 0.9
        # two bounds in turn: FP8 weights came in the 0.4 series, and on Turing only from 0.14 (Marlin FP8)
        ("vllm", "T4", "fp8", "0.3.0", "0.14", True),
    ],
)
def test_a_release_before_the_bound_is_refused_and_the_first_that_runs_it_is_found(
    engine: str, gpu: str, precision: str, release: str, first: str, at_least: bool
) -> None:
    acc = resolve_gpu(gpu)
    asked = check_support(engine, precision, acc, release=release)
    assert not asked.supported
    assert asked.tag == "inferred" or not at_least  # recalled release notes: the verdict says so
    later = first_running_release(engine, precision, acc, release=release)
    assert later is not None and (later.since, later.at_least) == (first, at_least)
    assert check_support(engine, precision, acc, release=first).supported
    assert check_support(engine, precision, acc).supported  # today's release


@pytest.mark.parametrize(
    ("engine", "gpu", "precision", "release"),
    [
        ("vllm", "B200", "nf4", "0.6.3"),  # too old for the B200, and no release runs NF4
        ("vllm", "V100-SXM2-32GB", "fp8", "0.3.0"),  # no release runs FP8 on Volta
        ("vllm", "K80", "fp16", "0.6.3"),
        ("vllm", "B200", "bf16", ""),  # today's release runs it
        ("vllm", "B200", "bf16", "0.9.2"),
    ],
)
def test_no_later_release_is_named_where_none_runs_it_or_the_asked_one_does(
    engine: str, gpu: str, precision: str, release: str
) -> None:
    assert first_running_release(engine, precision, resolve_gpu(gpu), release=release) is None


def test_the_alternative_is_the_same_engine_from_the_first_release_that_runs_it() -> None:
    old = can_run("vllm 0.6.3", "bf16", "B200")
    assert not old.supported
    # the verdict names the release its rules were judged for (it read "vllm: bf16 on B200 is not supported")
    assert old.verdict.message().startswith("vllm 0.6.3: bf16 on B200 is not supported")
    assert old.alternatives[0].message() == "vllm 0.9 or later with bf16 (native) [inferred]"
    # a lower bound is not said as the first release that runs it
    nvfp4 = can_run("vllm 0.6.3", "nvfp4", "H100-SXM")
    assert (
        nvfp4.alternatives[0]
        .message()
        .startswith("a later vllm release (none before 0.7 runs it) with nvfp4 (weight-only)")
    )
    # judged at the release it names, not today's: 0.9 on a B200 runs dense MXFP4 by a row read in a later
    # release, and the alternative says so
    mx = can_run("vllm 0.6.3", "mxfp4", "B200")
    assert mx.alternatives[0].since == "0.9" and "not checked for 0.9" in mx.alternatives[0].reason
    # a release refused whatever its number (vLLM on a K80) gets no such alternative
    k80 = can_run("vllm 0.6.3", "fp16", "K80")
    assert not k80.supported
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
    # a refusal that no release lifts stays on the gpu field (vLLM FP8 on a V100, NF4 on a B200 at 0.6.3)
    for gpu, precision, engine in (("V100-SXM2-32GB", "fp8", "vllm"), ("B200", "nf4", "vllm 0.6.3")):
        with pytest.raises(ConfigurationRejected) as exc:
            estimate("llama-3.1-8b", gpu, precision=precision, engine=engine, strict=True)
        assert exc.value.field == "gpu"


def test_a_release_too_old_for_the_model_and_the_gpu_names_the_release_that_runs_both() -> None:
    """vLLM 0.4.0 cannot load Llama 3.1 (0.5.3 does), and nothing before 0.9 runs on a B200: "would run"
    named 0.5.3 (review, stop 57)."""
    e = estimate("llama-3.1-8b", "B200", engine="vllm 0.4.0")
    assert not e.supported and "predates this model's architecture" in e.unsupported_reason
    assert e.assumptions["alternatives"] == "vllm 0.9 or later"
    on_h100 = estimate("llama-3.1-8b", "H100-SXM", engine="vllm 0.4.0")
    assert on_h100.assumptions["alternatives"] == "vllm 0.5.3 or later"


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
        assert verdict.supported, (case.label, verdict.reason)
    assert checked >= 200


@pytest.mark.parametrize(
    ("model", "engine", "said"),
    [
        ("gpt-oss-120b", "sglang 0.4.6", "a later sglang release (none before 0.4.10 runs it)"),
        ("qwen3-8b", "tensorrt-llm 0.16", "a later tensorrt-llm release (none before 0.18 runs it)"),
        ("deepseek-v3", "tensorrt-llm 0.16", "a later tensorrt-llm release (none before 0.17 runs it)"),
        ("qwen3-30b-a3b", "tgi 3.1", "a later tgi release (none before 3.2 runs it)"),
        # TGI runs no MXFP4 at any release: other engines, not a later TGI
        ("gpt-oss-20b", "tgi 3.2", "vllm with mxfp4 (weight-only); sglang with mxfp4 (weight-only)"),
    ],
)
def test_a_release_older_than_a_lower_bound_is_refused_without_overclaiming(
    model: str, engine: str, said: str
) -> None:
    """Rows that rest on dates alone (the model was published after every release below the bound) refuse
    those releases and never say "bound or later": which release first ran the model is not recorded."""
    gpus = 8 if model == "deepseek-v3" else 1
    e = estimate(model, "H200", gpus=gpus, engine=engine)
    assert not e.supported and "predates this model's architecture" in e.unsupported_reason
    assert e.assumptions["alternatives"] == said


def test_a_rule_bound_other_than_first_or_at_least_is_refused_when_read() -> None:
    import dataclasses

    from gpuscout.knowledge.architecture_support import _validate, architecture_rules

    rules = architecture_rules()
    assert {r.bound for r in rules} == {"first", "at least"}
    with pytest.raises(ValueError, match="bound 'soon'"):
        _validate(dataclasses.replace(rules[0], bound="soon"))


def test_the_advisor_names_the_release_rule_on_a_gpu_it_refuses() -> None:
    """The dead end judged the engine's platform row at today's release (vLLM runs on a B200) and said it
    "cannot run the checkpoint's own format"; it names the CUDA 12.8 rule now."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from gpuscout.catalog.api import current_offers

    offers = [o for o in current_offers() if o.accelerator == "B200"]
    assert offers
    w = Workload.from_dict(
        {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 10, "engine": "vllm 0.6.3"}
    )
    answer = advise(w, offers, top=3)
    assert not answer.rows and answer.binding is not None
    assert "runs on none of these offers' GPUs" in answer.binding and "CUDA 12.8" in answer.binding
    assert advise(Workload.from_dict({**w.model_dump(), "engine": "vllm 0.9"}), offers, top=1).rows


def test_the_advisor_names_a_lower_bound_hardware_rule_too() -> None:
    """SGLang 0.4.5 on B200 offers: the later-release alternative (bare "sglang") was re-timed as the named
    release, refused again, and the dead end said "cannot run the checkpoint's own format (bf16)"."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from gpuscout.catalog.api import current_offers

    offers = [o for o in current_offers() if o.accelerator == "B200"]
    w = Workload.from_dict(
        {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 10, "engine": "sglang 0.4.5"}
    )
    answer = advise(w, offers, top=3)
    assert not answer.rows and answer.binding is not None
    assert "runs on none of these offers' GPUs" in answer.binding and "CUDA 12.8" in answer.binding


def test_the_advisor_names_no_later_release_where_none_runs_the_model_s_format() -> None:
    """gpt-oss with TGI 3.2: a later TGI loads it, but TGI runs no MXFP4 at any release."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from gpuscout.catalog.api import current_offers

    offers = [o for o in current_offers() if o.accelerator in {"H100-SXM", "A100-SXM4-80GB"}]
    w = Workload.from_dict({"kind": "serve", "model": "gpt-oss-20b", "concurrency": 4, "engine": "tgi 3.2"})
    binding = advise(w, offers, top=3).binding or ""
    assert "TGI 3.2 predates this model's architecture" in binding
    assert "no tgi release runs its mxfp4-moe on any GPU the rules know" in binding
    assert "would run: a later tgi release" not in binding


def test_can_run_names_the_engine_field_where_a_later_release_runs_it() -> None:
    with pytest.raises(ConfigurationRejected) as exc:
        can_run("vllm 0.6.3", "bf16", "B200").raise_if_unsupported()
    assert exc.value.field == "engine"
    with pytest.raises(ConfigurationRejected) as exc:
        can_run("vllm", "fp8", "V100-SXM2-32GB").raise_if_unsupported()
    assert exc.value.field == "gpu"
