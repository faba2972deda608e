"""A PCIe ring beyond two GPUs: its share of the link is the box's topology, which an offer does not state
(stop 71). The estimate times the geometric mean of two measured 8-GPU boxes and says, in a warning, how far
apart they were; the measured shares are recomputed here from ``benchmarks/data/allreduce_measured.csv``
(NCCL bus bandwidth at messages of 8 MB and more, aiconfigurator-core 0.12.0)."""

from __future__ import annotations

import csv
import math
import statistics
from pathlib import Path

import pytest

from gpuscout.estimate.api import estimate
from gpuscout.estimate.parallel import (
    PCIE_EFFICIENCY_BY_RING,
    PCIE_RING_MEASURED,
    collective_link,
    gpu_link,
    pcie_topology_warning,
)
from gpuscout.knowledge.accelerators import resolve_gpu

MEASURED = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "allreduce_measured.csv"
LINK_GBPS = {"l40s": 32.0, "rtx_pro_6000_server": 64.0}  # PCIe Gen4 / Gen5 x16, per direction


def _bus_share(system: str, tp: int) -> float:
    """The median NCCL bus bandwidth (2 (n-1)/n x bytes / time) over the link rate, messages >= 8 MB."""
    with MEASURED.open(newline="") as fh:
        shares = [
            2 * (tp - 1) / tp * int(r["bytes"]) / (float(r["latency_us"]) * 1e-6) / 1e9 / LINK_GBPS[system]
            for r in csv.DictReader(fh)
            if r["system"] == system
            and r["implementation"] == "nccl"
            and int(r["tp"]) == tp
            and int(r["bytes"]) >= 8 * 2**20
        ]
    return statistics.median(shares)


@pytest.mark.parametrize("tp", [4, 8])
def test_the_quoted_spread_is_the_measured_one(tp: int) -> None:
    low, high = PCIE_RING_MEASURED[tp]
    assert _bus_share("l40s", tp) == pytest.approx(low, abs=0.02)
    assert _bus_share("rtx_pro_6000_server", tp) == pytest.approx(high, abs=0.02)
    # the ring table times their geometric mean
    timed = dict(PCIE_EFFICIENCY_BY_RING)[tp]
    assert timed == pytest.approx(math.sqrt(low * high), abs=0.005)


def test_the_warning_names_the_spread_and_the_worst_case() -> None:
    text = pcie_topology_warning(gpu_link(resolve_gpu("L40S"), 8), 8)
    # 0.14 timed, 0.05 on the box across sockets: 2.8x the transfers' time
    assert "measured 0.05 and 0.37 of the link for 8 GPUs" in text and "at 0.14" in text
    assert "up to 2.8x as long" in text and "all_reduce_perf" in text
    # three GPUs ring like four; six like eight
    assert "for 4 GPUs" in pcie_topology_warning(gpu_link(resolve_gpu("L40S"), 3), 3)
    assert "for 8 GPUs" in pcie_topology_warning(gpu_link(resolve_gpu("L40S"), 6), 6)


def test_no_warning_where_the_topology_does_not_decide() -> None:
    # a pair (one hop, measured alike on both boxes), NVLink, and GeForce cards staged through host memory
    assert pcie_topology_warning(gpu_link(resolve_gpu("L40S"), 2), 2) == ""
    assert pcie_topology_warning(gpu_link(resolve_gpu("H100 SXM"), 8), 8) == ""
    staged = collective_link(resolve_gpu("RTX 4090"), 4)
    assert not staged.peer_access and pcie_topology_warning(staged, 4) == ""


def test_the_estimate_warns_on_a_pcie_tensor_split_only() -> None:
    def topology(gpu: str, gpus: int) -> list[str]:
        est = estimate("llama-3.1-70b", gpu, gpus=gpus, engine="vllm", context_in=512, context_out=128)
        return [w for w in est.warnings if "over PCIe: the all-reduce's share" in w]

    assert len(topology("L40S", 4)) == 1
    assert topology("L40S", 2) == [] and topology("H100", 4) == []
