"""Multi-node training is timed over the inter-node bandwidth the offer states (Gbit/s -> GB/s), and the
estimator's assumed default (with its warning) is kept only where the offer states none."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from gpuscout.advise.api import recommend
from gpuscout.advise.backends import default_backends
from gpuscout.advise.configs import fabric_accelerator
from gpuscout.advise.training_configs import stated_internode
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload
from gpuscout.catalog.fabrics import INTRA_NODE_FABRICS, internode_extra, intra_node_fabric, known_fabric
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.catalog.sources.snapshot import SnapshotSource
from gpuscout.estimate.parallel import gpu_link
from gpuscout.estimate.training import NIC_GBPS_PER_FABRIC_GPU, estimate_training, gbit_to_gbyte
from gpuscout.estimate.training_speed import Fabric as SpeedFabric
from gpuscout.knowledge.accelerators import all_accelerators, resolve_gpu
from tests.advise.helpers import NOW, offer

ASSUMED = "inter-node bandwidth not given"
SOURCE = "https://example.test/fabric"
# 8B pre-training on two 8x H100 nodes, one 2,048-token sequence per GPU and data parallel: the gradient
# all-reduce crosses the nodes every step, so the network shows in the step time
PRETRAIN = PretrainWorkload(model="llama-3.1-8b", token_budget=2e11, nodes=2, micro_batch=1, seq_len=2048)


def _h100_node(gbit: str | None, provider: str = "runpod", instance: str = "8x-h100-ib") -> Offer:
    nv = Interconnect.NVLINK
    base = offer(provider, "H100-SXM", 8, 20.0, interconnect=nv, internode="infiniband", instance=instance)
    extra = {} if gbit is None else {"internode_gbps": gbit, "internode_source": SOURCE}
    return dataclasses.replace(base, extra=extra)


def _recording_backends() -> tuple[Any, list[dict[str, Any]], list[Any]]:
    """The real estimator, recording the keyword arguments and the result of every training call."""
    real = default_backends()
    calls: list[dict[str, Any]] = []
    results: list[Any] = []

    def training(model: Any, gpu: Any, **kw: Any) -> Any:
        calls.append(kw)
        results.append(real.training(model, gpu, **kw))
        return results[-1]

    return dataclasses.replace(real, training=training), calls, results


# --- units ----------------------------------------------------------------------------------------------


def test_stated_gbit_per_s_is_converted_to_the_estimators_gbyte_per_s() -> None:
    assert gbit_to_gbyte(3200) == 400.0  # 8 bits a byte
    assert gbit_to_gbyte(400) == NIC_GBPS_PER_FABRIC_GPU  # the default's 400 Gbit/s NIC, at line rate alike
    p5en = known_fabric("aws", "p5en.48xlarge")
    assert p5en is not None and internode_extra(p5en)["internode_gbps"] == "3200"  # Gbit/s, as stated
    net = stated_internode(_h100_node("1600"))
    assert net is not None and net.gbit_per_s == 1600 and net.gbyte_per_s == 200.0
    assert net.kind == "infiniband" and net.source == SOURCE
    # no figure, a figure that is not a positive number, or no inter-node fabric named: nothing stated
    assert stated_internode(_h100_node(None)) is None
    assert stated_internode(_h100_node("n/a")) is None
    assert stated_internode(_h100_node("0")) is None
    assert stated_internode(dataclasses.replace(_h100_node("1600"), internode=None)) is None


def test_the_bundled_p5en_rows_state_400_gbyte_per_s() -> None:
    p5en = [o for o in SnapshotSource().offers() if o.instance_type == "p5en.48xlarge"]
    assert p5en
    for o in p5en:
        net = stated_internode(o)
        assert net is not None and net.kind == "efa" and net.gbyte_per_s == 400.0
        assert net.source == "https://aws.amazon.com/ec2/instance-types/p5/"


def test_the_inter_node_share_of_a_collective_scales_with_the_stated_bandwidth() -> None:
    # By hand: an all-reduce (factor 2) of 1 GB over 16 GPUs, 8 per node, moves (2 - 1) / 2 of each node's
    # 1/8 GB share over its NIC share: 2 x 0.5 x 0.125 GB / (GB/s per node / 8 GPUs). Over 12.5 GB/s (100
    # Gbit/s) per node that is 0.125 GB / 1.5625 GB/s = 0.08 s; over 400 GB/s (3,200 Gbit/s), 0.0025 s.
    link = gpu_link(resolve_gpu("H100-SXM"), 8)
    slow = SpeedFabric(link, 8, 2, gbit_to_gbyte(100)).collective_seconds(1e9, 16, 1, 2.0)
    fast = SpeedFabric(link, 8, 2, gbit_to_gbyte(3200)).collective_seconds(1e9, 16, 1, 2.0)
    assert slow == pytest.approx(0.08)
    intra = 2.0 * 7 / 8 * 1e9 / (link.gbps * 1e9)  # NVLink inside the node binds once the network is fast
    assert fast == pytest.approx(max(0.0025, intra))


# --- the advisor passes the stated figure ------------------------------------------------------------


def test_a_multi_node_pretraining_row_is_timed_over_the_offers_stated_bandwidth() -> None:
    be, calls, results = _recording_backends()
    (rec,) = recommend(PRETRAIN, [_h100_node("100")], backends=be, now=NOW)
    assert rec.config.nodes == 2
    multi = [c for c in calls if c["nodes"] > 1]
    assert multi and all(c["internode_gbps"] == 12.5 for c in multi)  # 100 Gbit/s = 12.5 GB/s
    assert all(c["internode_gbps"] is None for c in calls if c["nodes"] == 1)
    assert not any(ASSUMED in w for w in rec.warnings)
    assert f"2 nodes joined at 12.5 GB/s per node (100 Gbit/s InfiniBand, as stated: {SOURCE})" in (
        rec.config.training
    )

    # the row's speed is the estimator's at 12.5 GB/s per node on the layout it chose; at the estimator's
    # default for an NVLink node (8 x 50 GB/s) the same layout's gradient exchange takes less time
    assert rec.estimate is not None
    chosen = [kw for kw, r in zip(calls, results, strict=True) if r.tokens_per_s == rec.estimate.throughput]
    assert chosen and chosen[0]["nodes"] == 2
    kw = {k: v for k, v in chosen[0].items() if k != "internode_gbps"}
    acc = fabric_accelerator(resolve_gpu("H100-SXM"), "nvlink")
    stated = estimate_training("llama-3.1-8b", acc, internode_gbps=12.5, **kw)
    default = estimate_training("llama-3.1-8b", acc, **kw)
    assert stated.tokens_per_s == rec.estimate.throughput
    assert any(f"{ASSUMED}; assumed 400 GB/s per node" in w for w in default.warnings)
    assert not any(ASSUMED in w for w in stated.warnings)
    assert "12.5 GB/s per node between 2 nodes" in stated.assumptions["communication"]
    assert stated.step_breakdown_s["communication"] > default.step_breakdown_s["communication"]
    assert stated.tokens_per_s < default.tokens_per_s


def test_an_offer_stating_no_bandwidth_keeps_the_assumed_default_and_its_warning() -> None:
    be, calls, _results = _recording_backends()
    (rec,) = recommend(PRETRAIN, [_h100_node(None)], backends=be, now=NOW)
    assert rec.config.nodes == 2
    assert all(c["internode_gbps"] is None for c in calls)
    assert any(f"{ASSUMED}; assumed 400 GB/s per node" in w for w in rec.warnings)
    assert "2 nodes joined at an assumed 400 GB/s per node (the offer states no inter-node bandwidth)" in (
        rec.config.training
    )


def test_offers_of_one_configuration_with_different_stated_bandwidths_are_not_merged() -> None:
    # same accelerator, GPUs and fabrics: one ConfigKey; only the stated figure differs
    slow = _h100_node("100", provider="runpod", instance="slow")
    fast = _h100_node("3200", provider="lambda", instance="fast")
    none = _h100_node(None, provider="vultr", instance="unstated")
    for offers in ([slow, fast, none], [fast, none, slow], [none, slow, fast]):
        recs = {r.offer.instance_type: r for r in recommend(PRETRAIN, offers, now=NOW)}
        assert set(recs) == {"slow", "fast", "unstated"}
        assert "12.5 GB/s" in recs["slow"].config.training and "400 GB/s" in recs["fast"].config.training
        assert not any(ASSUMED in w for w in recs["slow"].warnings + recs["fast"].warnings)
        assert any(ASSUMED in w for w in recs["unstated"].warnings)
        slow_s, fast_s = recs["slow"].time_s, recs["fast"].time_s
        assert slow_s is not None and fast_s is not None and slow_s > fast_s
        # ranked apart too: a deadline between the two times keeps the fast offer and drops the slow one,
        # whichever comes first (one evaluation for the group would keep or drop both)
        deadline = (slow_s * fast_s) ** 0.5 / 3600.0
        w = PRETRAIN.model_copy(update={"deadline_hours": deadline})
        rows = recommend(w, offers, now=NOW, include_rejected=True)
        kept = {r.offer.instance_type for r in rows if r.rejected is None}
        assert kept == {"fast", "unstated"}
        (out,) = [r for r in rows if r.offer.instance_type == "slow"]
        assert out.rejected is not None and "deadline" in out.rejected


def test_a_multi_node_finetune_uses_the_stated_bandwidth_to_meet_a_deadline() -> None:
    be, calls, _results = _recording_backends()
    w = FinetuneWorkload(
        model="llama-3.1-8b", method="full", dataset_tokens=2e9, seq_len=2048, micro_batch=1, deadline_hours=3
    )
    recs = recommend(w, [_h100_node("800")], backends=be, now=NOW)
    assert recs and recs[0].config.nodes > 1
    assert all(c["internode_gbps"] == 100.0 for c in calls if c["nodes"] > 1)
    assert not any(ASSUMED in x for x in recs[0].warnings)
    stated = r"\d+ nodes joined at 100 GB/s per node \(800 Gbit/s InfiniBand"
    assert re.search(stated, recs[0].config.training)


def test_a_single_node_row_says_nothing_of_the_network() -> None:
    w = PRETRAIN.model_copy(update={"nodes": 1})
    (rec,) = recommend(w, [_h100_node("3200")], now=NOW)
    assert rec.config.nodes == 1 and "joined at" not in rec.config.training


# --- the intra-node fabric named per vendor ----------------------------------------------------------


def test_an_amd_box_is_joined_by_infinity_fabric_not_nvlink() -> None:
    assert intra_node_fabric(Interconnect.NVLINK, "AMD") == "infinity-fabric"
    assert intra_node_fabric(Interconnect.NVLINK, "NVIDIA") == "nvlink"
    assert intra_node_fabric(Interconnect.PCIE, "AMD") == "pcie"
    assert intra_node_fabric("unknown", "AMD") == "unknown"
    mi300x = [o for o in SnapshotSource().offers() if o.accelerator == "MI300X" and o.gpu_count == 8]
    assert mi300x
    for o in mi300x:
        vendor = resolve_gpu(o.accelerator).vendor
        assert intra_node_fabric(o.interconnect, vendor) == "infinity-fabric"


def test_every_vendor_with_a_switched_fabric_has_its_name() -> None:
    # the one table: a vendor added to the accelerator table with an NVLink-class box needs its fabric named
    for acc in all_accelerators():
        if acc.has_nvlink_class_fabric:
            assert acc.vendor in INTRA_NODE_FABRICS, acc.name
            name = INTRA_NODE_FABRICS[acc.vendor].replace("-", " ")
            assert name in acc.interconnect.lower(), (acc.name, acc.interconnect)


def test_an_amd_box_reads_infinity_fabric_in_the_advisors_json() -> None:
    """``interconnect`` is a class ("nvlink": NVLink / NVSwitch / Infinity Fabric); the offer names the
    vendor's fabric beside it, and the advisor's JSON carries it (MI300X boxes said only "nvlink")."""
    from typer.testing import CliRunner

    from gpuscout.cli import app

    amd = offer(accelerator="MI300X", gpus=8, price=16.0, memory=192.0, interconnect=Interconnect.NVLINK)
    assert amd.intra_node_fabric == "infinity-fabric"
    assert dataclasses.replace(amd, accelerator="H100-SXM").intra_node_fabric == "nvlink"
    assert dataclasses.replace(amd, interconnect=Interconnect.PCIE).intra_node_fabric == "pcie"
    args = ["recommend", "serve", "llama-3.1-70b", "-c", "8", "--gpu", "MI300X", "--json", "--top", "1"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    row = json.loads(out.output)["recommendations"][0]["offer"]
    assert row["intra_node_fabric"] == "infinity-fabric"


def test_a_multi_node_runs_spot_rework_counts_every_nodes_reclaims() -> None:
    """The nodes of a training run step together: a reclaim of any one stops all of them, so four spot
    nodes are interrupted four times as often as one (the rework was costed as for one node: 1.2 % at
    1, 4 and 16 nodes alike)."""
    node = dataclasses.replace(_h100_node("3200"), spot_price_usd_per_hour=8.0)
    runs = {}
    for nodes in (1, 4):
        w = PretrainWorkload(
            model="llama-3.1-8b",
            token_budget=2e10,
            nodes=nodes,
            micro_batch=1,
            seq_len=2048,
            spot_allowed=True,
            checkpoint_interval_min=60,  # one interval for both: Young's would shorten it with more nodes
        )
        (rec,) = [r for r in recommend(w, [node], now=NOW) if r.config.spot]
        runs[nodes] = rec
    one, four = runs[1], runs[4]
    share = {n: r.cost.interruption / (r.cost.compute + r.cost.interruption) for n, r in runs.items()}
    per_node_hours = {n: r.config.instances * (r.time_to_result_s or 0) for n, r in runs.items()}
    assert four.config.instances == 4 and one.config.instances == 1
    # the same work in node-hours, four times the reclaims per hour of the run: ~4x the rework share
    assert per_node_hours[4] == pytest.approx(per_node_hours[1], rel=0.25)
    assert share[4] == pytest.approx(4 * share[1], rel=0.3)
    assert any("x 4 nodes" in reason for reason in four.reasons)
