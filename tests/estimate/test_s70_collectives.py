"""Tensor-parallel all-reduces at measured latencies (stop 70): NCCL's grows by a fixed amount per GPU of
the ring, the custom one-shot kernels vLLM / SGLang / TensorRT-LLM replay in CUDA graphs on NVLink are
nearly flat in TP, and a PCIe ring beyond two GPUs reaches a smaller share of the link. Every figure is
worked out beside it from ``parallel``'s constants, which were read off the measured tables of
``benchmarks/data/allreduce_measured.csv`` (aiconfigurator-core 0.12.0)."""

from __future__ import annotations

import csv
import dataclasses
import statistics
from pathlib import Path

import pytest

from gpuscout.estimate.engines import resolve_engine
from gpuscout.estimate.parallel import (
    allreduce_latency_us,
    allreduce_seconds,
    collective_link,
    gpu_link,
    tp_step_comm_seconds,
)
from gpuscout.estimate.throughput import decode_step
from gpuscout.knowledge.accelerators import resolve_gpu
from tests.estimate.setups import make_setup

MEASURED = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "allreduce_measured.csv"


@pytest.mark.parametrize(("tp", "nvlink", "pcie"), [(2, 8.3, 6.6), (4, 12.1, 12.6), (8, 19.7, 24.6)])
def test_nccl_latency_grows_per_gpu_of_the_ring(tp: int, nvlink: float, pcie: float) -> None:
    # 6.4 + 1.9 (TP - 1) us on NVLink, 3.6 + 3.0 (TP - 1) over PCIe
    assert allreduce_latency_us(gpu_link(resolve_gpu("H100 SXM"), tp), tp) == pytest.approx(nvlink)
    assert allreduce_latency_us(gpu_link(resolve_gpu("L40S"), tp), tp) == pytest.approx(pcie)


def _measured(system_kind: str, implementation: str, tp: int, size: int = 2048) -> list[float]:
    systems = {
        "nvlink": ("h100_sxm", "h200_sxm", "a100_sxm", "b200_sxm"),
        "pcie": ("l40s", "rtx_pro_6000_server"),
    }
    with MEASURED.open(newline="") as fh:
        return [
            float(r["latency_us"])
            for r in csv.DictReader(fh)
            if r["system"] in systems[system_kind]
            and r["implementation"] == implementation
            and int(r["tp"]) == tp
            and int(r["bytes"]) == size
        ]


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_the_constants_are_the_measured_means(tp: int) -> None:
    # the lines through the mean 2,048-byte latencies of the systems of each link (least squares over
    # TP 2 / 4 / 8): each TP's mean is within 0.4 us of its line
    nv = statistics.fmean(_measured("nvlink", "nccl", tp))
    pc = statistics.fmean(_measured("pcie", "nccl", tp))
    assert allreduce_latency_us(gpu_link(resolve_gpu("H100 SXM"), tp), tp) == pytest.approx(nv, abs=0.4)
    assert allreduce_latency_us(gpu_link(resolve_gpu("L40S"), tp), tp) == pytest.approx(pc, abs=0.4)
    custom = [statistics.median(_measured("nvlink", impl, tp)) for impl in ("vllm", "sglang", "trtllm")]
    link = gpu_link(resolve_gpu("H100 SXM"), tp)
    # the engines' kernels: 2.5-7.5 us measured, the estimate's 4.5-5.1 us within that spread's middle
    assert min(custom) - 1.5 < allreduce_latency_us(link, tp, custom=True) < max(custom) + 1.5


def test_the_custom_kernel_runs_on_nvlink_and_on_two_pcie_gpus_with_peer_access_only() -> None:
    h100 = resolve_gpu("H100 SXM")
    assert allreduce_latency_us(gpu_link(h100, 8), 8, custom=True) == pytest.approx(4.4 + 0.7)
    # vLLM's rule: beyond two GPUs the kernel needs full NVLink; on two PCIe GPUs it runs with P2P
    l40s = resolve_gpu("L40S")
    assert allreduce_latency_us(gpu_link(l40s, 2), 2, custom=True) == pytest.approx(4.5)
    assert allreduce_latency_us(gpu_link(l40s, 4), 4, custom=True) == pytest.approx(12.6)
    # GeForce cards without peer access: NCCL through host memory
    rtx = resolve_gpu("RTX 4090")
    assert allreduce_latency_us(collective_link(rtx, 2), 2, custom=True) == pytest.approx(6.6)
    # AMD: no measured figure of a custom kernel; RCCL's assumed 25 us at TP2
    mi = resolve_gpu("MI300X")
    assert allreduce_latency_us(collective_link(mi, 2), 2, custom=True) == pytest.approx(25.03)
    # across nodes: the node's NCCL all-reduce and the network's 15 us
    assert allreduce_latency_us(collective_link(h100, 16), 16, custom=True) == pytest.approx(19.7 + 15.0)


def test_a_70b_tp8_decode_step_on_h100s_pays_5_us_all_reduces_under_vllm_and_20_under_tgi() -> None:
    # Llama-3.1-70B, batch 1: 80 layers x 2 all-reduces of 8,192 x 2 B = 16 KiB. NCCL: 19.7 us + the ring's
    # 2 x 7/8 x 16,384 B at its low-latency protocol's 0.42 x 450 GB/s (stop 71). The engine's one-shot
    # kernel: 5.1 us + 7 x 16,384 B read at 0.58 x 450 GB/s (its two-shot and NCCL are slower here)
    h100 = resolve_gpu("H100 SXM")
    nccl = 19.7e-6 + 2 * 7 / 8 * 16384 / (450 * 0.42 * 1e9)
    one_shot = 5.1e-6 + 7 * 16384 / (450 * 0.58 * 1e9)
    assert tp_step_comm_seconds(h100, 8, 80, 8192, 1, custom=True) == pytest.approx(160 * one_shot)
    assert tp_step_comm_seconds(h100, 8, 80, 8192, 1) == pytest.approx(160 * nccl)
    # in a decode step: vLLM replays a graph (custom), TGI 1.x has no graphs (NCCL); same setup else
    vllm = make_setup("llama-3.1-70b", "H100", "bf16", "vllm", gpus=8)
    ncc = dataclasses.replace(vllm, engine=dataclasses.replace(vllm.engine, custom_allreduce=False))
    assert decode_step(vllm, 1, 100).comm == pytest.approx(160 * one_shot, rel=1e-6)
    assert decode_step(ncc, 1, 100).comm == pytest.approx(160 * nccl, rel=1e-6)
    assert decode_step(vllm, 1, 100).total < decode_step(ncc, 1, 100).total


def test_an_eager_step_keeps_nccl() -> None:
    # vLLM --enforce-eager captures no graph: the custom kernel's eager launch measured ~20 us, so NCCL's
    eager = make_setup("llama-3.1-70b", "H100", "bf16", "vllm --enforce-eager", gpus=8)
    assert not eager.engine.graphs_cover(1)
    assert decode_step(eager, 1, 100).comm == pytest.approx(
        tp_step_comm_seconds(eager.acc, 8, 80, 8192, 1), rel=1e-6
    )


def test_which_engines_run_a_custom_all_reduce() -> None:
    for name in ("vllm", "sglang", "tensorrt-llm"):
        assert resolve_engine(name).custom_allreduce, name
    for name in ("tgi", "hf-transformers", "gpt-fast", "llama.cpp", "tensorrt-llm 0.6.1"):
        assert not resolve_engine(name).custom_allreduce, name


@pytest.mark.parametrize(("gpus", "share"), [(2, 0.6), (3, 0.25), (4, 0.25), (6, 0.14), (8, 0.14)])
def test_a_pcie_ring_beyond_two_gpus_reaches_a_smaller_share_of_the_link(gpus: int, share: float) -> None:
    # measured 0.57-0.62 for two GPUs; four 0.16 / 0.39, eight 0.05 / 0.37 (geometric means 0.25, 0.14)
    assert gpu_link(resolve_gpu("L40S"), gpus).gbps == pytest.approx(32.0 * share)
    assert gpu_link(resolve_gpu("RTX PRO 6000 Server"), gpus).gbps == pytest.approx(64.0 * share)


def test_a_4k_prompt_chunk_all_reduce_on_eight_l40s_by_hand() -> None:
    # 4,096 tokens x 4,096 hidden x 2 B = 33.5 MB: 2 x 7/8 x 33.5 MB / 4.48 GB/s = 13.1 ms + 24.6 us
    link = gpu_link(resolve_gpu("L40S"), 8)
    message = 4096 * 4096 * 2.0
    expected = 2 * 7 / 8 * message / (32.0 * 0.14 * 1e9) + 24.6e-6
    assert allreduce_seconds(link, 8, message) == pytest.approx(expected)
    assert 0.0130 < expected < 0.0132


def test_the_estimate_says_how_its_all_reduces_are_timed() -> None:
    from gpuscout.estimate.api import estimate

    vllm = estimate("llama-3.1-70b", "H100", gpus=8, engine="vllm").assumptions["parallel"]
    assert "vLLM's custom kernel in CUDA-graph steps (5.1 us each" in vllm and "NCCL's 19.7 us" in vllm
    tgi = estimate("llama-3.1-70b", "H100", gpus=8, engine="tgi").assumptions["parallel"]
    assert "through NCCL, 19.7 us each" in tgi and "custom" not in tgi
    # four PCIe GPUs: no custom kernel (it needs full NVLink beyond two), the ring's share of the link
    pcie = estimate("llama-3.1-70b", "L40S", gpus=4, engine="vllm").assumptions["parallel"]
    assert "8 GB/s/dir usable across 4 GPUs" in pcie and "through NCCL, 12.6 us each" in pcie
