"""Review 43 H3: GeForce RTX 40 / 50 cards have no GPU peer-to-peer access, so NCCL stages a serving
engine's tensor-parallel all-reduces through host memory as it does a training job's collectives. They
were timed as peer-to-peer PCIe ones (only the training collectives got ``HOST_STAGED_SHARE`` of the
bandwidth): a 4,096-token prefill of an 8B model all-reduces 32 MB 64 times, so TTFT on 4x RTX 4090 was
over-stated. Serving and training now take their link from one place, ``parallel.collective_link``."""

from __future__ import annotations

import pytest

from gpuscout.estimate import parallel
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.parallel import (
    HANDOFF_BYTES_PER_VALUE,
    HOST_STAGED_SHARE,
    allreduce_seconds,
    collective_link,
    gpu_link,
    handoff_staging_seconds,
    tp_step_comm_seconds,
)
from gpuscout.knowledge.accelerators import resolve_gpu

MESSAGE = 32e6  # bytes: 4,096 prompt tokens x 4,096 hidden x 2 bytes is 33.5e6; a round 32 MB here


def _p2p(monkeypatch: pytest.MonkeyPatch) -> None:
    """As before: every collective over the peer-to-peer link."""
    monkeypatch.setattr(parallel, "collective_link", parallel.gpu_link)


def test_one_allreduce_on_four_4090s_at_32_mb_is_host_staged() -> None:
    acc = resolve_gpu("RTX 4090")
    gbps = gpu_link(acc, 4).gbps  # PCIe Gen4 x16 at a 4-GPU ring's measured share, 0.25: 8 GB/s/dir
    assert gbps == pytest.approx(8.0)
    expected = 2 * (3 / 4) * MESSAGE / (gbps * HOST_STAGED_SHARE * 1e9)  # 12 ms
    link = collective_link(acc, 4)
    assert allreduce_seconds(link, 4, MESSAGE, latency=False) == pytest.approx(expected)
    # the latency stays the peer-to-peer PCIe one (no SHM-transport figure is sourced)
    assert link.latency_us == gpu_link(acc, 4).latency_us == parallel.PCIE_LATENCY_US
    # a forward pass of Llama-3.1-8B (32 layers, hidden 4,096) over 4,096 tokens: 64 all-reduces
    tokens = MESSAGE / (4096 * 2)
    lat = (3.6 + 3 * 3.0) * 1e-6  # NCCL over PCIe at TP4: 12.6 us (no custom kernel without P2P)
    assert tp_step_comm_seconds(acc, 4, 32, 4096, tokens) == pytest.approx(64 * (lat + expected))


@pytest.mark.parametrize("gpu", ["RTX 3090", "RTX 4090", "RTX 5090"])  # RTX 30 since stop 61
def test_serving_and_training_get_the_same_link(gpu: str) -> None:
    acc = resolve_gpu(gpu)
    link = collective_link(acc, 4)
    assert link.staged and link.gbps == pytest.approx(gpu_link(acc, 4).gbps * HOST_STAGED_SHARE)
    assert parallel.host_staged(link) is link  # staged once only (training's Fabric stages again)


@pytest.mark.parametrize("gpu", ["RTX A6000", "L40S", "H100 SXM"])
def test_cards_with_peer_access_keep_the_peer_to_peer_link(gpu: str) -> None:
    acc = resolve_gpu(gpu)
    assert collective_link(acc, 4) == gpu_link(acc, 4)
    assert handoff_staging_seconds(acc, 2, 512, 4096) == 0.0


def _ttft(gpu: str) -> float:
    return estimate("llama-3.1-8b", gpu, gpus=4, context_in=4096, context_out=64).ttft_ms


def test_4090_tp4_ttft_pays_the_staged_allreduces(monkeypatch: pytest.MonkeyPatch) -> None:
    staged = _ttft("RTX 4090")
    est = estimate("llama-3.1-8b", "RTX 4090", gpus=4, context_in=4096, context_out=64)
    _p2p(monkeypatch)
    p2p = _ttft("RTX 4090")
    # the bandwidth part doubles: 64 all-reduces of 4,096 x 4,096 x 2 B per chunk of the prompt
    eng = resolve_engine("vllm")
    chunk = min(eng.prefill_chunk_tokens, 4096)
    chunks = -(-4096 // chunk)
    extra = chunks * 64 * 2 * (3 / 4) * chunk * 4096 * 2 / (gpu_link(resolve_gpu("RTX 4090"), 4).gbps * 1e9)
    assert staged - p2p == pytest.approx(extra * 1e3, rel=0.05)  # ~144 ms on ~376
    assert staged > 1.3 * p2p
    note = est.assumptions["parallel"]
    assert "staged through host memory" in note and f"{HOST_STAGED_SHARE:.0%} of the PCIe bandwidth" in note
    assert "no calibration row measures it" in note and "peer-to-peer latency" in note
    assert "timed as peer-to-peer" not in note


def test_4090_against_a_gen4_card_with_peer_access(monkeypatch: pytest.MonkeyPatch) -> None:
    # RTX A6000: PCIe Gen4 as the 4090, with peer access. The TTFT's all-reduce time (TTFT less the same
    # without all-reduces) is twice the A6000's on the 4090: the prompt's all-reduces are bandwidth-bound
    # (~148 ms against ~292 ms for 4,096 tokens of an 8B model); it was the same before
    def allreduces_ms(gpu: str) -> float:
        return _ttft(gpu) - _ttft_without_comm(gpu, monkeypatch)

    a6000, rtx4090 = allreduces_ms("RTX A6000"), allreduces_ms("RTX 4090")
    assert a6000 > 100.0
    assert rtx4090 == pytest.approx(2 * a6000, rel=0.02)
    _p2p(monkeypatch)
    assert allreduces_ms("RTX 4090") == pytest.approx(a6000, rel=1e-9)


def _ttft_without_comm(gpu: str, monkeypatch: pytest.MonkeyPatch) -> float:
    with monkeypatch.context() as m:
        m.setattr("gpuscout.estimate.throughput.tp_step_comm_seconds", lambda *a, **k: 0.0)
        return _ttft(gpu)


@pytest.mark.parametrize("gpu", ["RTX A6000", "L40S"])
def test_cards_with_peer_access_estimate_as_before(gpu: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = estimate("llama-3.1-8b", gpu, gpus=4, context_in=4096, context_out=64)
    _p2p(monkeypatch)
    before = estimate("llama-3.1-8b", gpu, gpus=4, context_in=4096, context_out=64)
    assert now.ttft_ms == before.ttft_ms and now.decode_tokens_per_s == before.decode_tokens_per_s
    assert "host memory" not in now.assumptions["parallel"]


def test_layer_split_handoffs_are_staged_too(monkeypatch: pytest.MonkeyPatch) -> None:
    acc = resolve_gpu("RTX 4090")
    # one 512-token micro-batch of Llama-3.1-8B activations (fp32, as llama.cpp passes them): 8.4 MB,
    # 0.44 ms more over the staged link than over the peer-to-peer one; a hand-off is one copy between
    # neighbours: a pair's share of the link (0.6 x 32 GB/s), not a ring of 4's
    nbytes = 512 * 4096 * HANDOFF_BYTES_PER_VALUE
    gbps = gpu_link(acc, 2).gbps
    assert gbps == pytest.approx(19.2)
    expected = nbytes / (gbps * HOST_STAGED_SHARE * 1e9) - nbytes / (gbps * 1e9)
    assert handoff_staging_seconds(acc, 4, 512, 4096) == pytest.approx(expected)

    def ttft() -> tuple[float, str]:
        est = estimate(
            "llama-3.1-8b", "RTX 4090", gpus=4, precision="Q4_K_M", context_in=4096, context_out=64
        )
        assert est.engine == "llama.cpp"
        return est.ttft_ms, est.assumptions["parallel"]

    staged, note = ttft()
    assert note.startswith("layer split") and "each hand-off is staged through host memory" in note
    _p2p(monkeypatch)
    p2p, _ = ttft()
    # llama.cpp's prefill: 2 batches of 2,048 tokens, 4 micro-batches of 512 each, through 3 boundaries:
    # 24 hand-offs, 9 ms more
    assert (staged - p2p) * 1e-3 == pytest.approx(24 * expected)
