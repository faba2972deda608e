"""The estimator's all-reduce against measured ones: ``gpuscout.estimate.parallel.allreduce_seconds``.

    python benchmarks/collectives.py [--csv PATH] [--rows]

``benchmarks/data/allreduce_measured.csv`` holds the all-reduce times NVIDIA's aiconfigurator-core 0.12.0
collector measured (its source note says where and how they were taken): NCCL and the custom kernels of
vLLM, SGLang and TensorRT-LLM (replayed in CUDA graphs), bf16, TP 2 / 4 / 8, messages of 256 B to 1 GB,
on six 8-GPU systems (H100, H200, A100 and B200 on NVLink; L40S and RTX PRO 6000 Server over PCIe).

Every row is timed by the estimator on the same GPU, TP degree and message (``custom=True`` for the
engines' own kernels, which the estimate applies where the link allows them: NVLink, or two PCIe GPUs
with peer access). Printed per link and implementation, and per message-size band (latency-bound up to
64 KB, mid 64 KB - 8 MB, bandwidth-bound above): n, MAPE, median APE, the median signed error (negative:
the estimate is faster than measured) and the share within +-25 %.

The small-message latencies of ``parallel`` (:data:`~gpuscout.estimate.parallel.NVLINK_LATENCY_US` and
its neighbours) were read off these tables (2,048-byte points), so the latency-bound band is in-sample;
the bandwidth parts (``NVLINK_EFFICIENCY``, ``PCIE_EFFICIENCY``) were not fitted to them.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from gpuscout.estimate.parallel import allreduce_seconds, collective_link
from gpuscout.knowledge.accelerators import resolve_gpu

DATA = Path(__file__).resolve().parent / "data" / "allreduce_measured.csv"
BANDS = ((64 * 1024, "<=64KB"), (8 * 1024 * 1024, "64KB-8MB"), (float("inf"), ">8MB"))


def band(size: int) -> str:
    """The message-size band of ``size`` bytes."""
    return next(name for top, name in BANDS if size <= top)


def predict_us(gpu: str, tp: int, size: int, implementation: str) -> tuple[float, str]:
    """The estimate's all-reduce time (us) and the link it used."""
    acc = resolve_gpu(gpu)
    link = collective_link(acc, tp)
    custom = implementation != "nccl"
    return allreduce_seconds(link, tp, float(size), custom=custom) * 1e6, link.kind


def summary(errors: list[float]) -> str:
    """n, MAPE, median APE, median signed error and share within 25 % of ``errors`` (signed, %)."""
    apes = [abs(e) for e in errors]
    within = sum(a <= 25.0 for a in apes) / len(apes)
    return (
        f"{len(errors):5d} {statistics.fmean(apes):7.1f}% {statistics.median(apes):7.1f}% "
        f"{statistics.median(errors):+8.1f}% {within:6.0%}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", type=Path, default=DATA)
    parser.add_argument("--rows", action="store_true", help="print every row")
    args = parser.parse_args(argv)
    groups: dict[str, list[float]] = defaultdict(list)
    with args.csv.open(newline="") as fh:
        for row in csv.DictReader(fh):
            tp, size, measured = int(row["tp"]), int(row["bytes"]), float(row["latency_us"])
            impl = row["implementation"]
            pred, kind = predict_us(row["gpu"], tp, size, impl)
            err = (pred / measured - 1.0) * 100.0
            family = "nccl" if impl == "nccl" else "custom"
            for key in (
                f"{kind} {family}",
                f"{kind} {family} {band(size)}",
                f"{kind} {family} tp{tp} {band(size)}",
            ):
                groups[key].append(err)
            if args.rows:
                print(
                    f"{row['system']:20s} {impl:7s} tp{tp} {size:>11d} B  meas {measured:10.1f} us "
                    f"pred {pred:10.1f} us {err:+7.1f}%"
                )
    print(f"{'group':34s}     n    MAPE  medAPE  median  <=25%")
    for key in sorted(groups, key=lambda k: (k.split()[0], k.split()[1], len(k.split()), k)):
        print(f"{key:34s} {summary(groups[key])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
