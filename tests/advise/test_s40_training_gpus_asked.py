"""A pre-training row that rents more GPUs than ``gpus`` asked says so, and is timed on what it rents.

Regression: ``gpuscout recommend pretrain llama-3.1-8b --tokens 1e11 --gpus 7`` priced every row on 8 or
16 GPUs (``nodes = ceil(gpus / gpus_per_instance)``) and nothing said so; ``--gpus 1`` gave 3x H100 and
8x B200 rows. Instances are rented whole and the job trains on every GPU rented (a paid GPU left idle
would only slow the run at the same price), so the row's time and cost are those of all its GPUs, and
one of its warnings (the fit stays its first reason)
names both counts.
"""

from __future__ import annotations

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.rank import rank
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload, Workload
from gpuscout.catalog.api import current_offers
from tests.advise.fakes import fake_backends, fake_training
from tests.advise.helpers import NOW, offer

BE = fake_backends()
H100 = BE.accelerator("H100-SXM")


def _row(w: PretrainWorkload, gpus: int = 8):  # type: ignore[no-untyped-def]
    (rec,) = rank(w, [offer("persec", gpus=gpus, internode="infiniband", price=20.0)], backends=BE, now=NOW)
    return rec


def test_seven_gpus_asked_on_an_eight_gpu_instance_trains_on_eight_and_says_so() -> None:
    rec = _row(PretrainWorkload(model="small", token_budget=1e10, gpus=7))
    assert rec.config.nodes == 1 and rec.config.gpus_used == 8
    note = next((x for x in rec.warnings if x.startswith("trains on")), "")
    assert note.startswith("trains on 8 GPUs, not the 7 asked")
    assert "time and cost for 8" in note
    assert rec.substitution is None and note not in rec.reasons[:1]  # the fit stays the first reason
    # timed on the 8 GPUs it rents and pays for, not on 7
    on_8 = fake_training("small", H100, gpus=8, nodes=1, method="full", tokens=1e10)
    assert rec.estimate is not None
    assert rec.estimate.throughput == pytest.approx(on_8.tokens_per_s)


def test_a_count_rounded_up_over_nodes_names_the_gpus_it_trains_on() -> None:
    rec = _row(PretrainWorkload(model="small", token_budget=1e10, gpus=20))
    assert rec.config.nodes == 3 and rec.config.gpus_used == 24
    assert any(x.startswith("trains on 24 GPUs, not the 20 asked") for x in rec.warnings)


@pytest.mark.parametrize(
    "w",
    [
        PretrainWorkload(model="small", token_budget=1e10, gpus=16),  # 2 whole nodes of 8
        PretrainWorkload(model="small", token_budget=1e10, nodes=2),  # nodes are instances: nothing rounded
        PretrainWorkload(model="small", token_budget=1e10),  # no size asked
        FinetuneWorkload(model="small", method="full", dataset_tokens=1e8),
    ],
)
def test_a_row_on_the_count_asked_says_nothing(w: PretrainWorkload) -> None:
    assert not any(x.startswith("trains on") for x in _row(w).warnings)


def test_the_reviewers_case_every_row_off_the_count_says_so() -> None:
    w = Workload.from_dict({"kind": "pretrain", "model": "llama-3.1-8b", "token_budget": 1e11, "gpus": 7})
    rows = advise(w, current_offers(), top=10, now=NOW).rows
    assert rows
    for r in rows:
        used = r.config.gpus_used
        assert used >= 7
        if used != 7:
            assert any(x.startswith(f"trains on {used:,} GPUs, not the 7 asked") for x in r.warnings), r.offer
