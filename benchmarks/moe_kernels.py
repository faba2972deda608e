"""vLLM's and SGLang's fused-MoE kernels against their dense GEMVs, measured: where today's MoE constants
come from.

    python benchmarks/moe_kernels.py [--csv PATH]

``benchmarks/data/moe_kernels_measured.csv`` holds kernel times NVIDIA's aiconfigurator-core 0.12.0
collector measured with vLLM 0.24.0 and SGLang 0.5.14 (its source note says where and how): one MoE
layer's experts (``op == moe``: the engine's fused-MoE path, one GPU, tokens spread evenly over the
experts; bf16, and vLLM's 4-bit kernels) for up to 16 expert shapes at 1 to 16,384 tokens, and bf16
GEMMs of 1 to 32 rows (``op == gemm``: the dense layers' decode GEMVs) on H100 SXM, H200 SXM and B200.
The dense GEMMs' own fit (``gemv_fits``) gives each engine's fixed time per GEMM kernel besides its bytes
(``gemm_kernel_us``: ~3.4-4.2 us on Hopper, the same cuBLAS GEMMs in the three engines), and the same fit
of the per-tensor FP8 GEMMs (scaled-mm kernels that quantise their input first) ``fp8_gemm_kernel_us``
(~5.3-5.9 us on Hopper in vLLM and SGLang).

A decode step's MoE layer is bandwidth-bound: it reads every expert its tokens touch. For each system
and kernel the script fits ``latency = fixed + bytes / (share x datasheet bandwidth)`` (least squares on
the relative error) over the rows where the weights dominate (at most 32 tokens per expert), with
``bytes`` = experts touched (``min(E, tokens x top-k)`` under even routing) x 3 matrices x hidden x inter
x 2 bytes; the dense GEMVs the same way (``n x k x 2`` bytes). Printed: both shares, their ratio (how fast
the experts stream against a dense layer's weights), the MoE fixed part, and how each engine's shipped
constants (``moe_stream_share``: the ratio, as a share of the dense streaming rate;
``moe_layer_overhead_us``: the fixed part) time every row: median and mean APE per system, the B200 held
out (the constants are the Hopper systems' figures). Two shapes of the tables are non-gated MLPs (ReLU^2:
two matrices, not three) and are left out of the fits (``gated == 0``).

Compute-bound GEMMs (2,048-8,192 rows) give two more figures, each a ratio of two kernels on the same GPU:
how much of the datasheet's 2x per-tensor FP8 reaches over bf16 (``compute_shares``: shipped by vLLM and
SGLang per GPU generation as ``GenerationKernels.class_compute``), and the grouped GEMMs' share of the
dense rate in a fused-MoE layer at 512+ tokens per expert (``moe_compute_shares``:
``moe_compute_efficiency``).
"""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuscout.estimate.engines import GenerationKernels, resolve_engine
from gpuscout.knowledge.accelerators import resolve_gpu

DATA = Path(__file__).resolve().parent / "data" / "moe_kernels_measured.csv"
# bytes per expert weight: bf16; Kimi-K2-Thinking's INT4 (group 32, a bf16 scale each: 4.5 bits); MXFP4
# (an e8m0 scale per 32: 4.25 bits); NVFP4 (an FP8 scale per 16: 4.5 bits)
BYTES_PER_WEIGHT = {
    "bfloat16": 2.0,
    "fp8": 1.0,
    "int4_wo": 4.5 / 8.0,
    "w4a16_mxfp4": 4.25 / 8.0,
    "nvfp4": 4.5 / 8.0,
}
MAX_TOKENS_PER_EXPERT = 32  # above this the grouped GEMMs start to be compute-bound
GEMV_MAX_ROWS = 32  # the dense GEMM rows of a decode step (the streaming lanes)
COMPUTE_MIN_ROWS = 2048  # from here on a GEMM is compute-bound (the compute lanes)
FITTED_ON = ("h100_sxm", "h200_sxm")  # the Hopper systems; vLLM runs its Triton fused-MoE kernel there


def moe_bytes(row: dict[str, str]) -> float:
    """Weight bytes one MoE layer reads for the row's tokens: the experts they touch (even routing)."""
    experts, topk, tokens = int(row["experts"]), int(row["topk"]), int(row["m"])
    touched = min(experts, tokens * topk)
    return touched * 3.0 * int(row["hidden"]) * int(row["inter"]) * BYTES_PER_WEIGHT[row["dtype"]]


def gemv_bytes(row: dict[str, str]) -> float:
    return int(row["n"]) * int(row["k"]) * BYTES_PER_WEIGHT[row["dtype"]]


def fit(points: Sequence[tuple[float, float]], bandwidth: float) -> tuple[float, float]:
    """(fixed us, share of ``bandwidth``) of ``latency = fixed + bytes / (share x bandwidth)`` over
    (bytes, latency_us) points, least squares on the relative error (a 2x2 normal system)."""
    # minimise sum((a + s*b)/t - 1)^2 over a, s: normal equations
    saa = sum(1.0 / t**2 for _, t in points)
    sab = sum(b / t**2 for b, t in points)
    sbb = sum(b * b / t**2 for b, t in points)
    sa1 = sum(1.0 / t for _, t in points)
    sb1 = sum(b / t for b, t in points)
    det = saa * sbb - sab * sab
    a = (sa1 * sbb - sb1 * sab) / det
    s = (saa * sb1 - sab * sa1) / det  # us per byte
    return a, 1.0 / (s * 1e-6 * bandwidth)


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, lowest, highest) of ``values``."""
    return statistics.fmean(values), min(values), max(values)


def load(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def in_bandwidth_regime(row: dict[str, str]) -> bool:
    return int(row["m"]) * int(row["topk"]) <= MAX_TOKENS_PER_EXPERT * int(row["experts"])


CLASS_OF = {"bfloat16": "16bit", "int4_wo": "weight-only", "w4a16_mxfp4": "weight-only"}


@dataclass(frozen=True)
class KernelFit:
    """One kernel's fit on one system: ``fixed`` us per MoE layer, ``share`` of the datasheet ``bandwidth``
    (bytes/s), ``dense`` the same system's bf16 GEMV share, ``ratio`` = share / dense; ``points`` the
    (bytes, latency_us) it was fitted on."""

    engine: str
    system: str
    gpu: str  # the system's GPU as the table names it ("H100 SXM", "B200")
    cls: str
    kernel: str
    n: int
    fixed: float
    share: float
    dense: float
    bandwidth: float
    points: tuple[tuple[float, float], ...]

    @property
    def ratio(self) -> float:
        return self.share / self.dense


def moe_points(rs: list[dict[str, str]], kernel: str) -> list[tuple[float, float]]:
    """(bytes, latency_us) of the kernel's gated-MLP rows where the weights dominate."""
    return [
        (moe_bytes(r), float(r["latency_us"]))
        for r in rs
        if r["op"] == "moe" and r["kernel"] == kernel and r["gated"] == "1" and in_bandwidth_regime(r)
    ]


def bandwidth(rs: list[dict[str, str]]) -> float:
    """Datasheet bandwidth (bytes/s) of the system the rows were measured on (gpuscout's own specs)."""
    return resolve_gpu(rs[0]["gpu"]).bandwidth_gbps * 1e9


def kernel_fits(rows: list[dict[str, str]]) -> list[KernelFit]:
    """Every (engine, system, kernel) fit of the table, with that engine's dense GEMV share on the system."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        if r["op"] == "moe":
            groups[(r["engine"], r["system"])].append(r)
    for r in rows:  # the same systems' dense GEMMs, for the bandwidth
        if r["op"] == "gemm" and (r["engine"], r["system"]) in groups:
            groups[(r["engine"], r["system"])].append(r)
    gemvs = gemv_fits(rows)
    out = []
    for (engine, system), rs in sorted(groups.items()):
        bw = bandwidth(rs)
        dense = gemvs[(engine, system)][1]
        for cls, kernel in sorted({(CLASS_OF[r["dtype"]], r["kernel"]) for r in rs if r["op"] == "moe"}):
            pts = moe_points(rs, kernel)
            fixed, share = fit(pts, bw)
            out.append(
                KernelFit(
                    engine, system, rs[0]["gpu"], cls, kernel, len(pts), fixed, share, dense, bw, tuple(pts)
                )
            )
    return out


def gemv_fits(
    rows: list[dict[str, str]], dtype: str = "bfloat16"
) -> dict[tuple[str, str], tuple[float, float]]:
    """(fixed us per kernel, share of the datasheet bandwidth) of each (engine, system)'s ``dtype`` GEMMs
    of 1-32 rows: the fixed part is what a decode GEMM costs besides its weight bytes
    (``EngineProfile.gemm_kernel_us`` for bf16, ``fp8_gemm_kernel_us`` for per-tensor FP8, whose kernel
    call also quantises its input)."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        if r["op"] == "gemm" and r["dtype"] == dtype and int(r["m"]) <= GEMV_MAX_ROWS:
            groups[(r["engine"], r["system"])].append(r)
    return {
        key: fit([(gemv_bytes(r), float(r["latency_us"])) for r in rs], bandwidth(rs))
        for key, rs in sorted(groups.items())
    }


def hopper_gemm_fixed(gemvs: dict[tuple[str, str], tuple[float, float]], engine: str) -> float:
    """Mean fixed us per GEMM kernel of ``engine`` on FITTED_ON."""
    return statistics.fmean(gemvs[(engine, system)][0] for system in FITTED_ON)


def stream_ratio(
    mine: dict[tuple[str, str], tuple[float, float]],
    bf16: dict[tuple[str, str], tuple[float, float]],
    engine: str,
) -> float:
    """Mean over FITTED_ON of ``engine``'s streaming share in ``mine`` (a lane's ``gemv_fits``) over its
    share in ``bf16``."""
    return statistics.fmean(mine[(engine, system)][1] / bf16[(engine, system)][1] for system in FITTED_ON)


def hopper_figures(fits: list[KernelFit], engine: str, cls: str) -> tuple[float, float, float, float]:
    """(mean ratio, lowest, highest, mean fixed us) of ``engine``'s ``cls`` kernels on FITTED_ON."""
    mine = [f for f in fits if f.engine == engine and f.cls == cls and f.system in FITTED_ON]
    ratios = [f.ratio for f in mine]
    return (*spread(ratios), statistics.fmean(f.fixed for f in mine))


# Datacenter Blackwell: the systems of that generation in the tables. Its figures are ratios between two
# lanes on the same systems (an NVFP4 GEMM's streaming share over a bf16 GEMM's, a 4-bit MoE kernel's over
# the dense GEMV's), averaged over the four
BLACKWELL = ("b200_sxm", "gb200", "b300_sxm", "gb300")


def class_ratio(
    lanes: dict[str, dict[tuple[str, str], tuple[float, float]]], engine: str, dtype: str, system: str
) -> float:
    """``engine``'s streaming share in the ``dtype`` lane on ``system`` over its bf16 lane's there."""
    return lanes[dtype][(engine, system)][1] / lanes["bfloat16"][(engine, system)][1]


def blackwell_mean(
    lanes: dict[str, dict[tuple[str, str], tuple[float, float]]], engine: str, dtype: str
) -> tuple[float, float, float, float]:
    """(mean, lowest, highest :func:`class_ratio`, mean fixed us) of ``engine``'s ``dtype`` lane on
    BLACKWELL."""
    ratios = [class_ratio(lanes, engine, dtype, s) for s in BLACKWELL]
    fixed = statistics.fmean(lanes[dtype][(engine, s)][0] for s in BLACKWELL)
    return (*spread(ratios), fixed)


def blackwell_moe_weight_only(fits: list[KernelFit], engine: str) -> tuple[float, float, float] | None:
    """(mean, lowest, highest) ratio to the same system's dense GEMV rate of ``engine``'s 4-bit expert
    kernels on BLACKWELL (None: none there)."""
    ratios = [
        f.ratio for f in fits if f.engine == engine and f.system in BLACKWELL and f.cls == "weight-only"
    ]
    return spread(ratios) if ratios else None


def blackwell_kernels(engine: str) -> GenerationKernels | None:
    """``engine``'s figures for datacenter Blackwell (None: it ships none)."""
    return resolve_engine(engine).generation_for(resolve_gpu("B200").nvidia_cc)


def blackwell_moe_share(engine: str) -> float:
    """The 4-bit expert share ``engine`` ships for datacenter Blackwell (its Hopper one where it ships
    none)."""
    gen = blackwell_kernels(engine)
    share = gen.moe_weight_only_share if gen else None
    return resolve_engine(engine).moe_weight_only_share if share is None else share


def print_blackwell(
    lanes: dict[str, dict[tuple[str, str], tuple[float, float]]], fits: list[KernelFit]
) -> None:
    """Each engine's NVFP4-over-bf16 streaming ratio and its 4-bit experts' share on the Blackwell
    systems, beside what the profile ships there."""
    print(
        f"\nNVFP4 against bf16 on {', '.join(BLACKWELL)}: the NVFP4 lane's streaming share over the "
        "bf16 lane's"
    )
    for engine in sorted({e for e, _ in lanes["nvfp4"]}):
        mean, low, high, fixed = blackwell_mean(lanes, engine, "nvfp4")
        gen = blackwell_kernels(engine)
        shipped = gen.class_stream.get("fp4") if gen else None
        print(
            f"  {engine:13s} {mean:.3f} ({low:.3f}-{high:.3f}), fixed {fixed:.2f} us per kernel; shipped: "
            + (f"{shipped:.3f}" if shipped is not None else "as bf16")
            + f", fp4_gemm_kernel_us {resolve_engine(engine).fp4_gemm_kernel_us:.2f}"
        )
    for engine in sorted({f.engine for f in fits}):
        moe = blackwell_moe_weight_only(fits, engine)
        if moe is not None:
            print(
                f"  {engine:13s} 4-bit experts: {moe[0]:.3f} ({moe[1]:.3f}-{moe[2]:.3f}) of the dense GEMV "
                "rate; "
                f"shipped: {blackwell_moe_share(engine):.3f} "
                f"(Hopper: {resolve_engine(engine).moe_weight_only_share:.3f})"
            )


# The dense GEMM lanes of the table: what each is, and the profile field its Hopper intercept is shipped as
GEMM_LANES = {
    "bfloat16": "Dense bf16 GEMMs of 1-32 rows: latency = fixed + bytes / (share x bandwidth)",
    "fp8": "Per-tensor FP8 GEMMs of 1-32 rows (the kernel call quantises its input too), the same fit",
    "nvfp4": "NVFP4 GEMMs of 1-32 rows (Blackwell only; the call quantises its input to FP4), the same fit",
}
SHIPPED_AS = {"bfloat16": "gemm_kernel_us", "fp8": "fp8_gemm_kernel_us", "nvfp4": "fp4_gemm_kernel_us"}


def print_gemm_lane(
    lanes: dict[str, dict[tuple[str, str], tuple[float, float]]], dtype: str, title: str
) -> None:
    """Each (engine, system)'s fit of the ``dtype`` GEMMs (``lanes``: ``gemv_fits`` per dtype), each
    engine's Hopper mean beside what it ships."""
    fits = lanes[dtype]
    print(f"\n{title}")
    for (engine, system), (fixed, share) in fits.items():
        print(f"  {engine:13s} {system:9s} fixed {fixed:4.2f} us per kernel, share {share:.3f}")
    field = SHIPPED_AS[dtype]
    for engine in sorted({e for e, _ in fits}):
        shipped = f"shipped {field}: {getattr(resolve_engine(engine), field):.2f}"
        if (engine, FITTED_ON[0]) not in fits:  # a Blackwell-only lane: its mean intercept there
            print(
                f"  {engine}: {blackwell_mean(lanes, engine, dtype)[3]:.2f} us on {', '.join(BLACKWELL)}; "
                f"{shipped}"
            )
            continue
        ratio = (
            ""
            if dtype == "bfloat16"
            else f"; streams at {stream_ratio(fits, lanes['bfloat16'], engine):.3f}x its bf16 share on "
            "Hopper (not applied: the source note says why)"
        )
        print(
            f"  {engine}: {hopper_gemm_fixed(fits, engine):.2f} us on {', '.join(FITTED_ON)}; "
            f"{shipped}{ratio}"
        )


# The GPU generations whose compute-class figures the profiles ship (``GenerationKernels.class_compute``),
# with the systems of the tables measured in each
COMPUTE_GENERATIONS = {
    "Ada / Hopper": ("h100_sxm", "h200_sxm", "l40s"),
    "datacenter Blackwell": BLACKWELL,
    "RTX Blackwell": ("rtx_pro_6000_server",),
}


def gemm_rates(rows: list[dict[str, str]], dtype: str) -> dict[tuple[str, str], tuple[str, float]]:
    """(GPU, median TFLOP/s) of each (engine, system)'s ``dtype`` GEMMs of at least COMPUTE_MIN_ROWS rows
    (2,048-8,192 rows x 4,096-16,384 x 4,096-16,384: compute-bound)."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        if r["op"] == "gemm" and r["dtype"] == dtype and int(r["m"]) >= COMPUTE_MIN_ROWS:
            groups[(r["engine"], r["system"])].append(r)
    return {
        key: (
            rs[0]["gpu"],
            statistics.median(
                2.0 * int(r["m"]) * int(r["n"]) * int(r["k"]) / (float(r["latency_us"]) * 1e-6) / 1e12
                for r in rs
            ),
        )
        for key, rs in sorted(groups.items())
    }


def compute_shares(rows: list[dict[str, str]], dtype: str = "fp8") -> dict[tuple[str, str], float]:
    """Each (engine, system)'s ``dtype`` large-GEMM share of its peak over its bf16 GEMMs' share of theirs:
    the rate ratio of the two lanes divided by the datasheet's (gpuscout's specs; 2 for FP8 on every
    system here). 1: the format reaches its datasheet speed-up."""
    mine, bf16 = gemm_rates(rows, dtype), gemm_rates(rows, "bfloat16")
    out = {}
    for key, (gpu, rate) in mine.items():
        acc = resolve_gpu(gpu)
        peak = {"fp8": acc.fp8_tflops}[dtype]
        assert peak and acc.bf16_tflops, gpu
        out[key] = rate / bf16[key][1] / (peak / acc.bf16_tflops)
    return out


def generation_share(
    shares: dict[tuple[str, str], float], engine: str, systems: Sequence[str]
) -> tuple[float, float, float]:
    """(mean, lowest, highest) of ``engine``'s :func:`compute_shares` over ``systems``."""
    mine = [shares[(engine, s)] for s in systems]
    return spread(mine)


def shipped_compute_share(engine: str, gpu: str, cls: str) -> float | None:
    """The ``class_compute`` figure ``engine``'s profile ships for ``cls`` on ``gpu``'s generation."""
    gen = resolve_engine(engine).generation_for(resolve_gpu(gpu).nvidia_cc)
    return gen.class_compute.get(cls) if gen else None


# tokens per expert from which a fused-MoE layer is compute-bound with its tiles full (the 64-128-row tiles
# of the grouped GEMMs mostly whole): where its rate is compared with the dense GEMMs'
MOE_COMPUTE_MIN_TOKENS_PER_EXPERT = 512


def moe_compute_shares(rows: list[dict[str, str]]) -> dict[tuple[str, str, str], float]:
    """Each (engine, system, kernel)'s bf16 fused-MoE rate at MOE_COMPUTE_MIN_TOKENS_PER_EXPERT tokens per
    expert or more (median TFLOP/s; FLOPs = tokens x top-k x 3 x hidden x inter x 2, gated shapes) over the
    same engine's dense bf16 large-GEMM rate on the system (:func:`gemm_rates`): the grouped GEMMs' share
    of the dense compute rate (``EngineProfile.moe_compute_efficiency``)."""
    dense = gemm_rates(rows, "bfloat16")
    groups: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for r in rows:
        if r["op"] != "moe" or r["dtype"] != "bfloat16" or r["gated"] != "1":
            continue
        tokens, experts, topk = int(r["m"]), int(r["experts"]), int(r["topk"])
        if tokens * topk < MOE_COMPUTE_MIN_TOKENS_PER_EXPERT * experts:
            continue
        flops = tokens * topk * 3.0 * int(r["hidden"]) * int(r["inter"]) * 2.0
        groups[(r["engine"], r["system"], r["kernel"])].append(flops / (float(r["latency_us"]) * 1e-6) / 1e12)
    return {
        key: statistics.median(rates) / dense[key[:2]][1]
        for key, rates in sorted(groups.items())
        if key[:2] in dense
    }


def hopper_moe_compute(shares: dict[tuple[str, str, str], float], engine: str) -> tuple[float, float, float]:
    """(mean, lowest, highest) of ``engine``'s :func:`moe_compute_shares` on FITTED_ON."""
    mine = [v for (e, system, _), v in shares.items() if e == engine and system in FITTED_ON]
    return spread(mine)


def print_moe_compute(rows: list[dict[str, str]]) -> None:
    """Each engine's grouped-GEMM compute share per system and kernel, its Hopper mean beside what the
    profile ships."""
    shares = moe_compute_shares(rows)
    print(
        f"\nbf16 fused-MoE layers at {MOE_COMPUTE_MIN_TOKENS_PER_EXPERT}+ tokens per expert (compute-bound): "
        "median TFLOP/s over the same engine's dense bf16 large-GEMM rate on the system"
    )
    for (engine, system, kernel), share in shares.items():
        print(f"  {engine:13s} {system:9s} {kernel[:46]:46s} {share:.3f}")
    for engine in sorted({e for e, _, _ in shares}):
        mean, low, high = hopper_moe_compute(shares, engine)
        print(
            f"  {engine}: {mean:.3f} ({low:.3f}-{high:.3f}) on {', '.join(FITTED_ON)}; shipped "
            f"moe_compute_efficiency: {resolve_engine(engine).moe_compute_efficiency:.3f}"
        )


def print_compute_shares(rows: list[dict[str, str]]) -> None:
    """Each engine's FP8 large-GEMM rate against its bf16 one per system, and per generation beside what
    the profile ships."""
    shares = compute_shares(rows)
    rates, bf16 = gemm_rates(rows, "fp8"), gemm_rates(rows, "bfloat16")
    print(
        "\nLarge GEMMs (2,048-8,192 rows, compute-bound), median TFLOP/s: per-tensor FP8 against bf16 on the "
        "same GPU; share = the rate ratio over the datasheet's (2x). Shipped as "
        "GenerationKernels.class_compute by vLLM and SGLang (TensorRT-LLM's FP8 compute figure is fitted on "
        "its own FP8 rows)"
    )
    for (engine, system), share in shares.items():
        low, high = bf16[(engine, system)][1], rates[(engine, system)][1]
        print(
            f"  {engine:13s} {system:20s} bf16 {low:6.0f}  fp8 {high:6.0f}  ratio {high / low:.2f}"
            f"  share {share:.3f}"
        )
    for engine in sorted({e for e, _ in shares}):
        for label, systems in COMPUTE_GENERATIONS.items():
            mean, low, high = generation_share(shares, engine, systems)
            gpu = rates[(engine, systems[0])][0]
            shipped = shipped_compute_share(engine, gpu, "fp8")
            print(
                f"  {engine:13s} {label:21s} {mean:.3f} ({low:.3f}-{high:.3f}); shipped: "
                + (f"{shipped:.3f}" if shipped is not None else "none")
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--csv", type=Path, default=DATA)
    args = parser.parse_args(argv)
    rows = load(args.csv)
    fits = kernel_fits(rows)
    head = ("engine", "system", "class", "kernel", "n", "fixed", "share", "GEMV", "ratio")
    print("{:7s} {:9s} {:11s} {:46s} {:>4s} {:>7s} {:>6s} {:>6s} {:>6s}".format(*head))
    for f in fits:
        print(
            f"{f.engine:7s} {f.system:9s} {f.cls:11s} {f.kernel[:46]:46s} {f.n:4d} {f.fixed:5.1f}us "
            f"{f.share:6.3f} {f.dense:6.3f} {f.ratio:6.2f}"
        )
    lanes = {dtype: gemv_fits(rows, dtype) for dtype in GEMM_LANES}
    for dtype, title in GEMM_LANES.items():
        print_gemm_lane(lanes, dtype, title)
    print_blackwell(lanes, fits)
    print_compute_shares(rows)
    print_moe_compute(rows)
    for engine in sorted({f.engine for f in fits}):
        prof = resolve_engine(engine)
        print(
            f"\n{engine}: on {', '.join(FITTED_ON)}, experts stream at this multiple of the dense GEMV rate:"
        )
        for cls in sorted({f.cls for f in fits if f.engine == engine}):
            mean, low, high, fixed = hopper_figures(fits, engine, cls)
            print(
                f"  {cls:11s} {mean:.2f} (kernels {low:.2f}-{high:.2f}), fixed {fixed:.1f} us per MoE layer; "
                f"shipped: {prof.moe_stream_share(cls):.2f}"
            )
        print(f"  shipped moe_layer_overhead_us: {prof.moe_layer_overhead_us:.1f}")
    print(
        "\nThe shipped constants on every bandwidth-regime row (each system's GEMV share as the dense rate):"
    )
    head = ("engine", "system", "class", "kernel", "n", "MAPE", "medAPE", "median signed")
    print("  {:7s} {:9s} {:11s} {:46s} {:>4s} {:>6s} {:>7s} {:>13s}".format(*head))
    for f in fits:
        base = resolve_engine(f.engine)
        prof = base.on_generation(resolve_gpu(f.gpu).nvidia_cc)  # its generation's kernel figures, if any
        rate = f.bandwidth * f.dense * prof.moe_stream_share(f.cls)
        errs = [(prof.moe_layer_overhead_us + b / rate * 1e6) / t - 1.0 for b, t in f.points]
        mape = statistics.fmean(abs(e) for e in errs)
        med = statistics.median(abs(e) for e in errs)
        blackwell_own = f.system in BLACKWELL and prof.moe_weight_only_share != base.moe_weight_only_share
        held = (
            ""
            if f.system in FITTED_ON
            else " (its Blackwell figure)"
            if blackwell_own and f.cls == "weight-only"
            else " (held out)"
        )
        print(
            f"  {f.engine:7s} {f.system:9s} {f.cls:11s} {f.kernel[:46]:46s} {len(errs):4d} {mape:6.1%} "
            f"{med:7.1%} {statistics.median(errs):+13.1%}{held}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
