"""Advisor rows and answers a renter reads: a serving load above one engine instance's most sequences,
GPU counts a power-of-two split does not divide, the hint when nothing runs, and the errors' fields."""

from __future__ import annotations

import dataclasses
import math
from datetime import UTC, datetime

import pytest

from gpuscout.advise.api import advise
from gpuscout.advise.faq import _offer_label
from gpuscout.advise.workload import FinetuneWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability, Interconnect, Offer
from gpuscout.errors import UnknownNameError
from gpuscout.estimate.api import MAX_BATCH
from tests.catalog.helpers import make_offer

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def _box(accelerator: str, gpus: int, memory_gb: float, price: float, name: str | None = None) -> Offer:
    return make_offer(
        provider="example",
        instance_type=name or f"{gpus}x{accelerator}",
        region="eu-1",
        accelerator=accelerator,
        gpu_count=gpus,
        gpu_memory_gb=memory_gb,
        price_usd_per_hour=price,
        source="test",
        observed_at=NOW,
        interconnect=Interconnect.PCIE,
        availability=Availability.AVAILABLE,
    )


H100 = _box("H100-SXM", 1, 80.0, 2.5)


def test_a_load_above_one_engines_most_sequences_is_spread_over_more_replicas() -> None:
    # the estimator takes at most MAX_BATCH sequences in one instance; 1 more user refused every offer
    at_most = advise(ServeWorkload(model="llama-3.1-8b", concurrency=MAX_BATCH), [H100], now=NOW)
    above = advise(ServeWorkload(model="llama-3.1-8b", concurrency=MAX_BATCH + 904), [H100], now=NOW)
    assert at_most.rows and above.rows, above.binding
    n_at, n_above = at_most.rows[0].config.instances, above.rows[0].config.instances
    # each replica takes its share of the users (within what its memory and the latency targets allow)
    summary = above.rows[0].estimate
    assert summary is not None
    per_replica = summary.batch_per_replica
    assert per_replica <= summary.max_batch_per_replica
    assert n_above == math.ceil((MAX_BATCH + 904) / per_replica) and n_above > n_at


def test_a_split_that_does_not_divide_the_gpus_leaves_them_idle_and_says_so() -> None:
    # 70B in fp8 (~70 GB of weights) needs 8 of these 16 GB GPUs: the 10-GPU box runs one TP8 replica
    # with 2 GPUs idle (it was refused as "does not fit: weights": only 1 and 2 divide 10)
    w = ServeWorkload(model="llama-3.3-70b", precision="fp8", concurrency=4, latency_targets="none")
    eight, ten = _box("A4000", 8, 16.0, 1.2), _box("A4000", 10, 16.0, 1.5)
    found = advise(w, [eight, ten], now=NOW)
    rows = {r.offer.gpu_count: r for r in found.rows}
    assert set(rows) == {8, 10}, found.binding
    assert (
        rows[10].config.tp == 8 and rows[10].config.gpus_used == 8 and rows[10].config.idle_per_instance == 2
    )
    assert rows[10].config.describe("A4000") == "10x A4000 TP8, 2 idle"
    assert rows[8].config.describe("A4000") == "8x A4000 TP8"
    # the idle GPUs are paid for: same speed, 1.5 / 1.2 of the cost
    assert rows[10].total_usd == pytest.approx(rows[8].total_usd * 1.5 / 1.2, rel=0.02)


def test_nothing_runs_hints_name_what_was_not_already_chosen() -> None:
    w = FinetuneWorkload(model="llama-3-70b", method="qlora", dataset_tokens=5e7, micro_batch=4096)
    found = advise(w, [H100], now=NOW)
    assert not found.rows and found.binding is not None
    assert "QLoRA" not in found.binding  # already asked for
    assert "a --micro-batch below 4,096" in found.binding


def test_a_load_no_offer_serves_on_the_most_instances_is_not_called_a_memory_problem() -> None:
    found = advise(ServeWorkload(model="llama-3.1-8b", requests_per_s=1e6), [H100], now=NOW)
    assert not found.rows and found.binding is not None
    assert "the load needs more than 64 instances" in found.binding
    assert "GB of GPU memory" not in found.binding and "less memory" not in found.binding


def test_an_unknown_provider_is_an_error_of_the_providers_field() -> None:
    with pytest.raises(UnknownNameError) as err:
        advise(ServeWorkload(model="llama-3.1-8b", providers=("nosuch",)), [H100], now=NOW)
    assert err.value.field == "providers"


def test_the_faq_prices_every_instance_an_answer_needs() -> None:
    rec = advise(ServeWorkload(model="llama-3.1-8b", concurrency=8), [H100], now=NOW).rows[0]
    two = dataclasses.replace(rec, config=dataclasses.replace(rec.config, instances=2))
    assert _offer_label(two).endswith("(2 x 1x H100-SXM, 2 x $2.50/h = $5.00/h)")
    assert _offer_label(rec).endswith("(1x H100-SXM, $2.50/h)")


def test_a_pretraining_size_is_among_the_targets_held_to() -> None:
    from gpuscout.advise.workload import PretrainWorkload

    w = PretrainWorkload(model="llama-3.2-1b", token_budget=1e9, gpus=7)
    found = advise(w, [_box("H100-SXM", 8, 80.0, 20.0)], now=NOW)
    assert "size: 7 GPUs, in whole instances (a row on more says so)" in found.targets
    assert found.rows and any("not the 7 asked" in x for x in found.rows[0].warnings)
    assert found.rows[0].substitution is None  # the fit stays the row's first reason


@pytest.mark.parametrize("top", ["5", 2.5, True, 0])
def test_a_bad_top_is_an_input_error_naming_it(top: object) -> None:
    from gpuscout.errors import InvalidInputError

    with pytest.raises(InvalidInputError) as err:  # "5" raised a bare TypeError from a comparison
        advise(ServeWorkload(model="llama-3.1-8b"), [H100], now=NOW, top=top)  # type: ignore[arg-type]
    assert err.value.field == "top"
