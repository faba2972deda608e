"""Workloads renters really have, ranked over the bundled snapshot with the real estimator, and checked
against an expert's general rules (``tests/advise/expert_rules.py``) on the rows shown.

Each scenario asserts the rules, not an expected winner; a few add the specific facts an expert
knows about that workload (a 70B FP8 endpoint runs on FP8 hardware, a QLoRA run's balanced pick is
not a three-day run, a bursty endpoint lands on fine-grained billing).
"""

from __future__ import annotations

from functools import cache

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.types import Advice
from gpuscout.advise.workload import (
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
    Workload,
)
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.providers import provider_terms
from tests.advise.expert_rules import violations
from tests.advise.helpers import NOW

TOP = 10

SCENARIOS: dict[str, dict[str, object]] = {
    # serving
    "70b-fp8-chat-16-users": {
        "kind": "serve",
        "model": "llama-3.1-70b",
        "precision": "fp8",
        "concurrency": 16,
        "prompt_tokens": 4000,
        "output_tokens": 800,
    },
    "gpt-oss-120b-chat-8-users": {"kind": "serve", "model": "gpt-oss-120b", "concurrency": 8},
    "deepseek-r1-endpoint-4-users": {"kind": "serve", "model": "deepseek-r1", "concurrency": 4},
    "8b-fp8-chat-16-users": {"kind": "serve", "model": "llama-3.1-8b", "precision": "fp8", "concurrency": 16},
    "8b-fp8-batch-500m-tokens": {
        "kind": "batch",
        "model": "llama-3.1-8b",
        "precision": "fp8",
        "output_tokens_total": 5e8,
    },
    "8b-chat-32-users": {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "concurrency": 32,
        "prompt_tokens": 2000,
        "output_tokens": 500,
    },
    "8b-bursty-endpoint": {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "concurrency": 4,
        "bursts_per_day": 20,
        "burst_minutes": 6,
    },
    "qwen3-32b-api-2-rps": {
        "kind": "serve",
        "model": "qwen3-32b",
        "requests_per_s": 2.0,
        "prompt_tokens": 1500,
        "output_tokens": 300,
    },
    "8b-long-context-rag": {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "concurrency": 8,
        "prompt_tokens": 30000,
        "output_tokens": 1000,
    },
    "mixtral-moe-endpoint": {
        "kind": "serve",
        "model": "mixtral-8x7b",
        "concurrency": 8,
        "prompt_tokens": 2000,
        "output_tokens": 400,
    },
    "70b-int4-office-hours": {
        "kind": "serve",
        "model": "llama-3.1-70b",
        "precision": "int4",
        "concurrency": 4,
        "hours_per_day": 10,
    },
    "8b-strict-latency": {
        "kind": "serve",
        "model": "llama-3.1-8b",
        "concurrency": 8,
        "ttft_ms_max": 300,
        "tpot_ms_max": 20,
    },
    # batch generation
    "8b-batch-2b-tokens": {
        "kind": "batch",
        "model": "llama-3.1-8b",
        "output_tokens_total": 2e9,
        "prompt_tokens": 1500,
        "output_tokens": 300,
    },
    "70b-batch-by-tomorrow": {
        "kind": "batch",
        "model": "llama-3.1-70b",
        "precision": "fp8",
        "output_tokens_total": 2e8,
        "deadline_hours": 24,
    },
    # diffusion
    "sdxl-100k-images-12h": {
        "kind": "batch",
        "model": "sdxl",
        "images_total": 100_000,
        "steps": 30,
        "deadline_hours": 12,
    },
    "flux-10k-images": {"kind": "batch", "model": "flux.1-dev", "images_total": 10_000, "steps": 28},
    # fine-tuning
    "70b-qlora-50m-tokens-spot": {
        "kind": "finetune",
        "model": "llama-3-70b",
        "method": "qlora",
        "dataset_tokens": 5e7,
        "epochs": 2,
        "spot_allowed": True,
    },
    "8b-lora-100m-tokens": {
        "kind": "finetune",
        "model": "llama-3.1-8b",
        "method": "lora",
        "dataset_tokens": 1e8,
    },
    "8b-full-finetune-on-demand": {
        "kind": "finetune",
        "model": "llama-3.1-8b",
        "method": "full",
        "dataset_tokens": 2e8,
        "spot_allowed": False,
    },
    "70b-full-finetune-in-two-days": {
        "kind": "finetune",
        "model": "llama-3.1-70b",
        "method": "full",
        "dataset_tokens": 2e7,
        "deadline_hours": 48,
    },
    # pre-training
    "1b-pretrain-20b-tokens-64-gpus": {
        "kind": "pretrain",
        "model": "llama-3.2-1b",
        "token_budget": 2e10,
        "gpus": 64,
    },
    "13b-stand-in-pretrain-8-gpus": {
        "kind": "pretrain",
        "model": "my-13b",
        "params_b": 13,
        "token_budget": 2.6e10,
        "gpus": 8,
    },
}


@cache
def _offers() -> tuple[Offer, ...]:
    from gpuscout.catalog.api import current_offers

    return tuple(current_offers())


@cache
def _answer(name: str) -> tuple[AnyWorkload, Advice]:
    w = Workload.from_dict(dict(SCENARIOS[name]))
    return w, advise(w, _offers(), top=TOP, now=NOW)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_an_expert_would_sign_the_top_rows(name: str) -> None:
    w, answer = _answer(name)
    assert answer.rows, f"{name}: no row ({answer.binding})"
    assert violations(w, answer) == []


def test_the_70b_fp8_endpoint_is_served_on_fp8_capable_hardware() -> None:
    _, answer = _answer("70b-fp8-chat-16-users")
    for r in answer.rows[:5]:
        assert resolve_gpu(r.offer.accelerator).fp8_supported, r.offer.accelerator
    # and never on eight 16 GB V100s, which have neither FP8 nor the memory to spare
    assert not any(r.offer.accelerator.startswith("V100") for r in answer.rows)


def test_a_qlora_run_offers_the_fast_run_not_only_the_three_day_one() -> None:
    _, answer = _answer("70b-qlora-50m-tokens-spot")
    rows = {r.rank: r for r in answer.rows}
    fastest = rows[answer.picks["fastest"]].time_to_result_s or 0.0
    balanced = rows[answer.picks["balanced"]]
    assert (balanced.time_to_result_s or 0.0) <= 3 * fastest
    assert (balanced.time_to_result_s or 0.0) < 24 * 3600  # a day, not three
    # the slow cheap run is still shown, as the cheapest pick, with its duration next to its cost
    cheapest = rows[answer.picks["cheapest"]]
    assert cheapest.total_usd is not None and cheapest.total_usd <= (balanced.total_usd or 0.0)


def test_the_bursty_endpoint_cheapest_rows_bill_by_the_second_or_minute() -> None:
    _, answer = _answer("8b-bursty-endpoint")
    cheapest = answer.rows[answer.picks["cheapest"] - 1]
    increment = provider_terms(cheapest.offer.billing_terms or cheapest.offer.provider).billing_increment_s
    assert increment is not None and increment <= 60
    # the idle-GPU warning speaks of the load, and is not on every row
    assert not all(any("idle" in x for x in r.warnings) for r in answer.rows)


def test_serving_defaults_to_chat_targets_and_says_so() -> None:
    w, answer = _answer("8b-chat-32-users")
    assert isinstance(w, ServeWorkload) and w.ttft_target_ms == 2000 and w.tpot_target_ms == 50
    assert any("chat defaults" in t for t in answer.targets)


def test_deadline_jobs_finish_in_time() -> None:
    for name in ("70b-batch-by-tomorrow", "sdxl-100k-images-12h", "70b-full-finetune-in-two-days"):
        w, answer = _answer(name)
        assert isinstance(w, BatchWorkload | FinetuneWorkload)
        deadline = w.deadline_hours
        assert deadline is not None
        assert all((r.time_to_result_s or 0) <= deadline * 3600 for r in answer.rows), name


def test_pretraining_runs_on_the_asked_number_of_gpus_over_a_fabric() -> None:
    w, answer = _answer("1b-pretrain-20b-tokens-64-gpus")
    assert isinstance(w, PretrainWorkload)
    for r in answer.rows:
        assert r.config.gpus_used >= 64
        assert r.config.nodes == 1 or r.offer.internode


def test_impossible_targets_say_what_binds_and_what_would_fit() -> None:
    w = ServeWorkload(
        model="llama-3.1-70b", concurrency=16, prompt_tokens=30000, output_tokens=500, ttft_ms_max=100
    )
    answer = advise(w, _offers(), top=TOP, now=NOW)
    assert not answer.rows and answer.binding is not None
    assert "TTFT" in answer.binding and "--ttft-ms" in answer.binding
    poor = ServeWorkload(model="llama-3.1-70b", concurrency=16, budget_usd=50)
    answer = advise(poor, _offers(), top=TOP, now=NOW)
    assert not answer.rows and answer.binding is not None and "--budget" in answer.binding
    hurry = FinetuneWorkload(model="llama-3.1-70b", method="full", dataset_tokens=1e9, deadline_hours=1)
    answer = advise(hurry, _offers(), top=TOP, now=NOW)
    assert not answer.rows and answer.binding is not None and "deadline" in answer.binding


def test_the_rules_catch_what_the_first_trial_found() -> None:
    """The checks can fail: answers with the trial's faults break them."""
    from dataclasses import replace

    w = ServeWorkload(model="llama-3.1-8b", concurrency=8)
    spot = advise(
        w.model_copy(update={"spot_allowed": True}), _offers(), top=TOP, now=NOW, include_stale=True
    )
    assert any("always-on endpoint" in v for v in violations(w, spot))  # judged as a live endpoint
    stale_rows = tuple(replace(r, offer=replace(r.offer, stale=True)) for r in spot.rows)
    assert any("stale" in v for v in violations(w, replace(spot, rows=stale_rows)))
    _, big = _answer("70b-fp8-chat-16-users")
    tp = next(r for r in big.rows if r.config.tp > 1)
    unmarked = replace(tp, offer=replace(tp.offer, interconnect=Interconnect.UNKNOWN), fabric_assumed=False)
    rows = tuple(unmarked if r is tp else r for r in big.rows)
    w70 = Workload.from_dict(dict(SCENARIOS["70b-fp8-chat-16-users"]))
    assert any("unstated interconnect" in v for v in violations(w70, replace(big, rows=rows)))
    flipped = tuple(replace(r, pareto=not r.pareto) for r in big.rows)
    assert any("front" in v or "dominated" in v for v in violations(w70, replace(big, rows=flipped)))
    slow = tuple(
        replace(r, estimate=replace(r.estimate, ttft_ms=5000.0)) if r.estimate else r for r in big.rows
    )
    assert any("misses the 2000 ms target" in v for v in violations(w70, replace(big, rows=slow)))
    # an infeasible combination shown as if it ran, and a substitution or weight-only run not said
    v100 = next(r for r in big.rows if r.estimate is not None)
    infeasible = replace(v100, offer=replace(v100.offer, accelerator="V100-SXM2-16GB"), substitution=None)
    assert any("infeasible" in v for v in violations(w70, replace(big, rows=(infeasible,), picks={})))
    assert v100.estimate is not None
    swapped = replace(v100, estimate=replace(v100.estimate, engine="llama.cpp"), substitution=None)
    assert any("without saying" in v for v in violations(w70, replace(big, rows=(swapped,), picks={})))
    quiet = replace(v100, estimate=replace(v100.estimate, support="weight-only"), warnings=())
    assert any("weight-only" in v for v in violations(w70, replace(big, rows=(quiet,), picks={})))
    # llama.cpp's layer split shown as tensor parallel
    assert tp.estimate is not None
    as_tp = replace(
        tp, estimate=replace(tp.estimate, engine="llama.cpp"), config=replace(tp.config, parallel="tensor")
    )
    assert any("layer split presented" in v for v in violations(w70, replace(big, rows=(as_tp,), picks={})))


def test_gpt_oss_120b_fits_one_80gb_card_in_mxfp4() -> None:
    """Sized in its native MXFP4 (about 65 GB of weights), gpt-oss-120b runs one copy per 80 GB card."""
    _, answer = _answer("gpt-oss-120b-chat-8-users")
    for r in answer.rows:
        assert r.estimate is not None
        if r.substitution is not None:  # an engine that cannot run MXFP4 there: another format, said
            continue
        assert (r.estimate.precision or "").startswith("mxfp4"), r.estimate
        assert r.estimate.weights_gb * r.config.tp < 80
    one_card = [
        r for r in answer.rows if r.config.tp == 1 and resolve_gpu(r.offer.accelerator).memory_gb >= 80
    ]
    assert one_card, [r.config.describe(r.offer.accelerator) for r in answer.rows]


def test_deepseek_r1_is_sized_in_fp8_on_fp8_hardware() -> None:
    """DeepSeek-R1 ships FP8 weights (block-scaled, 128x128): sized at ~1 byte a parameter (not 1.3 TB of
    bf16), on GPUs that multiply FP8 natively."""
    _, answer = _answer("deepseek-r1-endpoint-4-users")
    for r in answer.rows:
        assert r.estimate is not None and r.estimate.precision == "fp8-block"
        assert r.estimate.weights_gb * r.config.tp < 800
        assert resolve_gpu(r.offer.accelerator).fp8_supported, r.offer.accelerator


def test_old_hardware_gets_what_runs_there_or_the_reason() -> None:
    """vLLM FP8 on a T4 is weight-only (Marlin) and said; on a V100 vLLM does not run at all (no sm_70
    kernels in the wheel): the nearest engine that does is used and said; a K80 (Kepler) is refused
    with the rule's reason, never ranked."""
    from tests.advise.helpers import offer

    w = ServeWorkload(model="llama-3.1-8b", precision="fp8", concurrency=4)
    offers = [
        offer("runpod", g, 1, p, memory=m)
        for g, p, m in [("K80", 0.1, 12), ("V100-SXM2-16GB", 0.3, 16), ("T4", 0.35, 16), ("L4", 0.7, 24)]
    ]
    answer = advise(w, offers, now=NOW, include_rejected=True)
    rows = {r.offer.accelerator: r for r in answer.rows}
    assert violations(w, answer) == []
    assert "K80" not in rows
    (k80,) = [r for r in answer.rejected if r.offer.accelerator == "K80"]
    assert k80.rejected is not None and "not supported" in k80.rejected
    assert "compute capability" in k80.rejected  # the rule's reason
    t4 = rows["T4"]
    assert t4.estimate is not None and t4.estimate.support == "weight-only" and t4.substitution is None
    assert any("weight-only" in x for x in t4.warnings)
    v100 = rows["V100-SXM2-16GB"]
    assert v100.estimate is not None and v100.estimate.engine != "vllm"
    assert v100.substitution is not None and "V100" in v100.substitution and "instead" in v100.substitution
    assert v100.reasons[0] == v100.substitution  # said first on the row
