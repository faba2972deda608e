"""Review 42 H3: training costs.

1. Checkpoints were written at the download assumption (0.5 GB/s, a hub or object store): a 70B full
   fine-tune writing 988 GB every 30 min from one node spent as long writing as training. They are
   written at their own ``checkpoint_write_gbps`` (1 GB/s per node, a network volume that outlives a
   spot reclaim), overridable from the CLI, and a spot restart reads the checkpoint back from there.
2. Pre-training starts from random weights: its warm-up fetched and loaded the model's bf16 weights all
   the same. It fetches only its data now; fine-tuning keeps the download.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from gpuscout.advise.api import advise
from gpuscout.advise.assumption_overrides import CHECKPOINT_WRITE_RANGE, assumption_overrides
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.configs import ConfigEval
from gpuscout.advise.cost import cost_model, start_weights_gb, training_reload_s
from gpuscout.advise.training_configs import TrainingEvaluator, checkpoint_save_s
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload, Workload
from gpuscout.catalog.api import current_offers
from gpuscout.catalog.offer import Interconnect
from gpuscout.cli import app
from gpuscout.errors import InvalidInputError
from tests.advise.fakes import fake_backends
from tests.advise.helpers import offer, terms
from tests.advise.test_finetune_host_ram import _estimator
from tests.advise.test_s41_training_checkpoints import _ev

A = Assumptions()
runner = CliRunner()


# ---- 1. checkpoint writes -------------------------------------------------------------------------
def test_checkpoints_have_their_own_write_rate_stated_with_the_assumptions() -> None:
    assert A.checkpoint_write_gbps == 1.0 and A.download_gbps == 0.5
    said = A.as_dict()
    assert said["download"] == "0.5 GB/s"  # no longer "(checkpoint writes too)"
    assert said["checkpoint writes"].startswith("1 GB/s per node")
    written = said["checkpoint writes"]
    assert "network volume" in written and "reads the last one back" in written


def _evaluated(a: Assumptions) -> tuple[ConfigEval, float]:
    be = dataclasses.replace(fake_backends(), training=_estimator(offload_only=False))
    w = FinetuneWorkload(
        model="small", method="full", dataset_tokens=1e7, micro_batch=1, checkpoint_interval_min=30
    )
    box = offer("p", "H100-SXM", 8, 10.0, interconnect=Interconnect.NVLINK)
    ev = TrainingEvaluator(w, be, a).evaluate(dataclasses.replace(box, ram_gb=512.0))
    return ev, be.params_b("small")


@pytest.mark.parametrize("write", [1.0, 4.0, 0.25])
def test_the_run_writes_its_checkpoints_at_the_checkpoint_rate(write: float) -> None:
    a = assumption_overrides(checkpoint_write_gbps=write)
    assert a is not None and a.checkpoint_write_gbps == write and a.download_gbps == 0.5
    ev, params_b = _evaluated(a)
    run_s = 1e7 / 2000  # the stand-in estimator's time: 5,000 s, 2 saves at 30 min
    saves = checkpoint_save_s(run_s, 1, params_b * 14.0, params_b * 2.0, 1800.0, write)
    assert ev.time_s == pytest.approx(run_s + saves)
    assert f"at {write:g} GB/s" in ev.training


def test_a_spot_restart_reads_the_checkpoint_back_from_where_it_was_written() -> None:
    full = FinetuneWorkload(model="m", method="full", dataset_tokens=1e8, dataset_gb=10.0)
    ev = _ev(nodes=4, weights=141.0, data=10.0, ckpt=988.0)
    # the data from the hub at 0.5 GB/s; a node's 247 GB share from the volume at 1 GB/s
    assert training_reload_s(ev, full, A) == pytest.approx(10.0 / 0.5 + 247.0 / 1.0)
    fast = dataclasses.replace(A, checkpoint_write_gbps=8.0)  # read no faster than into GPU memory
    assert fast.checkpoint_read_gbps() == 2.0
    assert training_reload_s(ev, full, fast) == pytest.approx(10.0 / 0.5 + 247.0 / 2.0)
    cm = cost_model(ev, full, terms(kind="hyperscaler"), True, A)
    assert cm.risk is not None and cm.reload_s == pytest.approx(267.0)
    # LoRA: the frozen base and the data from the hub again, the adapter's checkpoint from the volume
    lora = FinetuneWorkload(model="m", method="lora", dataset_tokens=1e8, dataset_gb=10.0)
    ev = _ev(nodes=1, weights=16.0, data=10.0, ckpt=0.2)
    assert training_reload_s(ev, lora, A) == pytest.approx(26.0 / 0.5 + 16.0 / 2.0 + 0.2 / 1.0)


@pytest.mark.parametrize("bad", [0.0, 0.001, 1001.0, float("nan"), float("inf")])
def test_a_write_rate_out_of_range_is_refused_naming_it(bad: float) -> None:
    with pytest.raises(InvalidInputError) as caught:
        assumption_overrides(checkpoint_write_gbps=bad)
    assert caught.value.field == "checkpoint_write_gbps"
    assert CHECKPOINT_WRITE_RANGE == (0.01, 1000.0)


def test_the_seventy_b_row_writes_at_the_checkpoint_rate() -> None:
    offers = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5.48xlarge"][:1]
    w = Workload.from_dict(
        {"kind": "finetune", "model": "llama-3.1-70b", "method": "full", "dataset_tokens": 1e8}
        | {
            "checkpoint_interval_min": 30
        }  # the interval asked (none given: Young's, cost.checkpoint_interval_s)
    )
    (row, *_) = advise(w, offers, top=1).rows
    assert row.config.nodes == 4
    assert "247 GB per node at 1 GB/s (4 min each)" in row.config.training
    assert row.assumptions["download"] == "0.5 GB/s"
    (spot,) = [r for r in row.reasons if "rework expected" in r]
    assert "the data: 4 min after" in spot  # 247 GB read back at 1 GB/s


CLI = ["recommend", "finetune", "llama-3.1-8b", "--method", "full", "--dataset-tokens", "1e8"]


def test_the_cli_overrides_the_write_rate() -> None:
    result = runner.invoke(app, [*CLI, "--json", "--top", "1", "--checkpoint-write-gbps", "4"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["recommendations"]
    assert row["assumptions"]["checkpoint writes"].startswith("4 GB/s per node")
    assert "the trained weights (16.1 GB, 4 s)" in row["config"]["training"]  # 16 s at 1 GB/s
    bad = runner.invoke(app, [*CLI, "--checkpoint-write-gbps", "0"])
    assert bad.exit_code == 2 and "--checkpoint-write-gbps" in bad.output
    assert "from 0.01 to 1,000" in bad.output


# ---- 2. pre-training fetches no weights -----------------------------------------------------------
def test_pretraining_starts_from_random_weights() -> None:
    pre = PretrainWorkload(model="m", token_budget=1e9)
    assert start_weights_gb(pre, 16.0) == 0.0
    named = PretrainWorkload(model="m", token_budget=1e9, download_weights_gb=16.0)  # a starting checkpoint
    assert start_weights_gb(named, 16.0) == 16.0
    ft = FinetuneWorkload(model="m", method="full", dataset_tokens=1e8)
    assert start_weights_gb(ft, 16.0) == 16.0


def _trained(w: FinetuneWorkload | PretrainWorkload) -> ConfigEval:
    be = dataclasses.replace(fake_backends(), training=_estimator(offload_only=False))
    box = offer("p", "H100-SXM", 8, 10.0, interconnect=Interconnect.NVLINK)
    return TrainingEvaluator(w, be, A).evaluate(dataclasses.replace(box, ram_gb=512.0))


def test_the_pretraining_warm_up_fetches_nothing_it_streams_its_corpus() -> None:
    # stop 64: a pre-training corpus is streamed as the run trains (cost.streamed_dataset_gb), not
    # fetched to every node before it starts; a fine-tune still downloads its data with the weights
    pre = _trained(PretrainWorkload(model="small", token_budget=1e7, micro_batch=1, dataset_gb=20.0))
    ft = _trained(FinetuneWorkload(model="small", method="full", dataset_tokens=1e7, dataset_gb=20.0))
    weights = ft.load_gb
    assert weights > 0 and pre.load_gb == weights  # the trained output's size, kept after the run
    assert pre.download_gb_per_instance == 0.0 and ft.download_gb_per_instance == weights + 20.0
    t = terms(kind="hyperscaler")
    pre_cm = cost_model(pre, PretrainWorkload(model="small", token_budget=1e7, dataset_gb=20.0), t, False, A)
    assert pre_cm.warmup_s_per_start == pytest.approx(A.boot_s)  # nothing fetched nor loaded
    ft_w = FinetuneWorkload(model="small", method="full", dataset_tokens=1e7, dataset_gb=20.0)
    ft_cm = cost_model(ft, ft_w, t, False, A)
    assert ft_cm.warmup_s_per_start == pytest.approx(
        A.boot_s + (weights + 20.0) / A.download_gbps + weights / A.load_gbps
    )


def test_a_pretraining_row_still_keeps_its_trained_weights() -> None:
    kept = PretrainWorkload(model="small", token_budget=1e7, micro_batch=1, storage_retention_days=30.0)
    ev = _trained(kept)
    cm = cost_model(ev, kept, terms(kind="hyperscaler"), False, A)
    assert cm.retained_gb == ev.load_gb > 0


def test_the_eight_b_pretraining_row_boots_without_a_download() -> None:
    offers = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5.48xlarge"][:1]
    w = Workload.from_dict({"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 2e9})
    (row, *_) = advise(w, offers, top=1).rows
    hourly = row.price_usd_per_hour
    nodes = row.config.instances
    assert row.cost is not None
    assert row.cost.warmup == pytest.approx(nodes * hourly * A.boot_s / 3600.0)
