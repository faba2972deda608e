"""A LoRA/QLoRA run's checkpoint is the whole adapter with AdamW's moments (2 + 8 bytes a trained parameter),
and the adapter it leaves is the bf16 weights alone (2 bytes): the checkpoint was the adapter's weights and
gradients on one GPU (a shard of them under FSDP), and the adapter kept after the run was that same figure."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from gpuscout.advise.api import advise
from gpuscout.advise.workload import FinetuneWorkload
from gpuscout.catalog.offer import Availability, Interconnect
from gpuscout.estimate.training import estimate_training
from tests.advise.helpers import offer

NOW = datetime(2026, 12, 4, tzinfo=UTC)


def _said(gpus: int) -> tuple[float, float]:
    """(checkpoint GB, adapter GB) the row of ``gpus`` x H100 says."""
    w = FinetuneWorkload(model="llama-3.1-8b", method="lora", dataset_tokens=2e8, storage_retention_days=30)
    row = offer(
        "p",
        "H100-SXM",
        gpus,
        2.0 * gpus,
        interconnect=Interconnect.NVLINK,
        availability=Availability.AVAILABLE,
        observed_at=NOW,
    )
    rec = advise(w, [row], top=3, now=NOW).rows[0]
    stored = next(r for r in rec.reasons if r.startswith("stored 30 days"))
    adapter, checkpoint = (float(x) for x in re.findall(r"\(([\d.]+) GB", stored)[:2])
    return checkpoint, adapter


def test_the_checkpoint_holds_the_adapter_and_its_optimizer_state_and_the_output_the_adapter() -> None:
    trainable = estimate_training("llama-3.1-8b", "H100", method="lora").trainable_params
    checkpoint, adapter = _said(1)
    assert abs(checkpoint - trainable * 10 / 1e9) < 0.01 * checkpoint
    assert abs(adapter - trainable * 2 / 1e9) < 0.01 * adapter


def test_the_checkpoint_is_the_whole_adapters_however_many_gpus_train_it() -> None:
    assert _said(4) == _said(1)
