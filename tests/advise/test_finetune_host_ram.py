"""Fine-tuning rows and the offer's host RAM: an offload layout only where the box holds what it offloads.

With the real estimator, a full fine-tune of Llama-3.1-70B (70.55B parameters) on one 8-GPU node offloads
16 B/param to host RAM under FSDP: 1,128.9 GB, + 10 % pinned buffers, + 8 x 4 GB training processes,
+ 8 GB OS = ~1,282 GB per node (tests/estimate/test_training_host_ram.py checks the figure).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest
from benchmarks.naive_rank import rank_naive

from gpuscout.advise.api import recommend
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.cost import checkpoint_interval_s
from gpuscout.advise.training_configs import (
    FULL_CHECKPOINT_BYTES_PER_PARAM,
    TrainingEvaluator,
    checkpoint_save_s,
)
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from tests.advise.fakes import fake_backends
from tests.advise.helpers import NOW, offer

FULL_70B = FinetuneWorkload(model="llama-3.1-70b", method="full", dataset_tokens=1e8)
NEED_1_NODE = "~1,282 GB"


def _ada(ram: float | None, price: float = 6.61) -> Offer:
    """The repro's box: 8x RTX 6000 Ada (48 GB each), host RAM as given."""
    return dataclasses.replace(
        offer("runpod", "RTX6000-Ada", 8, price, memory=48, instance=f"8xada-{ram}"), ram_gb=ram
    )


def test_too_little_ram_rejects_the_offload_layout_and_names_both_figures() -> None:
    # 141 GB of FSDP state per GPU do not fit 48 GB cards; offloading needs ~1,282 GB, the box has 480
    (rec,) = recommend(FULL_70B, [_ada(480.0)], now=NOW, include_rejected=True)
    assert rec.rank is None and not rec.fits
    why = rec.rejected or ""
    assert f"{NEED_1_NODE} of host RAM per node" in why and "the offer has 480 GB" in why
    assert recommend(FULL_70B, [_ada(480.0)], now=NOW) == []


def test_enough_ram_keeps_the_offload_layout() -> None:
    (rec,) = recommend(FULL_70B, [_ada(1512.0)], now=NOW)
    assert rec.rank == 1 and rec.fits
    assert "optimizer and parameters in host RAM" in rec.config.training
    assert any(f"{NEED_1_NODE} of RAM per node" in w for w in rec.warnings)
    assert not any("not listed" in w for w in rec.warnings)


def test_unknown_ram_keeps_the_offload_layout_and_says_how_much_to_check_for() -> None:
    # a host taken to have 4x its 384 GB of GPU memory (1,536 GB) holds the ~1,282 GB (stop 60: the
    # default, the median host's 2.15x, does not: test_s60_unlisted_host_ram)
    roomy = Assumptions(unlisted_host_ram_per_gpu_memory=4.0)
    (rec,) = recommend(FULL_70B, [_ada(None)], now=NOW, assumptions=roomy)
    assert rec.rank == 1 and "optimizer and parameters in host RAM" in rec.config.training
    (note,) = [w for w in rec.warnings if "host RAM not listed" in w]
    assert f"needs {NEED_1_NODE} per node" in note


def test_short_ram_falls_back_to_fsdp_on_the_gpus_where_that_fits() -> None:
    # 8x B200 (180 GB) hold the 70B's FSDP state on the GPUs; over an unstated fabric (PCIe assumed)
    # offloading runs a larger micro-batch and is ~8 % faster, so a box with the RAM offloads...
    def b200(ram: float | None) -> Offer:
        return dataclasses.replace(offer("runpod", "B200", 8, 40.0, memory=180), ram_gb=ram)

    (rich,) = recommend(FULL_70B, [b200(2048.0)], now=NOW)
    assert "host RAM" in rich.config.training
    # ...and a 64 GB box keeps everything on the GPUs, a little slower, rather than being turned away
    (poor,) = recommend(FULL_70B, [b200(64.0)], now=NOW)
    assert poor.rank == 1 and "host RAM" not in poor.config.training
    assert poor.config.training.startswith("FSDP across 8 GPUs")
    assert poor.time_s is not None and rich.time_s is not None and poor.time_s > rich.time_s
    assert not any("host RAM" in w for w in poor.warnings)


def test_more_nodes_over_a_fabric_share_what_a_node_must_hold() -> None:
    # 700 GB is short of one node's 1,282 GB; over InfiniBand two nodes each keep half:
    # 16 B x 70.55B / 2 = 564.4 GB, x 1.1 + 40 = ~661 GB per node
    # (at most 2 nodes: on 4 the state fits the GPUs, which is cheaper still, see test_training_node_count)
    h100 = offer("runpod", "H100-SXM", 8, 20.0, interconnect=Interconnect.NVLINK, internode="infiniband")
    two = FULL_70B.model_copy(update={"max_nodes": 2})
    (rec,) = recommend(two, [dataclasses.replace(h100, ram_gb=700.0)], now=NOW)
    assert rec.config.nodes == 2 and "host RAM" in rec.config.training
    assert any("~661 GB of RAM per node" in w for w in rec.warnings)
    # without a stated fabric the one node cannot hold it
    alone = dataclasses.replace(h100, internode=None, ram_gb=700.0)
    (rejected,) = recommend(FULL_70B, [alone], now=NOW, include_rejected=True)
    assert rejected.rank is None
    assert f"{NEED_1_NODE} of host RAM per node; the offer has 700 GB" in (rejected.rejected or "")


# --- the evaluator's choice, with a hand-made estimator ------------------------------------------------


@dataclass
class _Layout:
    fits: bool
    memory: MemoryBreakdown
    tokens_per_s: float
    time_s: float | None
    host_ram_gb_per_node: float
    warnings: list[str] = field(default_factory=list)


def _estimator(offload_only: bool) -> Any:
    """FSDP fits the GPUs unless ``offload_only``; offloading always fits, runs twice as fast (as if it
    freed room for larger batches) and needs 500 GB of host RAM per node (40 GB without offload)."""

    def training(model: str, gpu: Accelerator, *, cpu_offload: bool = False, tokens: float = 1e7, **_: Any):  # type: ignore[no-untyped-def]
        speed = 2000.0 if cpu_offload else 1000.0
        mem = MemoryBreakdown(weights_gb=10, kv_cache_gb=0, activations_gb=2, overhead_gb=0, capacity_gb=80)
        fits = cpu_offload or not offload_only
        return _Layout(fits, mem, speed, tokens / speed, 500.0 if cpu_offload else 40.0)

    return training


def _evaluator(offload_only: bool) -> TrainingEvaluator:
    be = dataclasses.replace(fake_backends(), training=_estimator(offload_only))
    w = FinetuneWorkload(model="small", method="full", dataset_tokens=1e7, micro_batch=1)
    return TrainingEvaluator(w, be, Assumptions())


def _box(ram: float | None) -> Offer:
    return dataclasses.replace(offer("p", "H100-SXM", 8, 10.0, interconnect=Interconnect.NVLINK), ram_gb=ram)


def _wall(ev: TrainingEvaluator, run_s: float) -> float:
    """The row's time for ``run_s`` s of training on one node: with its checkpoints written (review 41 #9)."""
    params_b = ev.be.params_b("small")
    ckpt, out = params_b * FULL_CHECKPOINT_BYTES_PER_PARAM, params_b * 2.0
    write = ev.a.checkpoint_write_gbps
    interval = checkpoint_interval_s(ev.w, ev.a, ckpt, 1, 8)  # the workload's, else Young's (one 8-GPU node)
    return run_s + checkpoint_save_s(run_s, 1, ckpt, out, interval, write)


def test_short_ram_falls_back_to_the_layout_without_offload() -> None:
    ev = _evaluator(offload_only=False)
    rich, poor = ev.evaluate(_box(512.0)), ev.evaluate(_box(499.0))
    assert "host RAM" in rich.training and rich.time_s == pytest.approx(_wall(ev, 1e7 / 2000))
    assert poor.rejected is None and "host RAM" not in poor.training
    assert poor.time_s == pytest.approx(_wall(ev, 1e7 / 1000))
    # one estimate per layout: the second offer's RAM chose among the layouts already estimated
    calls = ev.estimator_calls
    ev.evaluate(_box(100.0))
    assert ev.estimator_calls == calls


def test_short_ram_rejects_when_only_offload_fits_and_unknown_ram_warns() -> None:
    ev = _evaluator(offload_only=True)
    poor = ev.evaluate(_box(499.0))
    assert poor.rejected is not None and poor.reject_kind == "fit"
    assert "~500 GB of host RAM per node; the offer has 499 GB" in poor.rejected
    assert ev.evaluate(_box(500.0)).rejected is None
    unknown = ev.evaluate(_box(None))
    assert unknown.rejected is None and "host RAM" in unknown.training
    assert any("host RAM not listed" in w and "~500 GB per node" in w for w in unknown.warnings)


def test_offers_of_one_configuration_with_different_ram_are_ranked_each_on_its_own() -> None:
    offers = [_ada(1512.0, price=9.0), _ada(480.0, price=6.61)]
    recs = recommend(FULL_70B, offers, now=NOW, include_rejected=True)
    ranked = [r for r in recs if r.rank is not None]
    assert [r.offer.ram_gb for r in ranked] == [1512.0]
    (poor,) = [r for r in recs if r.offer.ram_gb == 480.0]
    assert "the offer has 480 GB" in (poor.rejected or "")
    assert [r for r in recs if r.rank is not None] == rank_naive(FULL_70B, offers, now=NOW)


def test_a_fabric_offer_short_of_ram_shards_over_more_nodes_without_offload() -> None:
    # 150 GB holds no offload layout (even 8 nodes keep ~195 GB each); 4 nodes of FSDP hold the state on
    # the GPUs (16 B x 70.55B / 32 = 35 GB per GPU): the row takes them rather than an offload it cannot run
    h100 = offer("runpod", "H100-SXM", 8, 20.0, interconnect=Interconnect.NVLINK, internode="infiniband")
    (rec,) = recommend(FULL_70B, [dataclasses.replace(h100, ram_gb=150.0)], now=NOW)
    assert rec.config.nodes == 4 and "host RAM" not in rec.config.training


def test_a_fixed_node_count_short_of_ram_names_the_per_node_figure_on_those_nodes() -> None:
    pretrain = PretrainWorkload(model="llama-3.1-70b", token_budget=1e9, nodes=2)
    l40s = offer(
        "runpod", "L40S", 8, 20.0, memory=48, interconnect=Interconnect.NVLINK, internode="infiniband"
    )
    (rec,) = recommend(pretrain, [dataclasses.replace(l40s, ram_gb=300.0)], now=NOW, include_rejected=True)
    assert rec.rank is None
    assert (rec.rejected or "").endswith("~661 GB of host RAM per node on 2 nodes; the offer has 300 GB")
