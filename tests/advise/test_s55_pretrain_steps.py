"""A pre-training run is not spread so wide that it trains in a handful of optimizer steps (stop 55:
`recommend pretrain llama-3.2-1b --tokens 1B --gpus 100000` priced 12,500 nodes training 2.4 steps of
410M tokens, with no word; a deadline with --max-nodes 100000 widened the batch without limit)."""

from __future__ import annotations

import re

from gpuscout.advise.api import advise
from gpuscout.advise.workload import Workload
from gpuscout.catalog.api import current_offers
from gpuscout.estimate.training import PRETRAIN_MIN_STEPS, estimate_training, few_steps_warning

P5 = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5.48xlarge"][:1]


def test_the_estimator_says_when_a_run_has_too_few_steps() -> None:
    wide = estimate_training(
        "llama-3.2-1b", "H100-SXM", gpus=8, nodes=12_500, method="pretrain", seq_len=4096, tokens=1e9,
        sharding="fsdp",
    )  # fmt: skip
    assert wide.tokens_per_step == 100_000 * 4096
    (said,) = [w for w in wide.warnings if "optimizer steps" in w]
    assert said.startswith(
        "the 1,000,000,000-token budget is 2.4 optimizer steps at a global batch of 409,600,000"
    )
    narrow = estimate_training(
        "llama-3.2-1b", "H100-SXM", gpus=8, method="pretrain", seq_len=4096, tokens=2e10
    )
    assert not [w for w in narrow.warnings if "optimizer steps" in w]
    assert few_steps_warning(PRETRAIN_MIN_STEPS * 1e6, 1e6) == ""  # exactly enough
    assert "less than one optimizer step" in few_steps_warning(1e3, 131_072)


def test_gpus_the_renter_fixed_keep_the_row_with_the_warning() -> None:
    w = Workload.from_dict(
        {"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 1e9, "gpus": 100_000}
    )
    (row, *_) = advise(w, P5, top=1).rows
    assert any("budget is 2.4 optimizer steps" in x for x in row.warnings)


def test_the_advisor_adds_no_node_past_the_batch_limit_for_a_deadline() -> None:
    # 1B tokens of llama-3.2-1b: the step floor allows 500,000 tokens per step, the compute-optimal batch
    # (estimate.pretrain_batch) 434,958: the smaller binds, and the row names it
    w = Workload.from_dict(
        {"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 1e9, "deadline_hours": 0.2}
        | {"max_nodes": 4096}
    )
    answer = advise(w, P5, top=1, include_rejected=True)
    assert answer.rows
    for row in answer.rows:
        per_step = int(
            re.search(r"([\d,]+) tokens per optimizer step", row.config.training).group(1).replace(",", "")
        )  # type: ignore[union-attr]
        assert 1e9 / per_step >= PRETRAIN_MIN_STEPS and per_step <= 434_958
        assert (
            "16 nodes or more not tried: their global batch would be past 434,958 tokens per step (B_opt)"
            in (row.config.training)
        )


def test_a_deadline_the_floor_leaves_unmet_says_why_no_more_nodes() -> None:
    w = Workload.from_dict(
        {"kind": "pretrain", "model": "qwen2.5-0.5b", "token_budget": 3e8, "seq_len": 2048}
        | {"max_nodes": 64, "deadline_hours": 0.05}
    )
    answer = advise(w, P5, top=1, include_rejected=True)
    assert not answer.rows
    (why,) = {r.rejected for r in answer.rejected if r.rejected}
    assert "after the 3 min deadline; 16 nodes or more would train in fewer than 2,000 optimizer steps" in why


def test_the_floor_caps_the_micro_batch_before_the_node_count() -> None:
    # 2 nodes of 8 GPUs at 2,048 tokens: up to 4 sequences per GPU keep 3e8 tokens above 2,000 steps
    w = Workload.from_dict(
        {"kind": "pretrain", "model": "qwen2.5-0.5b", "token_budget": 3e8, "seq_len": 2048, "max_nodes": 64}
    )
    (row,) = advise(w, P5, top=1).rows
    assert "16 nodes or more not tried" in row.config.training  # 2, 4 and 8 nodes were weighed


def test_the_dead_ends_why_names_the_step_floor_not_the_fabric() -> None:
    w = Workload.from_dict(
        {"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 1e9, "deadline_hours": 10 / 60}
    )
    answer = advise(w, P5, top=1)
    assert not answer.rows and answer.binding is not None
    assert "(more nodes would train in too few optimizer steps for the token budget)" in answer.binding
    assert "inter-node fabric" not in answer.binding  # p5 has one: it was not why
