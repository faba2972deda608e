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
