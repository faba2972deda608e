"""A pre-training layout the advisor chooses takes no global batch past the run's compute-optimal one
(stop 61: `recommend pretrain llama-3.2-1b --tokens 20B` ranked 16 x 8x MI300X at micro-batch 16, 8,388,608
tokens per step, 7x DeepSeek LLM's B_opt of 1.16M; the step floor alone allowed 10M), or past the
workload's ``global_batch_tokens``; the row says its global batch, its steps and the limit's source."""

from __future__ import annotations

import re

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.batch_limits import batch_limit
from gpuscout.advise.workload import FinetuneWorkload, Workload
from gpuscout.catalog.api import current_offers
from gpuscout.errors import InvalidInputError

MI300X = [o for o in current_offers() if o.provider == "oci" and o.instance_type == "BM.GPU.MI300X.8"][:1]
P5 = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5.48xlarge"][:1]
RUN = {"kind": "pretrain", "model": "llama-3.2-1b", "token_budget": 20e9}
B_OPT = 1_158_816  # tests/estimate/test_pretrain_batch.py: 0.2920 x (7,449,083,904 x 20e9)^0.3271
SOURCE = (
    "the compute-optimal batch B_opt = 0.2920 x C^0.3271 of DeepSeek LLM (arXiv:2401.02954, section 3.1, "
    "eq. 1) for C = 7.45 GFLOP per token (non-embedding) x 20B tokens = 1.49e20 FLOPs"
)


def _row(**fields: object):  # type: ignore[no-untyped-def]
    (row,) = advise(Workload.from_dict({**RUN, **fields}), MI300X, top=1).rows
    return row


def _per_step(training: str) -> int:
    found = re.search(r"global batch: ([\d,]+) optimizer steps of ([\d,]+) tokens", training)
    assert found, training
    steps, per_step = (int(x.replace(",", "")) for x in found.groups())
    assert steps == round(20e9 / per_step)
    return per_step


def test_sixteen_nodes_take_a_micro_batch_within_b_opt() -> None:
    row = _row(nodes=16)
    per_step = _per_step(row.config.training)
    assert per_step <= B_OPT and per_step == 2 * 128 * 4096  # was micro-batch 16: 8,388,608
    assert "micro-batch 2 x 4,096 tokens per GPU (256 sequences" in row.config.training
    assert "accumulated" not in row.config.training  # already at B_opt: one micro-batch per step
    assert (
        "global batch: 19,073 optimizer steps of 1,048,576 tokens (a layout the advisor chooses takes at "
        f"most 1.16M tokens per step, {SOURCE})"
    ) in row.config.training
    assert not [w for w in row.warnings if "compute-optimal" in w]


def test_the_search_leaves_wider_node_counts_untried_and_says_why() -> None:
    row = _row()
    assert _per_step(row.config.training) <= B_OPT
    # 64 nodes: one sequence on each of 512 GPUs is 2,097,152 tokens
    assert "64 nodes or more not tried: their global batch would be past 1.16M tokens per step (B_opt)" in (
        row.config.training
    )


def test_the_override_widens_the_limit() -> None:
    row = _row(global_batch_tokens="4M")
    assert "not tried" not in row.config.training  # 64 nodes at 2,097,152 tokens were weighed
    assert (
        "takes at most 4,000,000 tokens per step, the workload's global_batch_tokens)" in row.config.training
    )
    wide = _row(nodes=16, global_batch_tokens=8_388_608)
    assert _per_step(wide.config.training) > B_OPT  # the layout may now take what the step floor allows
    assert not [w for w in wide.warnings if "global batch" in w]  # the user's own limit, kept


def test_a_fixed_layout_past_the_limit_keeps_its_row_with_a_warning() -> None:
    row = _row(nodes=64)  # one sequence per GPU is already 2,097,152 tokens
    assert _per_step(row.config.training) == 512 * 4096
    assert f"(one sequence per GPU on the GPUs asked: past 1.16M tokens per step, {SOURCE})" in (
        row.config.training
    )
    (said,) = [w for w in row.warnings if "compute-optimal" in w]
    assert said.startswith("a global batch of 2,097,152 tokens per optimizer step is 1.8x 1.16M")
    assert said.endswith("; fewer GPUs keeps it within")  # micro-batch 1 already: no smaller one
    asked = _row(nodes=16, micro_batch=16)
    assert "(the micro-batch asked: past 1.16M tokens per step" in asked.config.training
    assert [w for w in asked.warnings if "is 7.2x 1.16M" in w]
    given = _row(nodes=16, micro_batch=16, global_batch_tokens=2_000_000)
    (said,) = [w for w in given.warnings if "global batch" in w]
    assert said.startswith(
        "a global batch of 8,388,608 tokens per optimizer step is past the 2,000,000 asked"
    )


def test_a_deadline_dead_end_names_the_compute_optimal_batch() -> None:
    # 1B tokens: B_opt 434,958 tokens per step binds before the step floor's 500,000
    w = Workload.from_dict({**RUN, "token_budget": 1e9, "deadline_hours": 0.05})
    answer = advise(w, P5, top=1, include_rejected=True)
    assert not answer.rows and answer.binding is not None
    assert "(more nodes would take a global batch past the compute-optimal one)" in answer.binding
    (why,) = {r.rejected for r in answer.rejected if r.rejected}
    assert (
        "16 nodes or more would take a global batch past 434,958 tokens per step, the compute-optimal" in why
    )


@pytest.mark.parametrize("value", [1000, 4095, 0, -1])
def test_an_invalid_override_names_the_field(value: int) -> None:
    with pytest.raises(InvalidInputError) as err:
        Workload.from_dict({**RUN, "global_batch_tokens": value})
    assert err.value.field == "global_batch_tokens"
    if value >= 1:
        assert f"{value:,} tokens per optimizer step is less than one sequence of seq_len 4,096" in str(
            err.value
        )


def test_fine_tuning_is_left_alone() -> None:
    tune = Workload.from_dict({"kind": "finetune", "model": "llama-3.2-1b", "dataset_tokens": 1e9})
    assert isinstance(tune, FinetuneWorkload) and batch_limit(tune, None) is None
    with pytest.raises(InvalidInputError) as err:
        Workload.from_dict(
            {"kind": "finetune", "model": "llama-3.2-1b", "dataset_tokens": 1e9}
            | {"global_batch_tokens": 10**6}
        )
    assert err.value.field == "global_batch_tokens"
