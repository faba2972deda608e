"""Review 41 #9: writing checkpoints takes time, and a spot restart reloads the last checkpoint.

70B full fine-tuning on 4 x p5 checkpoints 70.6B x 14 B = 988 GB every 30 min: 247 GB per node, 8 min
a save at the assumed 0.5 GB/s per node, which the run's time and cost left out. On a spot reclaim
only the bf16 weights were reloaded, not the checkpoint with its optimizer state.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.configs import ConfigEval
from gpuscout.advise.cost import cost_model, training_reload_s
from gpuscout.advise.training_configs import TrainingEvaluator, checkpoint_save_s, checkpoint_saves
from gpuscout.advise.workload import FinetuneWorkload, Workload
from gpuscout.catalog.api import current_offers
from gpuscout.catalog.offer import Interconnect
from tests.advise.fakes import fake_backends
from tests.advise.helpers import accelerator, offer, terms
from tests.advise.test_finetune_host_ram import _estimator

A = Assumptions()


def test_saves_are_counted_per_interval_and_per_node() -> None:
    assert checkpoint_saves(3 * 3600.0, 1800.0) == 6
    assert checkpoint_saves(1799.0, 1800.0) == 0
    # 988 GB on 4 nodes every 30 min over 2 h: 4 saves of 247 GB per node at 0.5 GB/s (494 s), and the
    # trained weights (141 GB) once at the end
    assert checkpoint_save_s(7200.0, 4, 988.0, 141.0, 1800.0, 0.5) == pytest.approx(4 * 494.0 + 282.0)
    # nothing to write, or a huge count of tiny intervals: finite, never NaN
    assert checkpoint_save_s(7200.0, 1, 0.0, 0.0, 1e-300, 0.5) == 0.0


def test_the_evaluators_time_includes_the_saves() -> None:
    be = dataclasses.replace(fake_backends(), training=_estimator(offload_only=False))
    w = FinetuneWorkload(
        model="small", method="full", dataset_tokens=1e7, micro_batch=1, checkpoint_interval_min=30
    )
    box = offer("p", "H100-SXM", 8, 10.0, interconnect=Interconnect.NVLINK)
    ev = TrainingEvaluator(w, be, A).evaluate(dataclasses.replace(box, ram_gb=512.0))
    run_s = 1e7 / 2000  # the estimator's time: 5,000 s, 2 saves at the 30 min asked
    params_b = be.params_b("small")
    saves = checkpoint_save_s(run_s, 1, params_b * 14.0, params_b * 2.0, 1800.0, A.checkpoint_write_gbps)
    assert saves > 0 and ev.time_s == pytest.approx(run_s + saves)
    assert "checkpoints: 2 saves of" in ev.training and "added to the run" in ev.training


def _ev(*, nodes: int, weights: float, data: float, ckpt: float) -> ConfigEval:
    return ConfigEval(
        key=("H100-SXM", 8, "nvlink", True),
        fits=True,
        rejected=None,
        accelerator=accelerator(),
        instances=nodes,
        nodes=nodes,
        time_s=10 * 3600.0,
        download_gb_per_instance=weights + data,
        load_gb=weights,
        checkpoint_gb=ckpt,
        training="x",
    )


def test_a_spot_restart_reloads_the_checkpoint_with_its_optimizer_state() -> None:
    full = FinetuneWorkload(
        model="m", method="full", dataset_tokens=1e8, dataset_gb=10.0, checkpoint_interval_min=30
    )
    ev = _ev(nodes=4, weights=141.0, data=10.0, ckpt=988.0)
    # the data fetched at 0.5 GB/s, a node's share of the checkpoint read back from where it was written
    # (a network volume) at 1 GB/s
    assert training_reload_s(ev, full, A) == pytest.approx(10.0 / 0.5 + 247.0 / 1.0)
    cm = cost_model(ev, full, terms(kind="hyperscaler"), True, A)
    assert cm.risk is not None
    assert cm.risk.lost_s_per_interruption == pytest.approx(900.0 + A.restart_s + cm.reload_s)
    # LoRA: the frozen base weights and data again, and the adapter's checkpoint
    lora = FinetuneWorkload(model="m", method="lora", dataset_tokens=1e8, dataset_gb=10.0)
    ev = _ev(nodes=1, weights=16.0, data=10.0, ckpt=0.2)
    assert training_reload_s(ev, lora, A) == pytest.approx(26.0 / 0.5 + 16.0 / 2.0 + 0.2 / 1.0)


def test_the_seventy_b_row_says_both() -> None:
    offers = [o for o in current_offers() if o.provider == "aws" and o.instance_type == "p5.48xlarge"][:1]
    w = Workload.from_dict(
        {"kind": "finetune", "model": "llama-3.1-70b", "method": "full", "dataset_tokens": 1e8}
        | {
            "checkpoint_interval_min": 30
        }  # the interval asked (none given: Young's, cost.checkpoint_interval_s)
    )
    (row, *_) = advise(w, offers, top=1).rows
    assert row.config.nodes == 4 and row.config.spot
    assert "checkpoints: 1 save of 988 GB (every 30 min), 247 GB per node at 1 GB/s (4 min each)" in (
        row.config.training
    )
    (speed,) = [r for r in row.reasons if "train tok/s" in r]
    # the checkpoint writes, then what the table's time adds (warm-up, spot reclaims) and that time
    assert "6 min writing checkpoints + " in speed and " warm-up (boot, download, load)" in speed
    (spot,) = [r for r in row.reasons if "rework expected" in r]
    assert "a reclaim reloads the last checkpoint (247 GB per node) and the data" in spot
