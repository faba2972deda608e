"""Review 42 H3 #3: GeForce RTX 40 / 50 cards have no GPU peer-to-peer access (NVIDIA's driver disables
it), so NCCL stages every transfer through host memory: each byte crosses PCIe twice. Their data-parallel
and FSDP collectives were timed as peer-to-peer PCIe ones and only warned of; they are timed at half the
per-GPU PCIe bandwidth now. A serving engine's tensor-parallel all-reduces are left as they were."""

from __future__ import annotations

import dataclasses

import pytest

from gpuscout.estimate import parallel
from gpuscout.estimate.parallel import HOST_STAGED_SHARE, gpu_link, host_staged
from gpuscout.estimate.training import estimate_training
from gpuscout.estimate.training_speed import Fabric
from gpuscout.knowledge.accelerators import resolve_gpu


@pytest.mark.parametrize("gpu", ["RTX 3090", "RTX 3080", "RTX 4090", "RTX 5090"])
def test_geforce_links_lack_peer_access_and_collectives_get_half(gpu: str) -> None:
    link = gpu_link(resolve_gpu(gpu), 8)
    assert link.kind == "pcie" and not link.peer_access
    staged = host_staged(link)
    assert HOST_STAGED_SHARE == 0.5 and staged.gbps == pytest.approx(link.gbps / 2)
    assert "staged through host memory" in staged.label and "no P2P" in staged.label
    fabric = Fabric(link, 8, 1, 25.0)
    assert fabric.intra == staged
    with_p2p = Fabric(dataclasses.replace(link, peer_access=True), 8, 1, 25.0)
    assert fabric.collective_seconds(1e9, 8, 1, 2.0) == pytest.approx(
        2 * with_p2p.collective_seconds(1e9, 8, 1, 2.0)
    )


@pytest.mark.parametrize("gpu", ["L40S", "A100-PCIe", "H100-SXM", "A6000", "A10G", "A5000"])
def test_cards_with_peer_access_keep_their_link(gpu: str) -> None:
    link = gpu_link(resolve_gpu(gpu), 8)
    assert link.peer_access and host_staged(link) is link and Fabric(link, 8, 1, 25.0).intra is link


def test_the_serving_link_is_unchanged() -> None:
    # tensor-parallel decode all-reduces are small and bound by latency: timed over the PCIe link as before
    link = gpu_link(resolve_gpu("RTX 4090"), 2)
    assert link.gbps == pytest.approx(32.0 * parallel.PCIE_EFFICIENCY)


def _fsdp(monkeypatch: pytest.MonkeyPatch | None = None, gpus: int = 8) -> float:
    if monkeypatch is not None:  # as if the cards had peer access
        monkeypatch.setattr(parallel, "lacks_peer_access", lambda acc: False)
    est = estimate_training(
        "llama-3.1-8b",
        "RTX 4090",
        gpus=gpus,
        method="full",
        seq_len=2048,
        micro_batch=2,
        sharding="fsdp",
        checkpointing="full",
        tokens=1e7,
    )
    return est.tokens_per_s


def test_fsdp_on_eight_4090s_is_slower_than_over_peer_to_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    staged = _fsdp()
    p2p = _fsdp(monkeypatch)
    # FSDP's all-gathers and reduce-scatters are exposed on 8 GeForce cards: half the bandwidth costs a
    # third of the speed (8B full fine-tune, micro-batch 2 x 2,048 tokens)
    assert staged < 0.8 * p2p


def test_one_gpu_exchanges_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    staged = estimate_training("llama-3.2-1b", "RTX 4090", method="full", micro_batch=1, tokens=1e6)
    monkeypatch.setattr(parallel, "lacks_peer_access", lambda acc: False)
    p2p = estimate_training("llama-3.2-1b", "RTX 4090", method="full", micro_batch=1, tokens=1e6)
    assert staged.tokens_per_s == p2p.tokens_per_s
