"""Tensor parallelism over more GPUs than one NVLink / Infinity Fabric domain joins crosses the network
between nodes (parallel.collective_link, fabric_domain_gpus), at assumed scale-out figures the estimate
states; an 8-GPU H100 board is not a 16-GPU NVLink domain.

Hand check, Llama-3.1-405B FP8 at batch 1, TP16 over two 8-GPU nodes: 126 layers x 2 all-reduces x
~29.4 us (the node's 14.4 us and the network's 15 us) = 7.4 ms of latency a token, against 126 x 2 x
~17.6 us = 4.4 ms on one (hypothetical) 16-GPU NVLink domain. Bandwidth: one ring per NIC, so a GPU's
ring traffic crosses nodes at its node's 8 NICs together (~320 GB/s), about NVLink's."""

from __future__ import annotations

import pytest

from gpuscout import estimate
from gpuscout.estimate.parallel import allreduce_seconds, collective_link
from gpuscout.knowledge.accelerators import resolve_gpu


def test_h100_tp16_crosses_the_network_between_two_nodes() -> None:
    h100 = resolve_gpu("H100")
    link = collective_link(h100, 16)
    assert link.assumed_network and "2 nodes of 8" in link.label
    assert collective_link(h100, 8).kind == "nvlink"
    # NCCL runs a ring per NIC: a GPU's ring traffic crosses nodes over the node's 8 NICs together
    # (8 x 400 Gb/s x 0.8 = 320 GB/s), below NVLink's 360: not one NIC's 40 GB/s
    assert link.gbps == pytest.approx(min(collective_link(h100, 8).gbps, 8 * 50.0 * 0.8))
    # the latency: NCCL's all-reduce inside each node (6.4 + 7 x 1.9 = 19.7 us at TP8) and 15 us between
    # them; no engine's custom kernel crosses nodes
    small = allreduce_seconds(link, 16, 16384 * 2.0)
    inside = allreduce_seconds(collective_link(h100, 8), 8, 16384 * 2.0)
    assert 19.7e-6 < inside < 20.3e-6
    assert 34.7e-6 < small < 35.3e-6
    assert allreduce_seconds(link, 16, 16384 * 2.0, custom=True) == small
    # training costs its nodes' network itself: its per-node link stays the board's
    assert collective_link(h100, 16, in_one_node=True).kind == "nvlink"


def test_crossing_nodes_never_shortens_an_all_reduce() -> None:
    # MI300X's 25 us Infinity Fabric base: TP16 over two nodes pays its node's 45 us and the network's 15
    mi = resolve_gpu("MI300X")
    inside = allreduce_seconds(collective_link(mi, 8), 8, 1.0)
    across = allreduce_seconds(collective_link(mi, 16), 16, 1.0)
    assert across == pytest.approx(inside + 15e-6, rel=1e-3)
    e8 = estimate("llama-3.1-70b", "MI300X", gpus=8, concurrency=1, context_in=2000, context_out=200)
    e16 = estimate("llama-3.1-70b", "MI300X", gpus=16, concurrency=1, context_in=2000, context_out=200)
    assert e16.tpot_ms > 0.95 * e8.tpot_ms


def test_sixteen_gpus_prefill_faster_than_eight() -> None:
    # twice the compute, all-reduces at ~the same bandwidth: a 2k-prompt load prefills faster, not 3x slower
    kw = {"precision": "fp8", "concurrency": 64, "context_in": 2000, "context_out": 300}
    e8 = estimate("llama-3.1-405b", "H100", gpus=8, **kw)
    e16 = estimate("llama-3.1-405b", "H100", gpus=16, **kw)
    assert e16.prefill_tokens_per_s > 1.2 * e8.prefill_tokens_per_s
    assert e16.tpot_ms < e8.tpot_ms


def test_the_estimate_says_so_and_is_slower_than_one_domain_would_be() -> None:
    e16 = estimate("llama-3.1-405b", "H100", gpus=16, precision="fp8")
    assert any("spans 2 nodes of 8" in w and "not modelled" in w for w in e16.warnings)
    assert "2 nodes of 8" in e16.assumptions["parallel"]
    e8 = estimate("llama-3.1-405b", "H100", gpus=8, precision="fp8")
    assert not any("spans" in w for w in e8.warnings)


def test_domains_that_hold_more_than_eight() -> None:
    # HGX A100 16-GPU (NVSwitch) and an NVL72 rack keep TP16 on their fabric
    for name in ("A100-SXM4-80GB", "GB200"):
        acc = resolve_gpu(name)
        assert collective_link(acc, 16).kind == "nvlink", name
    # an AMD Instinct platform joins 8
    mi = resolve_gpu("MI300X")
    assert collective_link(mi, 16).assumed_network
