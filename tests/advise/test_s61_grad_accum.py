"""A pre-training layout the advisor chooses accumulates micro-batches up to its global batch limit
(stop 61 review: `recommend pretrain llama-3.1-8b --tokens 100B --gpus 2` ranked 3x H100-SXM at micro-batch
2 training 4,069,010 optimizer steps of 24,576 tokens, 930.7 h, $3,636, with no gradient accumulation: a
pre-training run accumulates up to about its compute-optimal batch, paying the optimizer step and the
gradient sync once per step)."""

from __future__ import annotations

import re

from gpuscout.advise.api import advise
from gpuscout.advise.batch_limits import BatchLimit, batch_limit, grad_accum
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload, Workload
from gpuscout.catalog.api import current_offers
from gpuscout.estimate.pretrain_batch import optimal_batch
from gpuscout.estimate.training import estimate_training
from gpuscout.knowledge.models import resolve_model

H100X3 = [o for o in current_offers() if o.provider == "hyperbolic" and o.instance_type == "3x-H100-224-2165"]
P5 = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5.48xlarge"][:1]
LIMIT = BatchLimit(1_000_000.0, "optimal", "", "")


def test_the_accumulation_fills_the_limit_without_passing_it() -> None:
    w = PretrainWorkload(model="llama-3.1-8b", token_budget=1e11)
    assert grad_accum(w, LIMIT, 3, 2) == 40  # 2 x 3 x 4,096 = 24,576 tokens: 40 x that is 983,040
    assert grad_accum(w, LIMIT, 128, 2) == 1  # 1,048,576 tokens already: at least one micro-batch
    assert grad_accum(w, None, 3, 2) == 1
    tune = FinetuneWorkload(model="llama-3.1-8b", dataset_tokens=1e8)
    assert grad_accum(tune, LIMIT, 3, 2) == 1  # an SFT run's batch is its owner's


def test_the_8b_row_on_three_h100s_accumulates_to_b_opt_and_runs_faster() -> None:
    w = Workload.from_dict({"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 1e11})
    (row,) = advise(w, H100X3, top=1).rows
    text = row.config.training
    found = re.search(
        r"micro-batch (\d+) x 4,096 tokens per GPU, (\d+) accumulated per step \((\d+) x 3 GPUs x (\d+) = "
        r"([\d,]+) sequences, ([\d,]+) tokens per optimizer step\)",
        text,
    )
    assert found, text
    mb, accum, mb2, accum2, seqs, per_step = (int(x.replace(",", "")) for x in found.groups())
    assert (mb, accum) == (mb2, accum2) and seqs == mb * 3 * accum and per_step == seqs * 4096
    b_opt = optimal_batch(resolve_model("llama-3.1-8b"), 4096, 1e11).tokens
    assert per_step <= b_opt < per_step + mb * 3 * 4096  # the most micro-batches within B_opt
    assert f"global batch: {1e11 / per_step:,.0f} optimizer steps of {per_step:,} tokens" in text
    assert f"gradients accumulated over {accum} micro-batches to reach it" in text
    recompute = "none" if "no activation checkpointing" in text else "selective"
    kw = dict(gpus=3, method="pretrain", seq_len=4096, micro_batch=mb, sharding="fsdp", tokens=1e11)
    kw["checkpointing"] = recompute
    plain = estimate_training("llama-3.1-8b", "H100-SXM", **kw)  # type: ignore[arg-type]
    accumulated = estimate_training("llama-3.1-8b", "H100-SXM", grad_accum=accum, **kw)  # type: ignore[arg-type]
    assert accumulated.tokens_per_step == per_step
    assert row.estimate.throughput == accumulated.tokens_per_s > plain.tokens_per_s


def test_a_micro_batch_the_workload_fixed_still_accumulates_and_says_so() -> None:
    w = Workload.from_dict(
        {"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 1e11, "micro_batch": 1}
    )
    (row,) = advise(w, H100X3, top=1).rows
    assert "micro-batch 1 x 4,096 tokens per GPU" in row.config.training
    limit = batch_limit(w, optimal_batch(resolve_model("llama-3.1-8b"), 4096, 1e11))
    assert limit is not None
    accum = int(limit.tokens // (3 * 4096))
    assert (
        f"(the micro-batch asked; gradients accumulated over {accum} micro-batches to reach it; a layout "
        "the advisor chooses takes at most"
    ) in row.config.training


def test_one_sequence_past_the_limit_names_the_instances_gpus() -> None:
    # 1M tokens: the step floor is 500 tokens per step, below one 4,096-token sequence
    w = Workload.from_dict({"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 1e6})
    (row,) = advise(w, P5, top=1).rows
    assert "(one sequence per GPU on the instance's 8 GPUs: past 500 tokens per step" in row.config.training
    assert "accumulated" not in row.config.training
    asked = advise(Workload.from_dict({**w.to_dict(), "gpus": 8}), P5, top=1).rows[0]
    assert "(one sequence per GPU on the GPUs asked: past 500 tokens per step" in asked.config.training


def test_a_budget_too_small_for_one_sequence_is_said_once_above_the_rows() -> None:
    # 1M tokens over 2,000 steps is 500 tokens per step: not one 4,096-token sequence, on any GPU count
    w = Workload.from_dict({"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 1e6})
    offers = [o for o in current_offers() if o.accelerator == "H100-SXM" and o.gpu_count in (1, 8)][:6]
    answer = advise(w, offers, top=3)
    said = (
        "the 1M-token budget is too small for 2,000 optimizer steps of even one 4,096-token sequence on one "
        "GPU (8,192,000 tokens)"
    )
    assert len(answer.rows) >= 2
    assert [n for n in answer.notes if n.startswith(said)]
    roomy = Workload.from_dict({"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 1e9})
    assert not [n for r in advise(roomy, P5, top=1).rows for n in r.warnings if "too small for" in n]
