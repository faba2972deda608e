"""A named engine release older than a model's architecture cannot load it (stop 56: ``--engine "vllm
0.6.3"`` priced DeepSeek-V3, first run by vLLM 0.6.6; ``transformers 4.50`` timed Qwen3, which it fails on
with ``KeyError: 'qwen3'``). The rules are data with their sources; only a named release is judged."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from gpuscout import estimate
from gpuscout.errors import ConfigurationRejected
from gpuscout.knowledge.architecture_support import (
    _validate,
    architecture_rules,
    too_old_for,
)
from gpuscout.knowledge.hf_config import IMPORTED_FAMILIES
from gpuscout.knowledge.models import all_models

ROOT = Path(__file__).resolve().parents[2]


def test_every_rule_names_a_family_of_the_model_table_and_a_source() -> None:
    # the model table's families, and the one an imported Llama 3.x config has
    families = {m.family for m in all_models()} | set(IMPORTED_FAMILIES)
    rules = architecture_rules()
    assert rules
    for r in rules:
        assert r.family in families, r
        assert r.sources and all(u.startswith("https://") for u in r.sources), r
        assert r.tag != "unverified"  # a refusal needs better than an unverified rule


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"engine": "vllmm"}, "unknown engine"),
        ({"tag": "unverified"}, "a refusal needs better"),
        ({"since": "soon"}, "not a release number"),
        ({"source_url": ""}, "a source are required"),
    ],
)
def test_a_malformed_rule_is_refused_when_read(change: dict[str, str], problem: str) -> None:
    good = architecture_rules()[0]
    with pytest.raises(ValueError, match=problem):
        _validate(dataclasses.replace(good, **change))


def test_a_release_before_the_first_that_runs_the_family_fails_it() -> None:
    assert too_old_for("vllm", "0.6.3", "deepseek_v3") is not None
    assert too_old_for("vllm", "0.6.6", "deepseek_v3") is None  # the first release that runs it
    assert too_old_for("vllm", "0.7.3", "deepseek_v3") is None
    assert too_old_for("vllm", "", "deepseek_v3") is None  # today's release: not judged
    assert too_old_for("vllm", "0.2.0", "llama2") is None  # no rule: no claim
    assert too_old_for("hf-transformers", "4.50", "qwen3") is not None
    assert too_old_for("hf-transformers", "4.51.3", "qwen3") is None


@pytest.mark.parametrize(
    ("model", "gpus", "engine", "first"),
    [
        ("deepseek-v3", 8, "vllm 0.6.3", "0.6.6"),
        ("gpt-oss-120b", 1, "vllm 0.5.0", "0.10.1"),
        ("mixtral-8x7b", 2, "vllm 0.2.1", "0.2.4"),
        ("qwen3-8b", 1, "transformers 4.50", "4.51.0"),
        ("llama-3.1-70b", 4, "tgi 1.4", "2.2.0"),
    ],
)
def test_estimate_refuses_a_release_older_than_the_model(
    model: str, gpus: int, engine: str, first: str
) -> None:
    gpu = "H200" if model == "deepseek-v3" else "H100-SXM"
    e = estimate(model, gpu, gpus=gpus, engine=engine)
    assert not e.supported and e.decode_tokens_per_s == 0
    assert "predates this model's architecture" in e.unsupported_reason and first in e.unsupported_reason
    assert "[inferred]" in e.unsupported_reason  # the rule's tag is said
    assert f"{first} or later" in e.assumptions["alternatives"]
    with pytest.raises(ConfigurationRejected) as exc:
        estimate(model, gpu, gpus=gpus, engine=engine, strict=True)
    assert exc.value.field == "engine"
    # the first release that runs it is timed
    assert estimate(model, gpu, gpus=gpus, engine=engine.split()[0] + " " + first).supported


def test_no_calibration_run_is_refused_by_these_rules() -> None:
    """Every measured run ran: a rule refusing one of them would be wrong. Each calibration case whose
    engine names a release that a rule speaks of for its model passes that rule."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import accuracy  # type: ignore[import-not-found]

    from gpuscout.estimate.engines import resolve_engine
    from gpuscout.knowledge.models import resolve_model

    cases = accuracy.build_cases(accuracy.load(ROOT / "benchmarks" / "data" / "measurements.csv"))
    checked = 0
    for case in cases:
        if case.skip or not case.engine_text or "model" not in case.kwargs:
            continue
        eng = resolve_engine(case.engine_text)
        spec = resolve_model(case.kwargs["model"])
        if eng.version and any(
            r.engine == eng.name and r.family == spec.family for r in architecture_rules()
        ):
            checked += 1
            assert too_old_for(eng.name, eng.version, spec.family) is None, case.label
    assert checked >= 50  # the Qwen3, Llama 3.1 and DeepSeek runs with a named release


def test_the_advisor_says_a_named_release_cannot_load_the_model() -> None:
    """Every offer refused alike: the dead end names the release rule, not the checkpoint's format (it said
    "--engine 'vllm 0.5.0' cannot run the checkpoint's own format (mxfp4-moe) on any GPU")."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from gpuscout.catalog.api import current_offers

    offers = [
        o for o in current_offers() if o.accelerator in {"H100-SXM", "A100-SXM4-80GB", "V100-SXM2-16GB"}
    ]
    w = Workload.from_dict(
        {"kind": "serve", "model": "gpt-oss-120b", "concurrency": 4, "engine": "vllm 0.5.0"}
    )
    answer = advise(w, offers, top=3)
    assert not answer.rows and answer.binding is not None
    assert "--engine 'vllm 0.5.0' cannot load gpt-oss-120b" in answer.binding
    assert (
        "first ran in vLLM 0.10.1" in answer.binding and "without --engine the cheapest is" in answer.binding
    )
    assert "would run: vllm 0.10.1 or later" in answer.binding  # the release that loads it, named
    # the count says what refused them: the release, not "this engine and precision"
    assert "cannot run this engine release" in answer.binding and "and precision" not in answer.binding
    # today's vLLM loads it
    assert advise(Workload.from_dict({**w.model_dump(), "engine": "vllm"}), offers, top=1).rows
