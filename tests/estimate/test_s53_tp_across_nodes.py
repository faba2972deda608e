"""Tensor parallelism over more GPUs than one NVLink / Infinity Fabric domain joins crosses the network
between nodes (parallel.collective_link, fabric_domain_gpus), at assumed scale-out figures the estimate
states; an 8-GPU H100 board is not a 16-GPU NVLink domain.

Hand check, Llama-3.1-405B FP8 at batch 1, TP16 over two 8-GPU nodes: 126 layers x 2 all-reduces x
~33 us (15 us x (1 + 0.4 x 3)) = 8.3 ms of latency a token, against 126 x 2 x ~17.6 us = 4.4 ms on a
single NVLink domain: the TPOT grows by ~4 ms."""

from __future__ import annotations

from gpuscout import estimate
from gpuscout.estimate.parallel import SCALE_OUT_LATENCY_US, allreduce_seconds, collective_link
from gpuscout.knowledge.accelerators import resolve_gpu


def test_h100_tp16_crosses_the_network_between_two_nodes() -> None:
    h100 = resolve_gpu("H100")
    link = collective_link(h100, 16)
    assert link.assumed_network and "2 nodes of 8" in link.label
    assert collective_link(h100, 8).kind == "nvlink"
    per_token = 2 * 126 * allreduce_seconds(link, 16, 16384 * 2.0)
    assert 8e-3 < per_token < 9e-3
    assert per_token > SCALE_OUT_LATENCY_US * 2.2 * 2 * 126 * 1e-6


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
