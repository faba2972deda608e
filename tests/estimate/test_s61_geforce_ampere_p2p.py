"""Stop 61 review: GeForce RTX 30 cards (Ampere, compute capability 8.6) have no GPU peer-to-peer access
over PCIe either (recalled: the patched kernel modules that re-enable it are used on RTX 3090 boxes as on
4090 ones), so their tensor-parallel all-reduces go through host memory as the RTX 40 / 50 ones do. They
were timed peer-to-peer, and 4x RTX 3080 TP4 was the cheapest Llama-3.1-8B endpoint with 3.4 ms of
all-reduce in a 16.9 ms step. Their workstation and datacenter siblings (A6000, A5000, A10G, A40: also
compute capability 8.6) keep peer access."""

from __future__ import annotations

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.parallel import (
    GEFORCE_NO_P2P_FROM_CC,
    HOST_STAGED_SHARE,
    collective_link,
    gpu_link,
    lacks_peer_access,
)
from gpuscout.knowledge.accelerators import resolve_gpu


@pytest.mark.parametrize("gpu", ["RTX 3060", "RTX 3080", "RTX 3090", "RTX 3090 Ti"])
def test_geforce_ampere_lacks_peer_access(gpu: str) -> None:
    acc = resolve_gpu(gpu)
    assert acc.nvidia_cc == GEFORCE_NO_P2P_FROM_CC == (8, 6)
    assert lacks_peer_access(acc)
    link = collective_link(acc, 4)
    assert link.staged and link.gbps == pytest.approx(gpu_link(acc, 4).gbps * HOST_STAGED_SHARE)


@pytest.mark.parametrize("gpu", ["RTX A6000", "A5000", "A10G", "A40", "RTX 2080 Ti"])
def test_same_generation_non_geforce_and_turing_keep_it(gpu: str) -> None:
    assert not lacks_peer_access(resolve_gpu(gpu))


def test_a_3090_tp2_step_says_its_all_reduces_go_through_host_memory() -> None:
    est = estimate("llama-3.1-8b", "RTX 3090", gpus=2, context_in=2048, context_out=256)
    assert "host memory" in est.assumptions["parallel"]
    a6000 = estimate("llama-3.1-8b", "RTX A6000", gpus=2, context_in=2048, context_out=256)
    assert "host memory" not in a6000.assumptions["parallel"]
