"""Accuracy of ``gpuscout.estimate`` against the published measurements of the calibration CSV.

    python benchmarks/accuracy.py [--csv PATH] [--json] [--rows] [--holdout] [--fit ENGINE]

Every applicable row is mapped to an ``estimate`` call (framework -> engine, precision -> format,
GPU count and layer split for llama.cpp multi-GPU rows, batch, prompt/generated tokens) and the
prediction compared with the measurement. Printed per metric and per engine: n, MAPE, median APE,
share within +-15 %. Rows marked SUSPECT are evaluated and listed but left out of the aggregates.
fits/OOM rows must all be right; measured speed rows also imply "it fitted" and are checked too.

``--holdout`` shows generalisation honestly: the GPUs are split in two halves; the engine
efficiencies are re-fitted on the rows of one half and the error reported on the other (and vice
versa). ``--fit ENGINE`` prints the values a fit on all (non-SUSPECT) rows of that engine gives,
which is how the numbers in ``gpuscout/estimate/engines.py`` were obtained.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuscout.errors import GpuscoutError
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import EngineProfile, resolve_engine
from gpuscout.estimate.memory import weights_bytes_total
from gpuscout.estimate.precision import resolve_precision
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import resolve_gpu

# The calibration set lives beside the benchmark (copied from the project's shared reference data, with
# its sources in data/SOURCES-2026-12.md and each row's ``source`` column).
DEFAULT_CSV = Path(__file__).resolve().parent / "data" / "measurements.csv"
GPT_FAST_DEFAULT_NEW_TOKENS = 200  # gpt-fast generate.py --max_new_tokens default
WITHIN = 0.15
# TensorRT-LLM's v0.5/v0.6 performance tables give multi-GPU throughput per GPU: read as totals, the
# 70B TP4 rows (670 tok/s at batch 1280, 128/128 on 4xA100) would mean ~4 % model-FLOPs utilisation,
# an order of magnitude below what the same tables show on one GPU. We read them as per GPU and say so
# in the output (``per_gpu_source``).
PER_GPU_THROUGHPUT_SOURCE = "TensorRT-LLM v0.6.1"

# metric families with targets on the calibration set
TARGETS = {"decode_b1": 0.12, "prefill": 0.25, "serving": 0.30}


@dataclass
class Case:
    """One CSV row turned into an estimate call (or a reason it cannot be)."""

    line: int
    row: dict[str, str]
    metric: str  # decode_b1, decode_batched, prefill, ttft, serving, fits, weights, achieved_bw
    engine: str
    kwargs: dict[str, Any]
    measured: float
    suspect: bool
    skip: str = ""  # non-empty: not applicable, with the reason
    gpu_name: str = ""
    per_gpu_source: bool = False  # measured value was per GPU in the source and was multiplied by the count

    @property
    def label(self) -> str:
        r = self.row
        return (
            f"{r['model']} | {r['precision']} | {r['gpu']} x{r['gpu_count'] or 1} | {r['framework']} | "
            f"{r['metric']} in={r['context_in']} out={r['context_out']} b={r['batch']}"
        )


def _engine_of(framework: str) -> str:
    f = framework.lower()
    for key, eng in (
        ("llama.cpp", "llama.cpp"),
        ("tensorrt", "tensorrt-llm"),
        ("gpt-fast", "gpt-fast"),
        ("vllm", "vllm"),
        ("sglang", "sglang"),
    ):
        if key in f:
            return eng
    return ""


def _half_gcd(acc: Accelerator) -> Accelerator:
    """One GCD of a two-die MI250X: software sees half the memory, bandwidth and compute."""

    def half(x: float | None) -> float | None:
        return None if x is None else x / 2

    return dataclasses.replace(
        acc,
        name=f"{acc.name} (one GCD)",
        memory_gb=acc.memory_gb / 2,
        bandwidth_gbps=acc.bandwidth_gbps / 2,
        fp32_tflops=half(acc.fp32_tflops),
        bf16_tflops=half(acc.bf16_tflops),
        fp16_tflops=half(acc.fp16_tflops),
        int8_tops=half(acc.int8_tops),
    )


def _gpu(name: str) -> Accelerator:
    one_gcd = "one gcd" in name.lower()
    clean = re.sub(r"\(.*?\)", "", name).strip()
    acc = resolve_gpu(clean)
    return _half_gcd(acc) if one_gcd else acc


def _model(name: str) -> str:
    m = re.search(r"\((codellama-7b)\)", name)
    if m:
        return "codellama-7b"
    return re.sub(r"\s+instruct$", "", name.strip(), flags=re.I)


def _int(text: str) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isdigit() else None


def build_cases(rows: Iterable[tuple[int, dict[str, str]]]) -> list[Case]:
    cases: list[Case] = []
    for line, r in rows:
        suspect = "SUSPECT" in (r.get("notes") or "")
        metric_raw = r["metric"]
        engine = _engine_of(r["framework"])
        case = Case(line, r, metric_raw, engine, {}, _float(r["value"]), suspect)
        cases.append(case)
        task = r["task"].lower()
        if metric_raw in ("model_file_size_gb", "model_size_gib"):
            case.metric = "weights"
            case.kwargs = {"model": _model(r["model"]), "precision": r["precision"]}
            try:
                resolve_precision(r["precision"])
            except GpuscoutError as exc:
                case.skip = f"format not modelled ({exc})"
            continue
        if not engine:
            case.skip = f"framework {r['framework']!r} is not an LLM inference engine gpuscout models"
            continue
        if any(w in task for w in ("finetune", "lora", "image", "bandwidth")):
            case.skip = "not an inference row"
            continue
        try:
            fmt = resolve_precision(r["precision"])
        except GpuscoutError:
            case.skip = f"precision {r['precision']!r} not stated or ambiguous"
            continue
        if "nkvo=1" in (r.get("notes") or "") or "CPU RAM" in (r.get("notes") or ""):
            case.skip = "KV cache kept in host RAM (llama.cpp -nkvo) is not modelled"
            continue
        gpus = _int(r["gpu_count"]) or 1
        if gpus > 64:
            case.skip = "rack-scale system (more than 64 GPUs)"
            continue
        ci = _int(r["context_in"])
        co = _int(r["context_out"])
        batch_text = r["batch"].strip().lower()
        batch: int | str
        if batch_text.startswith("max"):
            batch = "max"
        elif batch_text.isdigit():
            batch = int(batch_text)
        else:
            case.skip = f"batch {r['batch']!r} (sweep / concurrency without context lengths)"
            continue
        kwargs: dict[str, Any] = {
            "model": _model(r["model"]),
            "gpu": r["gpu"],
            "gpus": gpus,
            "precision": fmt.name,
            "engine": engine,
            "batch": batch,
            "parallel": "layer" if (engine == "llama.cpp" and gpus > 1) else "tensor",
        }
        if engine == "tensorrt-llm" and fmt.name == "fp8":
            kwargs["kv_dtype"] = "fp8"  # NVIDIA's FP8 runs (ModelOpt checkpoints) quantise the KV cache too
        if metric_raw == "fits":
            case.metric = "fits"
            kwargs.update(context_in=ci or 0, context_out=co or 0)
        elif metric_raw == "decode_tokens_per_s":
            out = co if co else (GPT_FAST_DEFAULT_NEW_TOKENS if engine == "gpt-fast" else 128)
            kwargs.update(context_in=ci or 0, context_out=out)
            case.metric = "decode_b1" if batch == 1 else "decode_batched"
        elif metric_raw == "achieved_mem_bandwidth_GBps":
            kwargs.update(context_in=ci or 0, context_out=co or GPT_FAST_DEFAULT_NEW_TOKENS)
            case.metric = "achieved_bw"
        elif metric_raw == "prefill_tokens_per_s":
            kwargs.update(context_in=ci or 512, context_out=0)
            case.metric = "prefill"
        elif metric_raw == "ttft_ms":
            if ci is None:
                case.skip = "TTFT at a concurrency without prompt length"
                continue
            kwargs.update(context_in=ci, context_out=1)
            case.metric = "ttft"
        elif metric_raw in ("output_tokens_per_s_total", "output_tokens_per_s"):
            if ci is None or co is None:
                case.skip = "throughput without prompt/output lengths"
                continue
            kwargs.update(context_in=ci, context_out=co)
            case.metric = "serving"
            if (
                metric_raw == "output_tokens_per_s"
                and gpus > 1
                and PER_GPU_THROUGHPUT_SOURCE in r["framework"]
            ):
                case.measured *= gpus
                case.per_gpu_source = True
        else:
            case.skip = f"metric {metric_raw} not estimated"
            continue
        case.kwargs = kwargs
        case.gpu_name = r["gpu"]
    return cases


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def predict(case: Case, engines: dict[str, EngineProfile] | None = None) -> tuple[float, bool]:
    """(predicted value, fits) for one case; ``engines`` overrides profiles (fitting)."""
    kw = dict(case.kwargs)
    if case.metric == "weights":
        from gpuscout.knowledge.models import resolve_model

        b = weights_bytes_total(resolve_model(kw["model"]), resolve_precision(kw["precision"]))
        unit = case.row["unit"].strip()
        return (b / (1 << 30) if unit in ("GiB", "GB") else b / 1e9), True
    eng = (engines or {}).get(case.engine) or resolve_engine(case.engine)
    kw["engine"] = eng
    kw["gpu"] = _gpu(kw["gpu"])
    est = estimate(**kw)
    value = {
        "decode_b1": est.decode_tokens_per_s,
        "decode_batched": est.decode_tokens_per_s,
        "prefill": est.prefill_tokens_per_s,
        "ttft": est.ttft_ms,
        "serving": est.output_tokens_per_s_total,
        "fits": 1.0 if est.fits else 0.0,
        "achieved_bw": est.decode_tokens_per_s * est.memory.weights_gb,
    }[case.metric]
    return value, est.fits


@dataclass
class Result:
    case: Case
    predicted: float
    fits: bool
    error: str = ""

    @property
    def ape(self) -> float:
        return abs(self.predicted - self.case.measured) / abs(self.case.measured)


def evaluate(cases: Sequence[Case], engines: dict[str, EngineProfile] | None = None) -> list[Result]:
    out = []
    for c in cases:
        if c.skip:
            continue
        try:
            p, fits = predict(c, engines)
            out.append(Result(c, p, fits))
        except GpuscoutError as exc:
            out.append(Result(c, math.nan, False, str(exc)))
    return out


def _stats(apes: list[float]) -> dict[str, float]:
    if not apes:
        return {"n": 0, "mape": math.nan, "median_ape": math.nan, "within_15": math.nan}
    return {
        "n": len(apes),
        "mape": statistics.fmean(apes),
        "median_ape": statistics.median(apes),
        "within_15": sum(a <= WITHIN for a in apes) / len(apes),
    }


def summarise(results: Sequence[Result]) -> dict[str, Any]:
    by_metric: dict[str, list[float]] = defaultdict(list)
    by_metric_engine: dict[tuple[str, str], list[float]] = defaultdict(list)
    fits_rows = fits_right = implied = implied_right = 0
    suspect: list[dict[str, Any]] = []
    errors: list[str] = []
    for r in results:
        if r.error:
            errors.append(f"line {r.case.line}: {r.error}")
            continue
        if r.case.metric == "fits":
            fits_rows += 1
            fits_right += (r.predicted >= 0.5) == (r.case.measured >= 0.5)
            continue
        if r.case.metric != "weights":
            implied += 1
            implied_right += r.fits
        if r.case.suspect:
            suspect.append(
                {
                    "line": r.case.line,
                    "row": r.case.label,
                    "measured": r.case.measured,
                    "predicted": r.predicted,
                    "ape": r.ape,
                }
            )
            continue
        by_metric[r.case.metric].append(r.ape)
        by_metric_engine[(r.case.metric, r.case.engine)].append(r.ape)
    return {
        "metrics": {m: _stats(v) for m, v in sorted(by_metric.items())},
        "by_engine": {f"{m} / {e}": _stats(v) for (m, e), v in sorted(by_metric_engine.items())},
        "fits": {"rows": fits_rows, "right": fits_right},
        "implied_fits": {"rows": implied, "right": implied_right},
        "suspect_excluded": suspect,
        "errors": errors,
        "targets": TARGETS,
    }


# ----------------------------------------------------------------------------------------- fitting

_DECODE = ("decode_b1", "decode_batched", "achieved_bw")
_PREFILL = ("prefill", "ttft")
_SERVING = ("serving",)

# Which parameters are fitted, on which metric family, per engine. Kinds: "bw" / "comp" / "ceil" =
# bandwidth efficiency / compute efficiency / stream ceiling of a compute class; "attr" = attribute.
_FIT_PARAMS: dict[str, list[tuple[tuple[str, ...], list[tuple[str, str]]]]] = {
    "llama.cpp": [
        (
            _DECODE,
            [
                ("bw", "gguf-quant"),
                ("bw", "gguf-f16"),
                ("ceil", "gguf-quant"),
                ("ceil", "gguf-f16"),
                ("attr", "step_overhead_us"),
                ("attr", "layer_overhead_us"),
                ("attr", "pipeline_hop_us"),
                ("attr", "gqa_kv_reread"),
            ],
        ),
        (
            _PREFILL,
            [
                ("comp", "gguf-quant"),
                ("comp", "gguf-f16"),
                ("cceil", "gguf-quant"),
                ("cceil", "gguf-f16"),
                ("attr", "attn_score_bytes"),
            ],
        ),
    ],
    "gpt-fast": [(_DECODE, [("bw", "16bit"), ("bw", "weight-only"), ("attr", "step_overhead_us")])],
    "tensorrt-llm": [
        (
            _PREFILL + _SERVING,
            [("comp", "fp8"), ("comp", "16bit"), ("bw", "default"), ("attr", "step_overhead_us")],
        ),
    ],
}
_CAPS = {"bw": 0.98, "comp": 0.95, "attr": 1e6, "ceil": 1e5, "cceil": 1e5}


def _get(p: EngineProfile, kind: str, key: str) -> float:
    if kind == "bw":
        return p.bandwidth_eff(key)
    if kind == "comp":
        return p.compute_eff(key)
    if kind == "ceil":
        return p.stream_ceiling(key) or 1e5
    if kind == "cceil":
        return p.compute_ceiling_tflops.get(key) or 1e5
    return float(getattr(p, key))


def _set(p: EngineProfile, kind: str, key: str, value: float) -> EngineProfile:
    value = min(value, _CAPS[kind])
    if kind == "bw":
        return dataclasses.replace(p, bandwidth_efficiency={**p.bandwidth_efficiency, key: value})
    if kind == "comp":
        return dataclasses.replace(p, compute_efficiency={**p.compute_efficiency, key: value})
    if kind == "ceil":
        return dataclasses.replace(p, stream_ceiling_gbps={**p.stream_ceiling_gbps, key: value})
    if kind == "cceil":
        return dataclasses.replace(p, compute_ceiling_tflops={**p.compute_ceiling_tflops, key: value})
    return dataclasses.replace(p, **{key: value})


def _nelder_mead(
    f: Callable[[list[float]], float], x0: list[float], iters: int = 120, scale: float = 0.3
) -> list[float]:
    """Minimise ``f`` from ``x0`` (plain Nelder-Mead; numpy/scipy are not dependencies)."""
    n = len(x0)
    pts = [list(x0)] + [[x + (scale if i == j else 0.0) for j, x in enumerate(x0)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=vals.__getitem__)
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        centroid = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]

        def along(t: float, centroid: list[float] = centroid, worst: list[float] = pts[-1]) -> list[float]:
            return [c + t * (w - c) for c, w in zip(centroid, worst, strict=True)]

        refl = along(-1.0)
        fr = f(refl)
        if fr < vals[0]:
            exp = along(-2.0)
            fe = f(exp)
            pts[-1], vals[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = refl, fr
        else:
            con = along(0.5)
            fc = f(con)
            if fc < vals[-1]:
                pts[-1], vals[-1] = con, fc
            else:
                best = pts[0]
                pts = [best] + [[b + 0.5 * (x - b) for b, x in zip(best, p, strict=True)] for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    return pts[min(range(n + 1), key=vals.__getitem__)]


# Neutral starting values for the hold-out fits, so that nothing fitted on the held-out GPUs leaks in.
_NEUTRAL = {"bw": 0.8, "comp": 0.5, "ceil": 1500.0, "cceil": 300.0}
_NEUTRAL_ATTR = {
    "step_overhead_us": 500.0,
    "layer_overhead_us": 20.0,
    "pipeline_hop_us": 200.0,
    "gqa_kv_reread": 0.5,
    "attn_score_bytes": 16.0,
}


def neutral_profile(engine: str) -> EngineProfile:
    """The engine's profile with every fitted parameter reset to a neutral prior."""
    prof = resolve_engine(engine)
    for _, params in _FIT_PARAMS.get(engine, []):
        for kind, key in params:
            value = _NEUTRAL_ATTR[key] if kind == "attr" else _NEUTRAL[kind]
            prof = _set(prof, kind, key, value)
    return prof


def fit_engine(
    engine: str,
    cases: Sequence[Case],
    log: Callable[[str], None] | None = None,
    start: EngineProfile | None = None,
) -> EngineProfile:
    """Fit the engine's parameters (log-space Nelder-Mead, minimising MAPE), one metric family at a time."""
    prof = start or resolve_engine(engine)
    for metrics, params in _FIT_PARAMS.get(engine, []):
        usable = [
            c for c in cases if not c.skip and not c.suspect and c.engine == engine and c.metric in metrics
        ]
        if not usable:
            continue
        # a class-specific parameter is only fitted when some rows exercise that class (hold-out halves
        # may lack them; the parameter then keeps its calibrated value instead of drifting)
        classes = {resolve_precision(c.kwargs["precision"]).compute_class for c in usable}
        params = [(k, key) for k, key in params if k == "attr" or key == "default" or key in classes]
        if not params:
            continue

        def build(
            x: list[float], base: EngineProfile = prof, params: list[tuple[str, str]] = params
        ) -> EngineProfile:
            out = base
            for (kind, key), v in zip(params, x, strict=True):
                out = _set(out, kind, key, math.exp(v))
            return out

        def loss(x: list[float], usable: list[Case] = usable, build: Any = build) -> float:
            res = evaluate(usable, {engine: build(x)})
            apes = [r.ape for r in res if not r.error and not math.isnan(r.predicted)]
            return statistics.fmean(apes) if apes else math.inf

        x0 = [math.log(max(_get(prof, k, key), 1e-3)) for k, key in params]
        best = _nelder_mead(loss, x0, iters=60 * len(params))
        prof = build(best)
        if log:
            log(f"  {engine} on {'/'.join(metrics)}: MAPE {loss(best):.4f} with {describe(prof, engine)}")
    return prof


def describe(prof: EngineProfile, engine: str) -> str:
    parts = [
        f"{kind}:{key}={_get(prof, kind, key):.4g}"
        for _, ps in _FIT_PARAMS.get(engine, [])
        for kind, key in ps
    ]
    return ", ".join(parts)


def holdout(cases: Sequence[Case]) -> dict[str, Any]:
    """Fit on the rows of half of the GPUs, report the error on the other half, both ways."""
    gpus = sorted({c.gpu_name for c in cases if c.gpu_name})
    halves = (set(gpus[0::2]), set(gpus[1::2]))
    results: list[Result] = []
    for train, test in (halves, halves[::-1]):
        train_cases = [c for c in cases if c.gpu_name in train]
        fitted = {e: fit_engine(e, train_cases, start=neutral_profile(e)) for e in _FIT_PARAMS}
        results += evaluate([c for c in cases if c.gpu_name in test], fitted)
    out = summarise(results)
    out["halves"] = [sorted(h) for h in halves]
    return out


# ------------------------------------------------------------------------------------------- output


def load(path: Path) -> list[tuple[int, dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [(i + 2, row) for i, row in enumerate(csv.DictReader(fh))]


def _print_table(title: str, stats: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print(f"  {'':44s} {'n':>4s} {'MAPE':>7s} {'medAPE':>7s} {'<=15%':>6s}")
    for name, s in stats.items():
        if not s["n"]:
            continue
        print(f"  {name:44s} {s['n']:4d} {s['mape']:7.1%} {s['median_ape']:7.1%} {s['within_15']:6.0%}")


def _rel(r: Result) -> float:
    return r.predicted / r.case.measured - 1 if r.case.measured else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    ap.add_argument("--json", action="store_true", help="machine-readable summary")
    ap.add_argument("--rows", action="store_true", help="print every evaluated row")
    ap.add_argument("--holdout", action="store_true", help="fit on half of the GPUs, test on the other half")
    ap.add_argument(
        "--fit", metavar="ENGINE", help="fit this engine's parameters on all its rows and print them"
    )
    args = ap.parse_args(argv)

    cases = build_cases(load(args.csv))
    if args.fit:
        prof = fit_engine(args.fit, cases, log=print)
        print(describe(prof, args.fit))
        return 0
    results = evaluate(cases)
    summary = summarise(results)
    summary["skipped"] = [f"line {c.line}: {c.skip}" for c in cases if c.skip]
    summary["per_gpu_source_rows"] = [
        {
            "line": r.case.line,
            "row": r.case.label,
            "measured_total": r.case.measured,
            "literal_ape": abs(r.predicted - r.case.measured / r.case.kwargs["gpus"])
            / (r.case.measured / r.case.kwargs["gpus"]),
        }
        for r in results
        if r.case.per_gpu_source
    ]
    if args.holdout:
        summary["holdout"] = holdout(cases)
    if args.json:
        json.dump(summary, sys.stdout, indent=2, default=str)
        print()
        return 0
    if args.rows:
        for r in results:
            flag = " SUSPECT" if r.case.suspect else ""
            print(
                f"{r.case.line:4d} {r.case.label:110s} meas {r.case.measured:10.2f} "
                f"pred {r.predicted:10.2f} {_rel(r):+7.1%}"
                f"{flag} {r.error}"
            )
    _print_table("Per metric (SUSPECT rows excluded)", summary["metrics"])
    _print_table("Per metric and engine", summary["by_engine"])
    f, imp = summary["fits"], summary["implied_fits"]
    print(
        f"\nfits/OOM rows right: {f['right']}/{f['rows']}; measured rows predicted to fit: "
        f"{imp['right']}/{imp['rows']}"
    )
    print(
        "targets: decode b1 MAPE <= 12%, prefill <= 25%, serving <= 30%; "
        f"skipped rows: {len(summary['skipped'])}"
    )
    if summary["per_gpu_source_rows"]:
        rows = summary["per_gpu_source_rows"]
        print(
            f"rows read as per-GPU throughput in their source (x GPU count): {len(rows)} "
            f"({PER_GPU_THROUGHPUT_SOURCE}); read literally their APE would be "
            + ", ".join(f"{r['literal_ape']:.0%}" for r in rows)
        )
    if summary["suspect_excluded"]:
        print(
            f"SUSPECT rows (excluded): {len(summary['suspect_excluded'])}, e.g. "
            + "; ".join(f"line {s['line']}: {s['ape']:.0%}" for s in summary["suspect_excluded"][:4])
        )
    if summary["errors"]:
        print("errors:", *summary["errors"][:10], sep="\n  ")
    if args.holdout:
        h = summary["holdout"]
        _print_table("Hold-out (fit on one half of the GPUs, scored on the other)", h["metrics"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
