"""Review 41 #3: what a training run keeps after it ends.

``--retention-days 30`` billed two full optimizer-state checkpoints (14 B/param each) and the weights
for the month, and added ``--egress-gb`` to what is stored: the AWS p5 spot row of an 8B full fine-tune
went from $3.30 to $22.57 and the pick moved to OCI for its cheaper storage. A renter keeps the trained
weights (bf16), or the adapter for LoRA/QLoRA; the checkpoints are deleted at the end, and the row says
so. During the run the checkpoints are still stored.
"""

from __future__ import annotations

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.configs import ConfigEval
from gpuscout.advise.cost import CHECKPOINTS_KEPT, cost_model
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload, Workload
from gpuscout.catalog.api import current_offers
from tests.advise.helpers import accelerator, terms

BARE = Assumptions(boot_s=0.0, load_gbps=1e12, download_gbps=1e12, restart_s=0.0)
DAY = 86400.0


def _ev(*, instances: int = 1, time_s: float, weights: float, data: float, ckpt: float) -> ConfigEval:
    return ConfigEval(
        key=("H100-SXM", 8, "nvlink", True),
        fits=True,
        rejected=None,
        accelerator=accelerator(),
        instances=instances,
        nodes=instances,
        time_s=time_s,
        download_gb_per_instance=weights + data,
        load_gb=weights,
        checkpoint_gb=ckpt,
        training="x",
    )


def test_full_training_keeps_the_trained_weights_only() -> None:
    w = FinetuneWorkload(
        model="m", method="full", dataset_tokens=1e8, storage_retention_days=30, egress_gb=500.0
    )
    # 8B: 16 GB of bf16 weights, 2 GB of data, 112 GB checkpoints; 3 days on 2 nodes
    cm = cost_model(
        _ev(instances=2, time_s=3 * DAY, weights=16.0, data=2.0, ckpt=112.0), w, terms(), False, BARE
    )
    during = (2 * 18.0 + CHECKPOINTS_KEPT * 112.0) * 3 / 30
    assert cm.retained_gb == 16.0
    assert cm.storage_gb_months == pytest.approx(during + 16.0 * 30 / 30)


def test_lora_keeps_the_adapter_and_pretraining_the_weights() -> None:
    lora = FinetuneWorkload(model="m", method="lora", dataset_tokens=1e8, storage_retention_days=60)
    cm = cost_model(_ev(time_s=0.0, weights=16.0, data=0.0, ckpt=0.2), lora, terms(), False, BARE)
    # the adapter: the checkpoint's bf16 weights without AdamW's moments (2 of 10 bytes a parameter)
    assert cm.retained_gb == pytest.approx(0.04) and cm.storage_gb_months == pytest.approx(0.04 * 2)
    pre = PretrainWorkload(model="m", token_budget=1e9, storage_retention_days=30)
    cm = cost_model(_ev(time_s=0.0, weights=16.0, data=0.0, ckpt=112.0), pre, terms(), False, BARE)
    assert cm.retained_gb == 16.0 and cm.storage_gb_months == pytest.approx(16.0)


def test_egress_is_not_stored_again() -> None:
    base = {"model": "m", "method": "full", "dataset_tokens": 1e8, "storage_retention_days": 30}
    ev = _ev(time_s=DAY, weights=16.0, data=0.0, ckpt=112.0)
    plain = cost_model(ev, FinetuneWorkload(**base), terms(), False, BARE)
    moved = cost_model(ev, FinetuneWorkload(**base, egress_gb=2000.0), terms(), False, BARE)
    assert moved.storage_gb_months == pytest.approx(plain.storage_gb_months)


def test_the_reviewers_row_and_what_it_says() -> None:
    offers = [
        o
        for o in current_offers()
        if o.provider == "aws" and o.instance_type == "p5.48xlarge" and o.region == "us-west-2"
    ]
    assert offers
    base = {"kind": "finetune", "model": "llama-3.1-8b", "method": "full", "dataset_tokens": 1e8}
    kept = advise(Workload.from_dict({**base, "storage_retention_days": 30}), offers, top=1).rows[0]
    gone = advise(Workload.from_dict(base), offers, top=1).rows[0]
    assert kept.cost is not None and gone.cost is not None
    price = offers[0].storage_usd_per_gb_month or 0.08  # AWS's EBS gp3, $0.08/GB-month
    # 30 days of 16 GB of weights, not 241 GB ($19.28 in the review)
    assert kept.cost.storage - gone.cost.storage == pytest.approx(16.06 * price, rel=0.02)
    (line,) = [r for r in kept.reasons if r.startswith("stored 30 days after the run")]
    assert "the trained weights (16.1 GB)" in line and "deleted at the end" in line
    assert not any(r.startswith("stored ") for r in gone.reasons)
