"""The estimator's all-reduce against measured ones: ``gpuscout.estimate.parallel.allreduce_seconds``.

    python benchmarks/collectives.py [--csv PATH] [--rows] [--loso]

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
its neighbours) were read off these tables (2,048-byte points), and the NVLink bandwidth parts (NCCL's two
protocols' shares by ring, ``NVLINK_SIMPLE_SHARE_BY_RING`` and neighbours; the engines' one-shot and
two-shot kernels, ``ONE_SHOT_SHARE`` and neighbours) were fitted on them, so those figures are in-sample.
The PCIe ring shares (``PCIE_EFFICIENCY_BY_RING``) are the two boxes' geometric means.

``--loso`` (leave one system out): the NVLink bandwidth constants are refitted, by a grid search on the
squared log error over messages of 4 KB and more, on three of the four NVLink systems and scored on the
fourth, for each in turn; printed per implementation family and band beside the shipped constants on the
same held-out rows. That is the figure for a system the tables do not hold.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from gpuscout.estimate import parallel
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


NVLINK_SYSTEMS = ("h100_sxm", "h200_sxm", "a100_sxm", "b200_sxm")
Point = tuple[str, str, int, int, float]  # system, gpu, tp, bytes, measured us


def _grid(lo: float, hi: float, step: float) -> list[float]:
    return [round(lo + i * step, 4) for i in range(round((hi - lo) / step) + 1)]


def _log_error(points: list[Point], predict: Callable[[Point], float]) -> float:
    return sum(math.log(predict(p) / p[4]) ** 2 for p in points)


def _nccl_us(point: Point, ll: float, start: float, simple: float) -> float:
    _, gpu, tp, size, _ = point
    link = collective_link(resolve_gpu(gpu), tp)
    trial = replace(link, ll_gbps=link.raw_gbps * ll, simple_start_us=start, gbps=link.raw_gbps * simple)
    return allreduce_seconds(trial, tp, float(size)) * 1e6


def _fit_nccl(points: list[Point]) -> tuple[float, float, float]:
    """(LL share, Simple start us, Simple share) minimising the squared log error: a coarse grid, then a
    finer one around its best."""
    best = min(
        (
            (ll, st, si)
            for ll in _grid(0.2, 0.8, 0.04)
            for st in _grid(0, 80, 8)
            for si in _grid(0.4, 1.1, 0.04)
        ),
        key=lambda q: _log_error(points, lambda p: _nccl_us(p, *q)),
    )
    ll0, st0, si0 = best
    return min(
        (
            (ll, st, si)
            for ll in _grid(ll0 - 0.03, ll0 + 0.03, 0.01)
            for st in _grid(max(0.0, st0 - 6), st0 + 6, 2)
            for si in _grid(si0 - 0.03, si0 + 0.03, 0.01)
        ),
        key=lambda q: _log_error(points, lambda p: _nccl_us(p, *q)),
    )


def _custom_us(point: Point, shares: tuple[float, float, float]) -> float:
    """The engines' kernel time of ``point`` with trial (one-shot share, two-shot start, two-shot share):
    they are module constants of ``parallel`` (no link carries them), set for the call and restored."""
    _, gpu, tp, size, _ = point
    link = collective_link(resolve_gpu(gpu), tp)
    saved = (parallel.ONE_SHOT_SHARE, parallel.TWO_SHOT_START_US, parallel.TWO_SHOT_SHARE)
    parallel.ONE_SHOT_SHARE, parallel.TWO_SHOT_START_US, parallel.TWO_SHOT_SHARE = shares
    try:
        return allreduce_seconds(link, tp, float(size), custom=True) * 1e6
    finally:
        parallel.ONE_SHOT_SHARE, parallel.TWO_SHOT_START_US, parallel.TWO_SHOT_SHARE = saved


def _fit_custom(points: list[Point]) -> tuple[float, float, float]:
    """(one-shot share, two-shot start us, two-shot share) minimising the squared log error."""
    return min(
        (
            (one, st, two)
            for one in _grid(0.3, 1.1, 0.04)
            for st in _grid(0, 28, 4)
            for two in _grid(0.3, 1.1, 0.04)
        ),
        key=lambda q: _log_error(points, lambda p: _custom_us(p, q)),
    )


def leave_one_system_out(path: Path) -> None:
    """Refit the NVLink bandwidth constants without each system in turn and score it (module docstring)."""
    nccl: list[Point] = []
    custom: list[Point] = []
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            if row["system"] not in NVLINK_SYSTEMS or int(row["bytes"]) < 4096:
                continue
            point = (row["system"], row["gpu"], int(row["tp"]), int(row["bytes"]), float(row["latency_us"]))
            (nccl if row["implementation"] == "nccl" else custom).append(point)
    held_out: dict[str, list[float]] = defaultdict(list)
    shipped: dict[str, list[float]] = defaultdict(list)
    for system in NVLINK_SYSTEMS:
        for tp in (2, 4, 8):
            train = [p for p in nccl if p[0] != system and p[2] == tp]
            fitted = _fit_nccl(train)
            print(
                f"nccl   without {system:9s} tp{tp}: LL {fitted[0]:.2f}, "
                f"Simple +{fitted[1]:g} us at {fitted[2]:.2f}"
            )
            for p in (p for p in nccl if p[0] == system and p[2] == tp):
                held_out[f"nccl {band(p[3])}"].append((_nccl_us(p, *fitted) / p[4] - 1) * 100)
                shipped[f"nccl {band(p[3])}"].append(
                    (predict_us(p[1], p[2], p[3], "nccl")[0] / p[4] - 1) * 100
                )
        fitted_c = _fit_custom([p for p in custom if p[0] != system])
        print(
            f"custom without {system:9s}: one-shot {fitted_c[0]:.2f}, "
            f"two-shot +{fitted_c[1]:g} us at {fitted_c[2]:.2f}"
        )
        for p in (p for p in custom if p[0] == system):
            held_out[f"custom {band(p[3])}"].append((_custom_us(p, fitted_c) / p[4] - 1) * 100)
            shipped[f"custom {band(p[3])}"].append(
                (predict_us(p[1], p[2], p[3], "custom")[0] / p[4] - 1) * 100
            )
    print(
        f"\n{'held-out system, NVLink':26s}     n    MAPE  medAPE  median  <=25%   (shipped constants: MAPE)"
    )
    for key in sorted(held_out):
        mape = statistics.fmean(abs(e) for e in shipped[key])
        print(f"{key:26s} {summary(held_out[key])}   ({mape:.1f}%)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", type=Path, default=DATA)
    parser.add_argument("--rows", action="store_true", help="print every row")
    parser.add_argument(
        "--loso", action="store_true", help="leave-one-system-out refits of the NVLink shares"
    )
    args = parser.parse_args(argv)
    if args.loso:
        leave_one_system_out(args.csv)
        return 0
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
