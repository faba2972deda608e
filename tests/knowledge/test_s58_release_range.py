""" "Would run: X or later" must not name releases that the rules refuse again (stop 58): vLLM 0.4 cannot load
Llama 3.1 (0.5.3 can), but from 0.20 vLLM's wheels carry no Volta kernels, so on a V100 the releases that
run it are 0.5.3 up to, not including, 0.20. Until stop 58 it said "vllm 0.5.3 or later"."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.engine_support import check_support, later_release_words, refused_again_at


@pytest.mark.parametrize(
    ("gpu", "precision", "since", "until"),
    [
        ("V100-SXM2-32GB", "fp16", "0.5.3", "0.20"),
        ("V100-SXM2-32GB", "fp16", "0.19", "0.20"),
        ("H100-SXM", "bf16", "0.5.3", ""),  # Hopper is never dropped
        ("V100-SXM2-32GB", "fp16", "0.20", ""),  # already refused there: nothing "again"
        ("T4", "fp16", "0.5.3", ""),  # Turing stays in the 7.5+ rule
    ],
)
def test_the_first_release_that_refuses_it_again_is_found(
    gpu: str, precision: str, since: str, until: str
) -> None:
    acc = resolve_gpu(gpu)
    assert refused_again_at("vllm", precision, acc, "", since) == until
    if until:
        assert not check_support("vllm", precision, acc, release=until).supported
        assert check_support("vllm", precision, acc, release=since).supported


def test_the_wording_says_where_the_range_ends() -> None:
    assert later_release_words("vllm", "0.5.3", False, "0.20") == "vllm 0.5.3 or later, before 0.20"
    assert later_release_words("vllm", "0.8.3", True, "0.20") == (
        "a later vllm release before 0.20 (none before 0.8.3 runs it)"
    )
    assert later_release_words("vllm", "0.9", False) == "vllm 0.9 or later"


def test_estimate_names_the_closed_range_on_a_v100() -> None:
    e = estimate("llama-3.1-8b", "V100-SXM2-32GB", engine="vllm 0.4.0")
    assert not e.supported and "predates this model's architecture" in e.unsupported_reason
    assert e.assumptions["alternatives"] == "vllm 0.5.3 or later, before 0.20"
    # the range is right at both ends: 0.19 runs it, 0.20 does not
    assert estimate("llama-3.1-8b", "V100-SXM2-32GB", engine="vllm 0.19").supported
    assert not estimate("llama-3.1-8b", "V100-SXM2-32GB", engine="vllm 0.20").supported
    # a lower bound keeps its caution and gains the end
    q = estimate("qwen3-8b", "V100-SXM2-32GB", engine="vllm 0.8.0")
    assert q.assumptions["alternatives"] == "a later vllm release before 0.20 (none before 0.8.3 runs it)"
    # where no later rule refuses it, the range stays open
    assert estimate("llama-3.1-8b", "H100-SXM", engine="vllm 0.4.0").assumptions["alternatives"] == (
        "vllm 0.5.3 or later"
    )


def _dead_end(gpus: set[str], engine: str = "vllm 0.4.0") -> str:
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from gpuscout.catalog.api import current_offers

    offers = [o for o in current_offers() if o.accelerator in gpus]
    assert {o.accelerator for o in offers} == gpus
    w = Workload.from_dict({"kind": "serve", "model": "llama-3.1-8b", "concurrency": 4, "engine": engine})
    answer = advise(w, offers, top=3)
    assert not answer.rows and answer.binding is not None
    return answer.binding


def test_the_advisor_judges_the_release_on_the_offers_gpus() -> None:
    """The dead end said "would run: vllm 0.5.3 or later" of V100 offers, which vLLM 0.20 and later refuse."""
    assert "would run: vllm 0.5.3 or later, before 0.20;" in _dead_end({"V100-SXM2-32GB"})
    assert "would run: vllm 0.5.3 or later;" in _dead_end({"H100-SXM"})
    # GPUs that differ: the wording of most of them, then the others with their GPUs
    mixed = _dead_end({"H100-SXM", "A100-SXM4-80GB", "V100-SXM2-32GB"})
    assert (
        "would run: vllm 0.5.3 or later (except: vllm 0.5.3 or later, before 0.20 on V100-SXM2-32GB)" in mixed
    )


def test_the_dead_end_judges_the_precision_asked() -> None:
    """FP8 with vLLM 0.4.0 on a V100: no vLLM release runs FP8 there (it said "vllm 0.5.3 or later, before
    0.20", judged on the model's bf16; review, stop 58)."""
    from gpuscout.advise.api import advise
    from gpuscout.advise.workload import Workload
    from gpuscout.catalog.api import current_offers

    offers = [o for o in current_offers() if o.accelerator == "V100-SXM2-32GB"]
    w = Workload.from_dict(
        {
            "kind": "serve",
            "model": "llama-3.1-8b",
            "concurrency": 4,
            "engine": "vllm 0.4.0",
            "precision": "fp8",
        }
    )
    binding = advise(w, offers, top=3).binding or ""
    assert "no vllm release runs fp8 on these offers' GPUs" in binding
    assert "would run: vllm" not in binding


def test_a_release_that_runs_it_comes_before_the_gpus_none_runs_it_on() -> None:
    mixed = _dead_end({"H100-SXM", "P100-PCIe-16GB"})
    assert "would run: vllm 0.5.3 or later (except: no vllm release runs its bf16 on P100-PCIe-16GB)" in mixed
