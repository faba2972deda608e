"""Accuracy of ``gpuscout.estimate`` against the published measurements of the calibration CSV.

    python benchmarks/accuracy.py [--csv PATH] [--json] [--rows] [--loso] [--fit ENGINE] [--engine E]

Every applicable row becomes an ``estimate`` call: framework -> engine (with its version, so a vLLM 0.6
row is timed as the V0 engine of that era), precision -> format, GPU count and parallel layout, the
load (batch, concurrency, request rate, or a burst of N prompts at once, read from the ``batch`` column
and the notes), prompt/generated tokens. The prediction is compared with the measurement. Printed per
metric and per engine: n, MAPE, median APE, share within +-15 %, plus MoE rows and TP >= 2 rows.

How rows are read (each rule is in ``build_cases``):

* Speeds that include prefill ("Speed = generated tokens / total time", the Qwen speed benchmarks) are
  compared with the estimate's output throughput at one request; "tg N" / AutoAWQ decode rows with the
  decode speed alone. CONVERTED / DERIVED rows are taken as their notes say (already converted).
* SUSPECT rows are evaluated and listed, never aggregated.
* Multi-node rows (PD disaggregation over 4-9 nodes, NVL72 racks) are outside single-node scope.
* Rows whose model the registry cannot represent (Step-3.5-Flash, Nemotron-3-Nano's Mamba layers) or
  without lengths / load are skipped with the reason.

``--loso`` (leave one source out): for every source in turn, the engine constants are re-fitted, from
the physics priors below, on the rows of all *other* sources, and scored on the held-out one. That is
the honest guide to unseen data. ``--fit ENGINE`` fits on every row and prints the constants, which is
how the numbers in ``gpuscout/estimate/engines.py`` were obtained. Fitting minimises the squared log
error (Levenberg-Marquardt on finite-difference Jacobians, numpy-free) with a weak pull towards the
priors, so that an engine with few rows keeps physical values.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import itertools
import json
import math
import multiprocessing
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuscout.errors import GpuscoutError
from gpuscout.estimate.api import estimate
from gpuscout.estimate.engines import EngineEra, EngineProfile, profile_for, resolve_engine
from gpuscout.estimate.launch_flags import profile_settings, read_flags
from gpuscout.estimate.memory import gib, weights_bytes_total
from gpuscout.estimate.precision import resolve_precision
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import resolve_gpu
from gpuscout.knowledge.models import fp8_checkpoint_format, resolve_model

# The calibration set lives beside the benchmark (copied from the project's shared reference data, with
# its sources in data/SOURCES-2026-12.md and each row's ``source`` column).
DEFAULT_CSV = Path(__file__).resolve().parent / "data" / "measurements.csv"
GPT_FAST_DEFAULT_NEW_TOKENS = 200  # gpt-fast generate.py --max_new_tokens default
WITHIN = 0.15
# TensorRT-LLM's v0.5/v0.6 performance tables give multi-GPU throughput per GPU: read as totals, the
# 70B TP4 rows (670 tok/s at batch 1280, 128/128 on 4xA100) would mean ~4 % model-FLOPs utilisation,
# an order of magnitude below what the same tables show on one GPU. We read them as per GPU and say so.
PER_GPU_THROUGHPUT_SOURCE = "TensorRT-LLM v0.6.1"
# ShareGPT prompts (sglang.bench_serving / vLLM benchmark_serving default sampling) with the Llama-3
# tokenizer average about 220 input tokens; the sources state the output mean only. An assumption.
# meta-llama/Llama-3.1-*-FP8 (quant_method fbgemm_fp8): row-wise FP8 MLPs, self-attention and the first and
# last decoder layers in bf16 (modules_to_not_convert; Llama 3 paper, section 6.2)
META_FP8_CHECKPOINT = re.compile(r"meta-llama/(?:Meta-)?Llama-3\.[1-9][\w.-]*-FP8\b", re.I)
SHAREGPT_PROMPT_TOKENS = 220
SHAREGPT_OUTPUT_TOKENS = 200
BENCHMARK_SERVING_DEFAULT_PROMPTS = 1000  # vLLM benchmarks/benchmark_serving.py --num-prompts default
LITGPT_PROMPT_TOKENS, LITGPT_NEW_TOKENS = 8, 50  # litgpt generate defaults ("What food do llamas eat?")

# Targets (issue 8), on the leave-one-source-out figures.
TARGETS = {
    "decode_b1": 0.15,
    "serving": 0.25,
    "ttft_load": 0.40,
    "tpot": 0.25,
    "moe serving": 0.30,
    "tp>=2 serving": 0.30,
}
SERVING_METRICS = ("serving", "requests")


@dataclass
class Case:
    """One CSV row turned into an estimate call (or a reason it cannot be)."""

    line: int
    row: dict[str, str]
    metric: str  # decode_b1, decode_batched, prefill, ttft, ttft_load, tpot, serving, requests, ...
    engine: str  # canonical engine name ("" when none)
    engine_text: str  # what resolve_engine reads (framework, with the era made explicit)
    kwargs: dict[str, Any]
    measured: float
    suspect: bool
    skip: str = ""  # non-empty: not applicable, with the reason
    gpu_name: str = ""
    source: str = ""
    per_gpu_source: bool = False  # measured value was per GPU in the source and was multiplied by the count
    includes_prefill: bool = False  # decode speed = generated tokens / total time (prefill included)
    moe: bool = False
    tp: int = 1
    notes: list[str] = field(default_factory=list)  # how the row was read (assumptions)

    @property
    def label(self) -> str:
        r = self.row
        return (
            f"{r['model']} | {r['precision']} | {r['gpu']} x{r['gpu_count'] or 1} | {r['framework'][:40]} | "
            f"{r['metric']} in={r['context_in']} out={r['context_out']} b={r['batch'][:24]}"
        )


# llama.cpp pull requests numbered below this were opened before May 2024 (#4766 and #4812: January 2024,
# as the rows' comments are dated)
LLAMA_CPP_PR_2024 = 7000


# a year the engine profile's "2024" era matches ("May 2024", "2024-01-10")
_YEAR_2024 = re.compile(next(e.versions for e in resolve_engine("llama.cpp").eras if e.name == "2024"))


def llama_cpp_2024_sources(rows: Sequence[dict[str, str]]) -> set[str]:
    """Sources whose llama.cpp rows were measured on 2023-2024 builds: a row's notes date it so (a table
    is run on one build, so the source's undated rows go with it), or a llama.cpp pull request of that
    time (the llama-bench tables in PR comments run the build of the day)."""
    out: set[str] = set()
    for r in rows:
        if "llama.cpp" not in r["framework"].lower():
            continue
        pr = re.search(r"github\.com/ggml-org/llama\.cpp/(?:pull|issues)/(\d+)", r["source"])
        if _YEAR_2024.search(r.get("notes") or "") or (pr and int(pr.group(1)) < LLAMA_CPP_PR_2024):
            out.add(r["source"])
    return out


def _engine_text(framework: str, precision: str = "", *, llama_cpp_2024: bool = False) -> str:
    """The framework column as resolve_engine should read it (the era of undated releases made explicit)."""
    f = framework
    low = f.lower()
    if "llama.cpp" in low and llama_cpp_2024:
        f += " 2024"  # its builds of 2023-2024 (the engine profile's "2024" era)
    if (
        "vllm" in low
        and ("late-2024" in low or "nov 2024" in low)
        and not re.search(r"\d+\.\d+", low.split("(")[0])
    ):
        f = "vLLM 0.6 " + f  # late-2024 releases were 0.6.x (V0 engine)
    if "tgi" in low and ("sha-11d7af7" in low or "rocm; version not stated" in low):
        f = "TGI 2.3 " + f  # the Oct-2024 ROCm images (dstack, vLLM blog) were TGI 2.3/2.4
    if "(gemv)" in precision.lower():
        f += " gemv"  # AutoAWQ's GEMV kernel variant
    return f


# The host cost of one bare forward call beyond its decoder layers (embedding, final norm, lm_head and an
# argmax launched from Python, ~20 kernels): the physics prior of a step's fixed cost, not fitted.
BARE_FORWARD_STEP_US = 500.0


def _engine_settings(notes: str, prof: EngineProfile) -> dict[str, Any]:
    """Engine flags the row's command line states, as profile attributes (the row is read as run): the
    same reading as a user's ``--engine "vllm --max-num-seqs 512"`` (gpuscout.estimate.launch_flags),
    lenient with values free text mangles."""
    flags = read_flags(notes, strict=False)
    out = profile_settings(flags, prof.step_overhead_us, prof.seq_overhead_us)
    if flags.stated:
        out["stated_flags"] = flags.stated
    if prof.name == "hf-transformers" and "autoawq" in notes.lower() and "examples/benchmark.py" in notes:
        # AutoAWQ's benchmark script times bare forward calls (model(...), then an argmax), not generate():
        # the host work generate() adds to every step (logits processors, stopping criteria, cache and
        # mask bookkeeping) is not in its decode time. What is left is the forward's own top and bottom.
        out["step_overhead_us"] = BARE_FORWARD_STEP_US
    return out


def _lockstep(notes: str) -> bool:
    """Fixed-length random prompts (vllm bench serve / bench_serving random, ignore-eos): requests started
    together keep moving together."""
    n = notes.lower()
    return "random" in n and (
        "range-ratio 1" in n or "ignore-eos" in n or "bench serve" in n or "random-input" in n
    )


def _varied_output(notes: str) -> bool:
    """ShareGPT requests with the dataset's own output lengths: vLLM ``benchmark_serving`` and SGLang
    ``bench_serving`` take each request's output length from its conversation's reply unless
    ``--sharegpt-output-len`` fixes it (then every request generates that many tokens)."""
    n = notes.lower()
    return "sharegpt" in n and "sharegpt-output-len" not in n and "sharegpt_output_len" not in n


def _engine_of(framework: str) -> str:
    f = framework.lower()
    if "llama.cpp" in f:
        return "llama.cpp"
    if "gpt-fast" in f:
        return "gpt-fast"
    if any(k in f for k in ("mlperf", "microbenchmark", "diffusers")):
        return ""
    try:
        return resolve_engine(_engine_text(framework)).name
    except GpuscoutError:
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
    return re.sub(r"\s*\(text-only random prompts\)\s*$", "", name.strip())


def _precision(text: str) -> str | None:
    """The estimator's precision for a row's precision column (None: not stated / not modelled)."""
    t = text.strip().lower()
    if not t or "not stated" in t or "/" in t or "sweep" in t or "mxfp8" in t:
        return None
    if t.startswith(("awq", "gptq")) or ("int4" in t and "g=32" not in t and "weight-only" not in t):
        return "int4"
    if t == "int8":
        return "int8"  # Qwen's "GPTQ-Int8": 8-bit weight-only
    try:
        return resolve_precision(text).name
    except GpuscoutError:
        return None


def _int(text: str) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isdigit() else None


def _num(pattern: str, text: str) -> float | None:
    m = re.search(pattern, text, flags=re.I)
    return float(m.group(1).replace(",", "")) if m else None


def _load(case: Case, batch_text: str, notes: str) -> dict[str, Any] | str:
    """The estimate load for a row: {"concurrency": C} / {"request_rate": R, "num_requests": N} /
    {"batch": "max"}; or the reason it cannot be read."""
    b = batch_text.strip().lower()
    n_low = notes.lower()
    if b in ("", "sweep") or "per device" in b:
        return f"load {batch_text!r} not a single-node operating point"
    if b.startswith("concurrency") and not case.row["context_in"].strip():
        return "concurrency without prompt/output lengths"
    rate = _num(r"rate\s+([\d.]+)", b)
    if rate is not None:
        n = _num(r"([\d,]+)\s+prompts", b) or (
            BENCHMARK_SERVING_DEFAULT_PROMPTS if "script default 1000" in n_low else None
        )
        if n is None:
            case.notes.append("number of prompts not stated: steady state")
        return {"request_rate": rate, "num_requests": int(n) if n else None}
    if b.startswith("max-concurrency"):
        return {"concurrency": int(_num(r"max-concurrency\s+(\d+)", b) or 1)}
    if b.startswith("max"):
        n = _num(r"(\d[\d,]*)\s+prompts", b)
        if n is not None:
            return {"request_rate": math.inf, "num_requests": int(n)}
        return {"batch": "max"}
    first = _num(r"^(\d+)", b)
    if first is None:
        return f"batch {batch_text!r} not understood"
    n = int(first)
    offline = "benchmark_throughput" in n_low or "batch = num_prompts" in n_low
    if offline:
        return {"request_rate": math.inf, "num_requests": n}
    # a closed-loop client run of a stated number of prompts (--max-concurrency C, infinite rate): its
    # first C requests are sent at once
    prompts = _num(r"--num-prompts?[ =](\d+)", notes) or (
        _num(r"(\d[\d,]*) prompts", notes) if "concurrency" in n_low else None
    )
    if prompts is not None and prompts >= n:
        return {"concurrency": n, "num_requests": int(prompts)}
    return {"concurrency": n}


def build_cases(rows: Iterable[tuple[int, dict[str, str]]]) -> list[Case]:
    cases: list[Case] = []
    rows = list(rows)
    dated_2024 = llama_cpp_2024_sources([r for _, r in rows])
    for line, r in rows:
        notes = r.get("notes") or ""
        suspect = "SUSPECT" in notes
        metric_raw = r["metric"]
        engine = _engine_of(r["framework"])
        case = Case(
            line,
            r,
            metric_raw,
            engine,
            _engine_text(r["framework"], r["precision"], llama_cpp_2024=r["source"] in dated_2024),
            {},
            _float(r["value"]),
            suspect,
            source=r["source"],
        )
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
        if "speech" in task:
            case.skip = "speech-to-text row: scored by benchmarks/accuracy_speech.py"
            continue
        if not engine:
            case.skip = f"framework {r['framework']!r} is not an LLM inference engine gpuscout models"
            continue
        if any(w in task for w in ("finetune", "lora", "image", "bandwidth", "pretrain")):
            case.skip = "not an inference row"
            continue
        gpus = _int(r["gpu_count"]) or 1
        if "multi-node" in notes.lower() or ("nodes" in notes.lower() and gpus > 8) or gpus > 16:
            case.skip = "multi-node system: outside the estimator's single-node scope"
            continue
        try:
            spec = resolve_model(_model(r["model"]))
        except GpuscoutError:
            case.skip = f"model {r['model']!r} cannot be represented by the registry (see tests/knowledge)"
            continue
        case.moe = spec.is_moe
        prec = _precision(r["precision"])
        if prec == "fp8" and META_FP8_CHECKPOINT.search(notes):
            # Meta's own FP8 checkpoints (fbgemm_fp8) convert the MLPs only: attention stays bf16
            prec = "fp8-ffn"
            case.notes.append("Meta FP8 checkpoint: MLP weights FP8, attention and first/last layers bf16")
        elif prec == "fp8":
            # the publisher's FP8 checkpoint: block-scaled for DeepSeek-V3/R1 and Qwen3 (128x128 scales)
            prec = fp8_checkpoint_format(spec)
        if prec is None:
            case.skip = f"precision {r['precision']!r} not stated, ambiguous or not modelled"
            continue
        if "nkvo=1" in notes or "CPU RAM" in notes:
            case.skip = "KV cache kept in host RAM (llama.cpp -nkvo) is not modelled"
            continue
        ci = _int(r["context_in"])
        co = _int(r["context_out"])
        # the engine's own multi-GPU mode: llama.cpp splits layers by default (--split-mode layer); HF
        # transformers spreads a model with accelerate's device_map="auto", whole layers per GPU run one
        # after the other (the Qwen speed benchmarks' notes: "transformers device_map auto, layers split")
        parallel = resolve_engine(engine).default_parallel if gpus > 1 else "tensor"
        if "data parallel" in r["framework"].lower():
            parallel = "replicas"
        case.tp = gpus if parallel == "tensor" else 1
        kwargs: dict[str, Any] = {
            "model": _model(r["model"]),
            "gpu": r["gpu"],
            "gpus": gpus,
            "precision": prec,
            "parallel": parallel,
        }
        if "[kv_dtype=fp8]" in notes or "kv-cache-dtype fp8" in notes:
            kwargs["kv_dtype"] = "fp8"
        elif (
            engine == "tensorrt-llm"
            and prec == "fp8"
            and "ModelOpt" not in notes
            and "NIM" not in r["framework"]
        ):
            kwargs["kv_dtype"] = "bf16"  # FP8 weights without ModelOpt's KV-cache scale: KV stays 16-bit
        if "ShareGPT" in notes and ci is None:
            ci = SHAREGPT_PROMPT_TOKENS
            co = co or SHAREGPT_OUTPUT_TOKENS
            case.notes.append(f"ShareGPT lengths assumed: {ci} in / {co} out")
        if engine == "hf-transformers" and "LitGPT" in r["framework"] and ci is None:
            ci, co = LITGPT_PROMPT_TOKENS, co or LITGPT_NEW_TOKENS
            case.notes.append("litgpt generate defaults assumed")
        load = _load(case, r["batch"], notes) if r["batch"].strip() not in ("1", "") else {"concurrency": 1}
        if isinstance(load, str):
            case.skip = load
            continue
        if "concurrency" in load and _lockstep(notes):
            load["lockstep"] = True
            case.notes.append("fixed-length requests started together: lockstep waves")
        if _varied_output(notes) and load.get("num_requests"):
            # ShareGPT conversations: output lengths spread around their mean (a finite run ends with
            # its longest ones), where the random datasets' are fixed
            load["varied_output"] = True
            case.notes.append("ShareGPT output lengths vary: the run ends with its longest requests")
        static_batch = _int(r["batch"])
        if metric_raw == "fits":
            case.metric = "fits"
            kwargs.update(context_in=ci or 0, context_out=co or 0, **load)
        elif metric_raw == "decode_tokens_per_s":
            out = co if co else (GPT_FAST_DEFAULT_NEW_TOKENS if engine == "gpt-fast" else 128)
            kwargs.update(context_in=ci or 0, context_out=out, **load)
            case.includes_prefill = (
                "total time" in notes.lower()
                or "total wall time" in notes.lower()
                or ("CONVERTED" in notes and "generated/total" in notes.replace(" ", ""))
                or "/time" in notes.replace(" ", "")
            )
            case.metric = "decode_b1" if static_batch == 1 else "decode_batched"
        elif metric_raw == "decode_tokens_per_s_aggregate":
            kwargs.update(context_in=ci or 0, context_out=co or 128, **load)
            case.metric = "decode_batched"
        elif metric_raw == "achieved_mem_bandwidth_GBps":
            kwargs.update(context_in=ci or 0, context_out=co or GPT_FAST_DEFAULT_NEW_TOKENS, **load)
            case.metric = "achieved_bw"
        elif metric_raw == "prefill_tokens_per_s":
            kwargs.update(context_in=ci or 512, context_out=0)
            case.metric = "prefill"
        elif metric_raw == "peak_memory_gb":
            if ci is None:
                case.skip = "peak memory without lengths"
                continue
            kwargs.update(context_in=ci, context_out=co or 0, **load)
            case.metric = "peak_memory"
        elif metric_raw in ("ttft_ms", "tpot_ms"):
            if ci is None:
                case.skip = f"{metric_raw} without prompt length"
                continue
            kwargs.update(context_in=ci, context_out=co if co else 1, **load)
            idle = load == {"concurrency": 1} and (co is None or co <= 1)
            case.metric = (
                "ttft"
                if metric_raw == "ttft_ms" and idle
                else ("ttft_load" if metric_raw == "ttft_ms" else "tpot")
            )
            if metric_raw == "tpot_ms" and "ms/token" in notes and "k6" in notes:
                # philschmid's k6 tests: request latency / generated tokens (TTFT and queueing included)
                case.metric = "latency_per_token"
            if "MEDIAN" in notes:
                case.notes.append("median in the source, compared with the estimated mean")
        elif metric_raw in ("output_tokens_per_s_total", "output_tokens_per_s", "requests_per_s"):
            if ci is None or co is None:
                case.skip = "throughput without prompt/output lengths"
                continue
            kwargs.update(context_in=ci, context_out=co, **load)
            case.metric = "requests" if metric_raw == "requests_per_s" else "serving"
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


#: a measured run that the estimate sizes at most this much over the usable memory (its fullest GPU) is
#: reported as a borderline miss of the implied fit, not hidden: the runtime reserves the sizing adds (CUDA
#: context, allocator arenas, driver reserve) are each known to a few hundred MB, so a need within 2 % of
#: the card is inside that uncertainty
BORDERLINE_OVER_USABLE = 1.02


def predict(case: Case, engines: dict[str, EngineProfile] | None = None) -> tuple[float, bool]:
    """(predicted value, fits) for one case; ``engines`` overrides today's profiles (fitting)."""
    value, fits, _ = predict_sized(case, engines)
    return value, fits


def predict_sized(case: Case, engines: dict[str, EngineProfile] | None = None) -> tuple[float, bool, float]:
    """(predicted value, fits, need / usable memory on the fullest GPU) for one case."""
    kw = dict(case.kwargs)
    if case.metric == "weights":
        b = weights_bytes_total(resolve_model(kw["model"]), resolve_precision(kw["precision"]))
        unit = case.row["unit"].strip()
        return (b / (1 << 30) if unit in ("GiB", "GB") else b / 1e9), True, 0.0
    base = (engines or {}).get(case.engine) or resolve_engine(case.engine)
    prof = profile_for(base, case.engine_text)
    settings = _engine_settings(case.row.get("notes") or "", prof)
    kw["engine"] = dataclasses.replace(prof, **settings) if settings else prof
    kw["gpu"] = _gpu(kw["gpu"])
    est = estimate(**kw)
    if not est.supported:
        raise GpuscoutError(f"unsupported: {est.unsupported_reason}")
    m = case.metric
    if m == "decode_b1":
        value = est.output_tokens_per_s_total if case.includes_prefill else est.decode_tokens_per_s
    elif m == "decode_batched":
        value = est.decode_tokens_per_s * est.batch
    elif m == "latency_per_token":
        o = max(1, est.context_out)
        value = (est.ttft_ms + (o - 1) * est.tpot_ms) / o
    elif m == "peak_memory":
        mem = est.memory
        value = gib((mem.weights_gb + mem.kv_cache_gb + mem.activations_gb) * est.gpus)
    else:
        value = {
            "prefill": est.prefill_tokens_per_s,
            "ttft": est.ttft_ms,
            "ttft_load": est.ttft_ms,
            "tpot": est.tpot_ms,
            "serving": est.output_tokens_per_s_total,
            "requests": est.requests_per_s,
            "fits": 1.0 if est.fits else 0.0,
            "achieved_bw": est.decode_tokens_per_s * est.memory.weights_gb,
        }[m]
    mem = est.memory
    need = mem.total_gb
    return value, est.fits, need / mem.usable_gb if mem.usable_gb else math.inf


@dataclass
class Result:
    case: Case
    predicted: float
    fits: bool
    error: str = ""
    over_usable: float = 0.0  # need / usable memory on the fullest GPU (``predict_sized``)

    @property
    def ape(self) -> float:
        return abs(self.predicted - self.case.measured) / abs(self.case.measured)

    @property
    def log_error(self) -> float:
        if self.predicted <= 0 or self.case.measured <= 0 or not math.isfinite(self.predicted):
            return 3.0
        return math.log(self.predicted / self.case.measured)


def evaluate(cases: Sequence[Case], engines: dict[str, EngineProfile] | None = None) -> list[Result]:
    out = []
    for c in cases:
        if c.skip:
            continue
        try:
            p, fits, over = predict_sized(c, engines)
            out.append(Result(c, p, fits, over_usable=over))
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


SPEED_METRICS = (
    "decode_b1",
    "decode_batched",
    "prefill",
    "ttft",
    "ttft_load",
    "tpot",
    "latency_per_token",
    "serving",
    "requests",
    "achieved_bw",
)


def group_names(case: Case) -> list[str]:
    """The groups a row counts in besides its metric (the targets on MoE and tensor-parallel serving)."""
    names = []
    if case.metric in SERVING_METRICS:
        names.append("serving + requests")
        if case.moe:
            names.append("moe serving")
        if case.tp >= 2:
            names.append("tp>=2 serving")
    if case.moe and case.metric in ("decode_b1", "tpot", "ttft_load"):
        names.append(f"moe {case.metric}")
    return names


def short_source(url: str) -> str:
    """A source URL as a reader can place it: a GitHub file as owner/repo and the last two parts of its
    path (a commit hash dropped), any other page as host and the last part of its path."""
    parts = [p for p in re.sub(r"^https?://", "", url).split("/") if p]
    if not parts:
        return url
    if parts[0] == "github.com" and len(parts) >= 3:
        tail = [p for p in parts[3:] if p not in ("blob", "tree") and not re.fullmatch(r"[0-9a-f]{7,40}", p)]
        return "/".join(parts[1:3] + (["..."] if len(tail) > 2 else []) + tail[-2:])
    return "/".join(parts[:1] + (["..."] if len(parts) > 2 else []) + parts[1:][-1:])


def attribution(results: Sequence[Result], top: int = 3) -> dict[str, list[dict[str, Any]]]:
    """Where each target's error comes from: per target (a metric or a group of :data:`TARGETS`), every
    source's share of the MAPE in points (its rows' absolute percentage errors summed, over the target's
    row count, so the shares add up to the MAPE), with its rows, their mean error and how many the
    estimate over- and under-predicts; the ``top`` largest shares, largest first."""
    rows: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        if r.error or r.case.suspect or r.case.metric == "fits":
            continue
        for key in (r.case.metric, *group_names(r.case)):
            if key in TARGETS:
                rows[key].append(r)
    out: dict[str, list[dict[str, Any]]] = {}
    for key in TARGETS:
        members = rows.get(key, [])
        by_src: dict[str, list[Result]] = defaultdict(list)
        for r in members:
            by_src[r.case.source].append(r)
        shares = [
            {
                "source": src,
                "points": sum(r.ape for r in rs) / len(members),
                "n": len(rs),
                "mean_ape": statistics.fmean(r.ape for r in rs),
                "over": sum(r.predicted > r.case.measured for r in rs),
                "under": sum(r.predicted < r.case.measured for r in rs),
            }
            for src, rs in by_src.items()
        ]
        out[key] = sorted(shares, key=lambda d: -d["points"])[:top]
    return out


def _print_attribution(stats: dict[str, dict[str, float]], shares: dict[str, list[dict[str, Any]]]) -> None:
    print("\nLOSO: where each target's error comes from (points of the MAPE, largest sources)")
    for key, target in TARGETS.items():
        s = stats.get(key)
        if not s or not s["n"]:
            continue
        verdict = "met" if s["mape"] <= target else "MISSED"
        print(f"  {key} {s['mape']:.1%} (n={s['n']}, target <= {target:.0%}: {verdict})")
        for d in shares.get(key, []):
            print(
                f"    {100 * d['points']:4.1f}  {short_source(d['source'])}: {d['n']} rows, mean "
                f"{d['mean_ape']:.0%}, {d['over']} over / {d['under']} under"
            )


def summarise(results: Sequence[Result]) -> dict[str, Any]:
    by_metric: dict[str, list[float]] = defaultdict(list)
    by_metric_engine: dict[tuple[str, str], list[float]] = defaultdict(list)
    groups: dict[str, list[float]] = defaultdict(list)
    fits_rows = fits_right = implied = implied_right = 0
    borderline: list[dict[str, Any]] = []
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
        if r.case.metric in SPEED_METRICS:
            implied += 1
            implied_right += r.fits
            if not r.fits and r.over_usable <= BORDERLINE_OVER_USABLE:
                borderline.append({"line": r.case.line, "row": r.case.label, "over_usable": r.over_usable})
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
        for g in group_names(r.case):
            groups[g].append(r.ape)
    return {
        "metrics": {m: _stats(v) for m, v in sorted(by_metric.items())},
        "groups": {g: _stats(v) for g, v in sorted(groups.items())},
        "by_engine": {f"{m} / {e}": _stats(v) for (m, e), v in sorted(by_metric_engine.items())},
        "fits": {"rows": fits_rows, "right": fits_right},
        "implied_fits": {"rows": implied, "right": implied_right, "borderline": borderline},
        "suspect_excluded": suspect,
        "errors": errors,
        "targets": TARGETS,
    }


# ----------------------------------------------------------------------------------------- fitting

# A parameter: (kind, key). Kinds: "bw" / "comp" = bandwidth / compute efficiency of a compute class;
# "ceil" / "cceil" = stream / compute ceiling of a class; "attr" = profile attribute; "era:NAME:attr" =
# an override of era NAME; "era:NAME:scale" = that era's efficiency scale.
Param = tuple[str, str]
_DECODE = ("decode_b1", "decode_batched", "achieved_bw")
_PREFILL = ("prefill", "ttft")
_LOAD = ("ttft_load", "tpot", "latency_per_token", "serving", "requests")
_ALL = _DECODE + _PREFILL + _LOAD
# Kernel efficiencies and per-step costs are fitted on the speed rows (decode, prefill, throughput,
# TPOT): properties of the engine's kernels and scheduler. TTFT under load also carries queueing,
# the client's arrival pattern (lockstep or staggered), long-prompt attention kernels of one platform
# (vLLM's 2024 ROCm build: 734 s for a 128k prompt) and medians compared with means; fitted with the
# rest, a few TTFT rows 5x off (DeepSeek-R1 in early-2025 engines) dragged SGLang's FP8 compute
# efficiency to 0.05 of peak. So TTFT rows fit only the per-request cost on their TTFT (a TTFT at
# concurrency 1 fitted with the speed rows was tried: it pulled vLLM's compute efficiency to 0.31
# and the leave-one-source-out TTFT error up by 6 points).
_SPEED = tuple(m for m in _ALL if m != "ttft_load")
_REQUEST: list[Param] = [("attr", "request_overhead_us")]


def _speed_then_ttft(params: list[Param]) -> list[tuple[tuple[str, ...], list[Param]]]:
    return [(_SPEED, [p for p in params if p not in _REQUEST]), (("ttft_load",), _REQUEST)]


# Which constants are fitted, per engine, and on which metric families. Few, physical ones: the
# achieved fractions of peak, the fixed costs, and one factor per past era.
FIT_PARAMS: dict[str, list[tuple[tuple[str, ...], list[Param]]]] = {
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
                ("era:2024:step_overhead_us", ""),
                ("era:2024:layer_overhead_us", ""),
                ("attr", "pipeline_hop_us"),
                ("attr", "gqa_kv_reread"),
            ],
        ),
        (
            _PREFILL,
            [
                ("comp", "gguf-quant"),
                ("comp", "gguf-f16"),
                ("cceil", "*"),
                ("era:2024:attn_score_bytes", ""),
            ],
        ),
    ],
    "gpt-fast": [(_DECODE, [("bw", "16bit"), ("bw", "weight-only"), ("attr", "step_overhead_us")])],
    "vllm": _speed_then_ttft(
        [
            ("bw", "16bit"),
            ("bw", "weight-only"),
            ("comp", "16bit"),
            ("attr", "step_overhead_us"),
            ("attr", "seq_overhead_us"),
            ("attr", "request_overhead_us"),
            ("era:v0:seq_overhead_us", ""),
            ("era:v0:moe_efficiency", ""),
            ("era:v0:tp_step_overhead_us", ""),
            ("era:v0:moe_compute_efficiency", ""),
            ("era:v0:moe_layer_overhead_us", ""),
        ]
    ),
    "sglang": _speed_then_ttft(
        [
            ("bw", "fp8-block"),
            ("comp", "16bit"),
            ("comp", "fp8-block"),
            ("era:0.4.4-0.4.x:moe_efficiency", ""),
            ("attr", "moe_compute_efficiency"),
            ("era:0.4.4-0.4.x:moe_layer_overhead_us", ""),
            ("attr", "request_overhead_us"),
            ("attr", "tp_step_overhead_us"),
            ("era:0.3:step_overhead_us", ""),
            ("era:0.4.0-0.4.3:moe_efficiency", ""),
            ("era:0.4.0-0.4.3:moe_compute_efficiency", ""),
            ("era:0.4.0-0.4.3:moe_layer_overhead_us", ""),
            ("era:0.4.0-0.4.3:kscale", "fp8-block"),
        ]
    ),
    "tensorrt-llm": _speed_then_ttft(
        [
            ("bw", "default"),
            ("comp", "16bit"),
            ("comp", "fp8"),
            ("attr", "step_overhead_us"),
            ("era:pt-2025:moe_efficiency", ""),
            ("era:pt-2025:moe_compute_efficiency", ""),
            ("era:pt-2025:moe_layer_overhead_us", ""),
            ("attr", "request_overhead_us"),
            ("era:0.5:scale", ""),
        ]
    ),
    "tgi": _speed_then_ttft(
        [
            ("era:1.x:scale", ""),
            ("attr", "request_overhead_us"),
            ("era:2.x:step_overhead_us", ""),
            ("era:2.x:tp_step_overhead_us", ""),
            ("era:2.x:scale", ""),
            ("era:1.x:step_overhead_us", ""),
            ("era:1.x:seq_overhead_us", ""),
            ("era:1.x:tp_step_overhead_us", ""),
        ]
    ),
    "hf-transformers": [
        (
            _ALL,
            [
                ("bw", "16bit"),
                ("bw", "weight-only"),
                ("attr", "step_overhead_us"),
                ("era:4.x:expert_loop_us", ""),
                # 5.x's grouped-GEMM experts: timed by benchmarks/gpu_measure.py's Qwen3-30B-A3B rows
                ("attr", "moe_compute_efficiency"),
                ("attr", "attn_decode_efficiency"),
                ("era:flash-attention-2:kv_copies_per_step", ""),
                ("era:fused:layer_overhead_us", ""),
                ("era:fused:scale", ""),
                ("era:gemv:cscale", ""),
            ],
        )
    ],
}
# Constants two engines share because they do the same thing, fitted on the rows of both at once:
# holding one source out then leaves the constant to the other engine's rows, not to a prior.
# ``python_scheduler_step_us``: the CPU time of one step of a Python scheduler of 2024-25 (vLLM's V0
# engine, SGLang 0.4): scheduling, input preparation, sampling, detokenisation, ~2-3 ms on a server
# CPU. vLLM V0 adds it to the GPU's time; SGLang's overlap scheduler hides it behind the GPU's.
# ``eager_layer_launch_us``: the host time of launching one decoder layer's kernels from Python when no
# CUDA graph replays them (eager PyTorch: ~30-50 kernels at ~10 us each): the same work whichever server
# wraps it, HF transformers' generate, TGI 1.x's flash modelling code, trtllm-serve 0.17-0.19's PyTorch
# backend, vLLM under --enforce-eager (Qwen3-14B-AWQ on an A100, vLLM 0.9.1: 20.6 ms per token where its
# weight and KV reads take ~9 ms and 40 layers x ~0.5 ms of launches take ~20). Fitted on one engine
# alone it took what that engine's other constants left (1040, 613 and 808 us), and a held-out source
# fell back to a prior: trtllm-serve's DeepSeek-R1 rows were then predicted 2x too fast.
# ``block_fp8_quant_layer_us``: the per-token-group FP8 quantisation of the activations before each
# block-FP8 GEMM, a kernel both vLLM and SGLang run (per layer: qkv, o, gate/up, down); fitted on
# SGLang's rows alone it took 35 us and vLLM paid nothing; on both engines' rows, 15.7 us.
SHARED_PARAMS: dict[str, tuple[tuple[str, Param], ...]] = {
    "python_scheduler_step_us": (
        ("vllm", ("era:v0:step_overhead_us", "")),
        ("sglang", ("attr", "step_overhead_us")),
    ),
    "eager_layer_launch_us": (
        ("hf-transformers", ("attr", "layer_overhead_us")),
        ("tgi", ("era:1.x:layer_overhead_us", "")),
        ("tensorrt-llm", ("era:pt-2025:layer_overhead_us", "")),
        ("vllm", ("era:eager:layer_overhead_us", "")),
        # the steps TGI 2-3's CUDA graphs do not cover (prompts, batches above 32) run TGI 1.x's eager
        # modelling code
        ("tgi", ("attr", "eager_layer_overhead_us")),
    ),
    "block_fp8_quant_layer_us": (
        ("sglang", ("attr", "block_fp8_quant_layer_us")),
        ("vllm", ("attr", "block_fp8_quant_layer_us")),
    ),
}
# Constants an engine takes from another's fit instead of its own rows, because both run the same
# kernels there: SGLang's and vLLM's 16-bit linear layers are the same cuBLAS GEMMs (torch F.linear) under
# CUDA graphs, so a 16-bit weight stream runs at one rate in both. SGLang's own 16-bit rows are mostly on
# the H20, where batch-1 decode is compute-bound (64-row tiles against 148 TFLOPS) and long-context and
# MoE rows trade the streaming figure against the MoE one: fitted there, it wandered (0.44-0.54). Their
# AWQ/GPTQ layers are the same Marlin GEMM (SGLang 0.5's apply_awq_marlin_linear -> gptq_marlin_gemm), and
# SGLang's AWQ rows (the H20 again, compute-bound on Marlin's 16-row tiles) left that stream loose at 0.83.
TIED_PARAMS: dict[str, tuple[tuple[Param, str], ...]] = {
    "sglang": ((("bw", "16bit"), "vllm"), (("bw", "weight-only"), "vllm"))
}
SHARED_PRIORS = {
    "python_scheduler_step_us": 2000.0,
    "eager_layer_launch_us": 400.0,
    "block_fp8_quant_layer_us": 10.0,
}

_CAPS = {
    "bw": 0.98,
    "comp": 0.95,
    "scale": 1.3,
    "cscale": 1.5,
    "moe_efficiency": 1.0,
    "gqa_kv_reread": 4.0,
    "attn_decode_efficiency": 1.0,
    "moe_compute_efficiency": 1.0,
}
_FLOORS = {"gemm_min_rows": 1.0}

# Physics priors: where every fit starts (and is pulled towards, weakly). Not fitted on any row.
PRIORS: dict[str, dict[Param, float]] = {
    "default": {
        ("bw", "*"): 0.75,
        ("comp", "*"): 0.5,
        ("ceil", "*"): 1500.0,
        ("cceil", "*"): 300.0,
        ("attr", "step_overhead_us"): 500.0,
        ("attr", "seq_overhead_us"): 5.0,
        ("attr", "layer_overhead_us"): 20.0,
        ("attr", "pipeline_hop_us"): 200.0,
        ("attr", "gqa_kv_reread"): 0.5,
        ("attr", "attn_score_bytes"): 16.0,
        ("attr", "moe_efficiency"): 0.5,
        ("attr", "moe_compute_efficiency"): 0.6,
        ("attr", "expert_loop_us"): 50.0,
        ("attr", "moe_layer_overhead_us"): 50.0,
        ("attr", "block_fp8_quant_layer_us"): 10.0,
        ("attr", "request_overhead_us"): 5000.0,
        ("attr", "attn_decode_efficiency"): 1.0,
        ("attr", "tp_step_overhead_us"): 200.0,
        ("scale", "*"): 0.9,
        ("cscale", "*"): 1.0,
    },
    "hf-transformers": {
        ("attr", "step_overhead_us"): 3000.0,
        ("era:fused:layer_overhead_us", ""): 60.0,
        ("era:fused:scale", ""): 1.0,
        ("era:gemv:cscale", ""): 0.5,
        ("attr", "attn_decode_efficiency"): 0.1,
        # FA2 path, per layer and step: repeat_kv writes the GQA-expanded K/V, the unpadding gathers it
        # (read + write), the kernel reads it: ~4 passes over the expanded cache besides the plain read
        ("era:flash-attention-2:kv_copies_per_step", ""): 4.0,
    },
    "tgi": {
        # TGI 1.x loops over the running requests in Python after every step: two tokenizer.decode
        # calls (incremental detokenisation), the stopping criteria, a Generation object serialised
        # to the Rust router; a sampled request also goes through HeterogeneousSampling's per-request
        # loop (softmax, exponential_, div_, argmax, an indexed store: ~6 kernel launches from Python):
        # ~0.2-0.4 ms per request, after the step's tokens are on the host (a C++ server's: ~5 us)
        ("era:1.x:seq_overhead_us", ""): 300.0,
        ("era:1.x:step_overhead_us", ""): 3000.0,
        ("era:2.x:step_overhead_us", ""): 1000.0,
    },
    "vllm": {("era:v0:seq_overhead_us", ""): 30.0},
    "sglang": {("era:0.3:step_overhead_us", ""): 900.0},
}
# How far (log units, one sigma) a constant may plausibly sit from its physics prior: efficiencies and
# scales within ~x1.6, fixed costs and kernel ceilings within ~x2.7. Against a row noise of ~0.3 in log
# units this sets each constant's pull towards its prior (a Gaussian prior in log space).
ROW_SIGMA = 0.3
PRIOR_SIGMA = {
    "bw": 0.5,
    "comp": 0.5,
    "scale": 0.5,
    "cscale": 0.5,
    "kscale": 0.5,
    "moe_efficiency": 0.5,
    "moe_compute_efficiency": 0.7,
    "attn_decode_efficiency": 1.5,
}
DEFAULT_PRIOR_SIGMA = 1.0


def _prior_weight(p: Param) -> float:
    kind, key = p
    name = kind.split(":")[2] if kind.startswith("era:") else (key if kind == "attr" else kind)
    sigma = PRIOR_SIGMA.get(name, DEFAULT_PRIOR_SIGMA)
    return (ROW_SIGMA / sigma) ** 2


def _prior(engine: str, p: Param) -> float:
    specific = PRIORS.get(engine, {})
    if p in specific:
        return specific[p]
    kind, key = p
    if kind.startswith("era:"):
        attr = kind.split(":")[2]
        if attr in ("scale", "cscale"):
            return PRIORS["default"][(attr, "*")]
        if attr == "kscale":
            return PRIORS["default"][("scale", "*")]
        return PRIORS["default"][("attr", attr)]
    return PRIORS["default"].get((kind, key), PRIORS["default"].get((kind, "*"), 1.0))


def _era(p: EngineProfile, name: str) -> EngineEra:
    return next(e for e in p.eras if e.name == name)


def get_param(p: EngineProfile, param: Param) -> float:
    kind, key = param
    if kind == "bw":
        return p.bandwidth_eff(key)
    if kind == "comp":
        return p.compute_eff(key)
    if kind == "ceil":
        return p.stream_ceiling(key) or 1e5
    if kind == "cceil":
        return p.compute_ceiling_tflops.get("default" if key == "*" else key) or 1e5
    if kind.startswith("era:"):
        _, name, attr = kind.split(":")
        era = _era(p, name)
        if attr == "scale":
            return era.efficiency_scale
        if attr == "cscale":
            return era.compute_scale
        if attr == "kscale":
            return era.kernel_scales.get(key, 1.0)
        return float(era.overrides.get(attr, getattr(p, attr)))
    return float(getattr(p, key))


def set_param(p: EngineProfile, param: Param, value: float) -> EngineProfile:
    kind, key = param
    if kind in ("bw", "comp"):
        value = min(value, _CAPS[kind])
    if key in _CAPS:
        value = min(value, _CAPS[key])
    if key in _FLOORS:
        value = max(value, _FLOORS[key])
    if kind in ("bw", "comp"):
        table = p.bandwidth_efficiency if kind == "bw" else p.compute_efficiency
        keys = {key}
        if key == "16bit" and table.get("default") == table.get("16bit"):
            # "default" spells the 16-bit figure for the classes without their own (vLLM's and SGLang's
            # per-tensor FP8): it moves with the fit, or a held-out fold would read the in-sample value
            keys.add("default")
        table = {**table, **dict.fromkeys(keys, value)}
        if kind == "bw":
            return dataclasses.replace(p, bandwidth_efficiency=table)
        return dataclasses.replace(p, compute_efficiency=table)
    if kind == "ceil":
        return dataclasses.replace(p, stream_ceiling_gbps={**p.stream_ceiling_gbps, key: value})
    if kind == "cceil":
        keys = {*p.compute_ceiling_tflops, "default"} if key == "*" else {key}
        return dataclasses.replace(
            p, compute_ceiling_tflops={**p.compute_ceiling_tflops, **dict.fromkeys(keys, value)}
        )
    if kind.startswith("era:"):
        _, name, attr = kind.split(":")
        eras = []
        for e in p.eras:
            if e.name == name:
                if attr == "scale":
                    e = dataclasses.replace(e, efficiency_scale=min(value, _CAPS["scale"]))
                elif attr == "cscale":
                    e = dataclasses.replace(e, compute_scale=min(value, _CAPS["cscale"]))
                elif attr == "kscale":
                    scales = {**e.kernel_scales, key: min(value, _CAPS["scale"])}
                    e = dataclasses.replace(e, kernel_scales=scales)
                else:
                    e = dataclasses.replace(e, overrides={**e.overrides, attr: value})
            eras.append(e)
        return dataclasses.replace(p, eras=tuple(eras))
    fields: dict[str, Any] = {key: value}
    return dataclasses.replace(p, **fields)


def _usable(engine: str, cases: Sequence[Case], metrics: tuple[str, ...]) -> list[Case]:
    return [c for c in cases if not c.skip and not c.suspect and c.engine == engine and c.metric in metrics]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (small dense systems; numpy is not a dependency)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def _levenberg_marquardt(
    residuals: Callable[[list[float]], list[float]], x0: list[float], iters: int = 12, step: float = 0.05
) -> list[float]:
    """Minimise sum(residuals(x)**2) from ``x0`` (log-space parameters)."""
    x = list(x0)
    r = residuals(x)
    cost = sum(v * v for v in r)
    lam = 1e-2
    for _ in range(iters):
        jac = []
        for j in range(len(x)):
            xp = list(x)
            xp[j] += step
            rp = residuals(xp)
            jac.append([(a - b) / step for a, b in zip(rp, r, strict=True)])
        n = len(x)
        jtj = [[sum(jac[i][k] * jac[j][k] for k in range(len(r))) for j in range(n)] for i in range(n)]
        jtr = [sum(jac[i][k] * r[k] for k in range(len(r))) for i in range(n)]
        improved = False
        for _attempt in range(6):
            a = [
                [jtj[i][j] + (lam * (1.0 + jtj[i][i]) if i == j else 0.0) for j in range(n)] for i in range(n)
            ]
            dx = _solve(a, [-v for v in jtr])
            dx = [max(-1.0, min(1.0, d)) for d in dx]
            xn = [xi + di for xi, di in zip(x, dx, strict=True)]
            rn = residuals(xn)
            cn = sum(v * v for v in rn)
            if cn < cost:
                x, r, cost, lam, improved = xn, rn, cn, max(lam / 3.0, 1e-6), True
                break
            lam *= 4.0
        if not improved or max(abs(d) for d in dx) < 1e-3:
            break
    return x


# Discrete constants, fitted by trying each value (the cost is flat between them for a local optimiser).
GRID: dict[str, tuple[float, ...]] = {"gemm_min_rows": (1.0, 16.0, 32.0, 64.0, 128.0)}


def fit_engine(
    engine: str,
    cases: Sequence[Case],
    log: Callable[[str], None] | None = None,
    start: EngineProfile | None = None,
) -> EngineProfile:
    """Fit the engine's FIT_PARAMS on its (non-SUSPECT) rows, one metric family at a time."""
    prof = start or resolve_engine(engine)
    for metrics, params in FIT_PARAMS.get(engine, []):
        usable = [c for c in _usable(engine, cases, metrics) if c.metric != "weights"]
        if not usable:
            continue
        classes = {_eff_class(c) for c in usable}
        eras = {resolve_engine(c.engine_text).era for c in usable}
        params = [p for p in params if _exercised(p, classes, eras)]
        grid = [p for p in params if p[0] == "grid"]
        cont = [p for p in params if p[0] != "grid"]
        best: tuple[float, EngineProfile] | None = None
        for combo in itertools.product(*(GRID[p[1]] for p in grid)):
            base = prof
            for p, v in zip(grid, combo, strict=True):
                base = set_param(base, ("attr", p[1]), v)
            fitted, cost = _fit_continuous(engine, base, cont, usable)
            if best is None or cost < best[0]:
                best = (cost, fitted)
        assert best is not None
        prof = best[1]
        if log:
            res = evaluate(usable, {engine: prof})
            mape = statistics.fmean([r.ape for r in res if not r.error]) if res else math.nan
            log(
                f"  {engine} on {len(usable)} rows ({'/'.join(sorted({c.metric for c in usable}))}): "
                f"MAPE {mape:.3f}"
            )
    return prof


def _fit_continuous(
    engine: str, prof: EngineProfile, params: list[Param], usable: list[Case]
) -> tuple[EngineProfile, float]:
    """Levenberg-Marquardt on ``params`` (log space) from ``prof``: (fitted profile, cost)."""
    priors = [math.log(_prior(engine, p)) for p in params]
    weights = [math.sqrt(_prior_weight(p)) for p in params]

    def build(x: list[float]) -> EngineProfile:
        out = prof
        for p, v in zip(params, x, strict=True):
            out = set_param(out, p, math.exp(v))
        return out

    def residuals(x: list[float]) -> list[float]:
        res = evaluate(usable, {engine: build(x)})
        out = [_robust(r.log_error) if not r.error else 3.0 for r in res]
        out += [w * (xi - pi) for w, xi, pi in zip(weights, x, priors, strict=True)]
        return out

    x0 = [math.log(max(get_param(prof, p), 1e-6)) for p in params]
    best = _levenberg_marquardt(residuals, x0) if params else []
    return build(best), sum(v * v for v in residuals(best))


def _robust(r: float, scale: float = 0.5) -> float:
    """Pseudo-Huber residual in log space: quadratic near 0, linear past ``scale`` (a 3x miss counts ~2x a
    1.5x miss, not 7x), so that a few rows the physics cannot explain do not drag an engine's constants."""
    return math.copysign(math.sqrt(2.0 * scale * scale * (math.sqrt(1.0 + (r / scale) ** 2) - 1.0)), r)


def _eff_class(c: Case) -> str:
    """The efficiency key the case's format uses (a kernel family such as "fp8-block", else its class)."""
    return resolve_precision(c.kwargs["precision"]).efficiency_class


def _exercised(p: Param, classes: set[str], eras: set[str]) -> bool:
    kind, key = p
    if kind in ("bw", "comp", "ceil", "cceil"):
        if key in ("default", "*"):
            return True
        native_narrow = {"fp8", "fp8-block", "fp4"}  # run weight-only where the GPU lacks them
        return (
            key in classes
            or (key == "fp8" and "fp8-block" in classes)  # a block-FP8 case falls back to the FP8 figure
            or (key == "weight-only" and bool(classes & native_narrow))
        )
    if kind.startswith("era:"):
        name = kind.split(":")[1]
        in_era = any(name in e.split("+") for e in eras)
        return in_era and (not kind.endswith(":kscale") or key in classes)
    if kind == "grid":
        return True
    return True


def prior_profile(engine: str) -> EngineProfile:
    """The engine's profile with every fitted constant reset to its physics prior."""
    prof = resolve_engine(engine)
    for _, params in FIT_PARAMS.get(engine, []):
        for p in params:
            if p[0] == "grid":
                prof = set_param(prof, ("attr", p[1]), _prior(engine, ("attr", p[1])))
            else:
                prof = set_param(prof, p, _prior(engine, p))
    for group, members in SHARED_PARAMS.items():
        for e, p in members:
            if e == engine:
                prof = set_param(prof, p, SHARED_PRIORS[group])
    return prof


def _with_donors(names: set[str]) -> set[str]:
    """``names`` and every engine one of them takes a TIED_PARAMS constant from."""
    return names | {donor for e in names for _, donor in TIED_PARAMS.get(e, ())}


def fit_engines(
    engines: Iterable[str],
    cases: Sequence[Case],
    *,
    from_priors: bool = True,
    log: Callable[[str], None] | None = None,
) -> dict[str, EngineProfile]:
    """Fit ``engines`` (each on its own rows), then every SHARED_PARAMS constant one of them uses, on
    the speed rows of all the engines that share it (those engines are fitted too)."""
    names = _with_donors(set(engines))
    groups = [g for g, members in SHARED_PARAMS.items() if any(e in names for e, _ in members)]
    for g in groups:
        names |= {e for e, _ in SHARED_PARAMS[g]}
    names = _with_donors(names)  # the donors of engines a shared group brought in
    profs: dict[str, EngineProfile] = {}
    # donors first: an engine whose constant is tied to another's starts from the donor's fitted value
    for e in sorted(names, key=lambda n: (n in TIED_PARAMS, n)):
        start = prior_profile(e) if from_priors else resolve_engine(e)
        for p, donor in TIED_PARAMS.get(e, ()):
            start = set_param(start, p, get_param(profs[donor], p))
        profs[e] = fit_engine(e, cases, log=log, start=start)
    for g in groups:
        profs = _fit_shared(g, profs, cases, log)
    return profs


def _fit_shared(
    group: str,
    profs: dict[str, EngineProfile],
    cases: Sequence[Case],
    log: Callable[[str], None] | None = None,
) -> dict[str, EngineProfile]:
    """Fit the shared constant ``group`` on the speed rows of every engine sharing it (the engines'
    own constants as fitted), with the weak pull towards its physics prior."""
    members = SHARED_PARAMS[group]
    sharing = {e for e, _ in members}
    usable = [
        c
        for c in cases
        if not c.skip
        and not c.suspect
        and c.engine in sharing
        and c.metric in _SPEED
        and _shared_exercised(c, members)
    ]
    if not usable:
        return profs

    def build(x: list[float]) -> dict[str, EngineProfile]:
        out = dict(profs)
        for e, p in members:
            out[e] = set_param(out[e], p, math.exp(x[0]))
        return out

    prior = math.log(SHARED_PRIORS[group])
    weight = ROW_SIGMA / DEFAULT_PRIOR_SIGMA

    def residuals(x: list[float]) -> list[float]:
        res = evaluate(usable, build(x))
        return [_robust(r.log_error) if not r.error else 3.0 for r in res] + [weight * (x[0] - prior)]

    e0, p0 = members[0]
    best = _levenberg_marquardt(residuals, [math.log(get_param(profs[e0], p0))])
    if log:
        log(f"  shared {group} on {len(usable)} rows of {'/'.join(sorted(sharing))}: {math.exp(best[0]):.4g}")
    return build(best)


def _shared_exercised(c: Case, members: tuple[tuple[str, Param], ...]) -> bool:
    """Whether a shared constant reaches this row: an era's override reaches only that era's rows, a
    profile attribute every row whose eras do not override it."""
    prof = resolve_engine(c.engine_text)
    eras = prof.era.split("+") if prof.era else []
    for e, (kind, key) in members:
        if e != c.engine:
            continue
        if kind.startswith("era:"):
            if kind.split(":")[1] in eras:
                return True
            continue
        base = resolve_engine(e)
        if not any(key in x.overrides for x in base.eras if x.name in eras):
            return True
    return False


def describe(prof: EngineProfile, engine: str) -> str:
    parts = [
        f"{p[0]}{':' + p[1] if p[1] else ''}={get_param(prof, p):.4g}"
        for members in SHARED_PARAMS.values()
        for e, p in members
        if e == engine
    ]
    for _, ps in FIT_PARAMS.get(engine, []):
        for p in ps:
            if p[0] == "grid":
                p = ("attr", p[1])
            try:
                parts.append(f"{p[0]}{':' + p[1] if p[1] else ''}={get_param(prof, p):.4g}")
            except StopIteration:
                continue
    return ", ".join(parts)


def _loso_fold(task: tuple[str, list[Case], list[Case]]) -> list[Result]:
    """One leave-one-source-out fold: refit without the held-out source's rows, score on them."""
    _src, held, train = task
    engines = {c.engine for c in held if c.engine in FIT_PARAMS}
    return evaluate(held, fit_engines(engines, train))


def loso(cases: Sequence[Case], log: Callable[[str], None] | None = None, jobs: int = 1) -> dict[str, Any]:
    """Leave one source out: refit (from the priors) without each source, score on it. ``jobs`` > 1 runs
    the folds in that many processes (each fold is independent; the results are the same)."""
    sources = sorted({c.source for c in cases if not c.skip and c.source})
    tasks = [
        (src, [c for c in cases if c.source == src and not c.skip], [c for c in cases if c.source != src])
        for src in sources
    ]
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            folds = pool.map(_loso_fold, tasks, chunksize=1)
    else:
        folds = [_loso_fold(t) for t in tasks]
    results: list[Result] = []
    per_source: dict[str, dict[str, Any]] = {}
    for (src, held, _train), res in zip(tasks, folds, strict=True):
        results += res
        ok = [r.ape for r in res if not r.error and not r.case.suspect and r.case.metric in SPEED_METRICS]
        per_source[src] = {
            "n": len(ok),
            "mape": statistics.fmean(ok) if ok else math.nan,
            "engines": sorted({c.engine for c in held if c.engine in FIT_PARAMS}),
        }
        if log:
            log(f"  held out {src[:90]}: n={len(ok)} MAPE {per_source[src]['mape']:.3f}")
    out = summarise(results)
    out["per_source"] = per_source
    out["attribution"] = attribution(results)
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


def _training_module() -> Any | None:
    """``benchmarks/accuracy_training.py`` (issue 8, item 7: the training-speed work, its own module), or
    None where it is absent."""
    path = Path(__file__).resolve().parent / "accuracy_training.py"
    if not path.is_file():
        return None
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpuscout_bench_accuracy_training", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def training_table(csv_path: Path, loso: bool) -> list[Any] | None:
    """The training-speed table (``accuracy_training.training_summary``: one SummaryRow per metric family,
    in-sample and, with ``loso``, leave-one-source-out), or None where that module is absent."""
    module = _training_module()
    return None if module is None else list(module.training_summary(csv_path, loso=loso))


def _print_training(rows: list[Any] | None) -> None:
    print("\nTraining speed (benchmarks/accuracy_training.py)")
    module = _training_module() if rows is not None else None
    if rows is None or module is None:
        print(
            "  not present: the training-speed table (issue 8, item 7) is printed here once that module lands"
        )
        return
    module.print_table(rows)


def _rel(r: Result) -> float:
    return r.predicted / r.case.measured - 1 if r.case.measured else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    ap.add_argument("--json", action="store_true", help="machine-readable summary")
    ap.add_argument("--rows", action="store_true", help="print every evaluated row")
    ap.add_argument("--engine", help="only rows of this engine (with --rows)")
    ap.add_argument(
        "--loso", action="store_true", help="leave-one-source-out refits (the figure that counts)"
    )
    ap.add_argument(
        "--fit", metavar="ENGINE", help="fit this engine's constants on all its rows and print them"
    )
    ap.add_argument("--from-priors", action="store_true", help="with --fit: start from the physics priors")
    ap.add_argument("--no-training", action="store_true", help="skip the training-speed table")
    ap.add_argument(
        "--jobs", type=int, default=1, help="with --loso: run the folds in this many processes (same figures)"
    )
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs: {args.jobs} is out of range (accepted: a whole number >= 1)")

    cases = build_cases(load(args.csv))
    if args.fit:
        engines = list(FIT_PARAMS) if args.fit == "all" else [args.fit]
        fitted = fit_engines(engines, cases, from_priors=args.from_priors, log=print)
        for name in sorted(fitted):
            print(f"{name}: {describe(fitted[name], name)}")
        return 0
    results = evaluate(cases)
    summary = summarise(results)
    summary["skipped"] = [f"line {c.line}: {c.skip}" for c in cases if c.skip]
    if args.loso:
        summary["loso"] = loso(cases, log=None if args.json else print, jobs=args.jobs)
    if not args.no_training:
        summary["training"] = training_table(args.csv, args.loso)
    if args.json:
        if summary.get("training") is not None:
            summary["training"] = [
                {
                    k: (None if isinstance(v, float) and math.isnan(v) else v)
                    for k, v in dataclasses.asdict(r).items()
                }
                for r in summary["training"]
            ]
        json.dump(summary, sys.stdout, indent=2, default=str)
        print()
        return 0
    if args.rows:
        for r in results:
            if args.engine and r.case.engine != args.engine:
                continue
            flag = " SUSPECT" if r.case.suspect else ""
            print(
                f"{r.case.line:4d} {r.case.metric:14s} {r.case.label:150s} meas {r.case.measured:10.2f} "
                f"pred {r.predicted:10.2f} {_rel(r):+7.1%}{flag} {r.error}"
            )
    _print_table("Per metric, fitted constants (SUSPECT rows excluded)", summary["metrics"])
    _print_table("Groups", summary["groups"])
    _print_table("Per metric and engine", summary["by_engine"])
    f, imp = summary["fits"], summary["implied_fits"]
    print(
        f"\nfits/OOM rows right: {f['right']}/{f['rows']}; measured speed rows predicted to fit: "
        f"{imp['right']}/{imp['rows']}; skipped rows: {len(summary['skipped'])}"
    )
    if imp["borderline"]:
        print(
            f"  measured runs sized as not fitting, within {BORDERLINE_OVER_USABLE - 1:.0%} of the card "
            "(borderline: the sizing's runtime reserves are known to a few hundred MB; their speed is not "
            "estimated): "
            + "; ".join(
                f"line {b['line']} ({b['row']}): {b['over_usable']:.1%} of usable" for b in imp["borderline"]
            )
        )
    if summary["suspect_excluded"]:
        print(
            f"SUSPECT rows (reported, not aggregated): {len(summary['suspect_excluded'])}, e.g. "
            + "; ".join(f"line {s['line']}: {s['ape']:.0%}" for s in summary["suspect_excluded"][:4])
        )
    if summary["errors"]:
        print("errors:", *summary["errors"][:10], sep="\n  ")
    if args.loso:
        h = summary["loso"]
        _print_table("LEAVE-ONE-SOURCE-OUT (refit without each source, scored on it)", h["metrics"])
        _print_table("LOSO groups", h["groups"])
        _print_table("LOSO per metric and engine", h["by_engine"])
        print("\ntargets (LOSO MAPE): " + ", ".join(f"{k} <= {v:.0%}" for k, v in TARGETS.items()))
        _print_attribution({**h["metrics"], **h["groups"]}, h["attribution"])
    if not args.no_training:
        _print_training(summary["training"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
