"""``gpuscout.estimate``: will it fit, and how fast, for one model on ``gpus`` x one accelerator."""

from __future__ import annotations

from typing import Literal

from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.arguments import int_in, resolve_gpu_arg, resolve_model_arg
from gpuscout.estimate.engines import EngineProfile, resolve_engine
from gpuscout.estimate.kv_cache import kv_shape
from gpuscout.estimate.memory import MemoryPlan, max_batch, plan_memory
from gpuscout.estimate.parallel import gpu_link
from gpuscout.estimate.precision import (
    KvDtype,
    WeightFormat,
    compute_rate,
    default_kv_dtype,
    resolve_kv_dtype,
    resolve_precision,
)
from gpuscout.estimate.throughput import Setup, speed
from gpuscout.estimate.types import Estimate
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

MAX_GPUS = 64
MAX_BATCH = 4096
MAX_CONTEXT = 10_000_000
PARALLEL_MODES = {
    "tensor": "tensor",
    "tp": "tensor",
    "layer": "layer",
    "pipeline": "layer",
    "pp": "layer",
    "layer-split": "layer",
    "layer split": "layer",
}


def _engine_format(fmt: WeightFormat, eng: EngineProfile, warnings: list[str]) -> WeightFormat:
    """Reconcile format and engine: llama.cpp runs GGUF; a 16-bit request becomes GGUF F16 there."""
    if eng.name == "llama.cpp" and not fmt.gguf:
        if fmt.compute_class in ("16bit",):
            return resolve_precision("gguf-f16")
        if fmt.name == "int8":
            warnings.append("llama.cpp has no plain int8 format; using GGUF Q8_0 (8.5 bits/weight)")
            return resolve_precision("gguf-q8_0")
        if fmt.name in ("int4", "nf4", "int4-g32"):
            warnings.append(
                f"llama.cpp runs GGUF, not {fmt.label}; using GGUF Q4_K_M as the 4-bit equivalent"
            )
            return resolve_precision("gguf-q4_k_m")
        warnings.append(f"llama.cpp has no {fmt.label} kernels; estimated as GGUF F16")
        return resolve_precision("gguf-f16")
    if fmt.gguf and eng.name != "llama.cpp":
        warnings.append(
            f"{fmt.label} is a llama.cpp format; {eng.label} support for GGUF is partial — "
            "speed estimated with its generic weight-only efficiency"
        )
    return fmt


def estimate(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    gpus: int = 1,
    precision: str | WeightFormat = "bf16",
    engine: str | EngineProfile = "vllm",
    batch: int | Literal["max"] = 1,
    context_in: int = 512,
    context_out: int = 512,
    kv_dtype: str | KvDtype | None = None,
    task: str = "inference",
    parallel: str = "tensor",
) -> Estimate:
    """Memory fit and speed of ``model`` served on ``gpus`` x ``gpu``.

    ``batch`` is the number of concurrent sequences, or "max" for the largest that fits (capped by
    the engine's scheduler limit), as offline max-throughput benchmarks run. ``context_in`` /
    ``context_out``: prompt and generated tokens per sequence. ``parallel``: "tensor" (TP) or "layer"
    (pipeline / llama.cpp layer split). Raises InvalidInputError / UnknownNameError naming the field.
    """
    if task not in ("inference", "infer", "serving"):
        raise InvalidInputError(
            "task",
            f"{task!r} is not an inference task; use gpuscout.estimate.training for training",
            "inference",
        )
    spec = resolve_model_arg(model)
    acc = resolve_gpu_arg(gpu)
    gpus = int_in("gpus", gpus, 1, MAX_GPUS, error=ConfigurationRejected)
    context_in = int_in("context_in", context_in, 0, MAX_CONTEXT)
    context_out = int_in("context_out", context_out, 0, MAX_CONTEXT)
    if context_in + context_out < 1:
        raise InvalidInputError("context_out", "context_in + context_out must be at least 1 token", ">= 1")
    mode = PARALLEL_MODES.get(str(parallel).strip().lower()) if isinstance(parallel, str) else None
    if mode is None:
        raise InvalidInputError("parallel", f"unknown parallel mode {parallel!r}", "tensor, layer")
    want_max = isinstance(batch, str)
    if want_max:
        if str(batch).strip().lower() != "max":
            raise InvalidInputError(
                "batch", f"expected an integer or 'max', got {batch!r}", f"1..{MAX_BATCH} or max"
            )
        n_batch = 1
    else:
        n_batch = int_in("batch", batch, 1, MAX_BATCH, error=ConfigurationRejected)
    if spec.kind != "llm":
        raise InvalidInputError(
            "model",
            f"{spec.name} is a {spec.kind} model; use gpuscout.estimate.diffusion for images",
            "a language model",
        )

    warnings: list[str] = []
    eng = resolve_engine(engine)
    fmt = _engine_format(resolve_precision(precision), eng, warnings)
    kv = resolve_kv_dtype(kv_dtype) if kv_dtype is not None else default_kv_dtype(fmt)
    if kv.name in ("q8_0", "q4_0") and eng.name != "llama.cpp":
        warnings.append(f"KV dtype {kv.name} is a llama.cpp cache type; {eng.label} offers fp8 instead")
    if kv.name == "fp8" and eng.name == "llama.cpp":
        warnings.append("llama.cpp has no fp8 KV cache; q8_0 (1.06 B/element) is its 8-bit equivalent")
    rate = compute_rate(fmt, acc)
    if rate.warning:
        warnings.append(rate.warning)
    if rate.derived:
        warnings.append(
            f"{acc.name}: no tensor-core rate in the table; {rate.rate_name} rate derived from FP32 "
            f"({rate.tflops:.0f} TFLOPS)"
        )
    context = context_in + context_out
    if spec.max_position_embeddings and context > spec.max_position_embeddings:
        warnings.append(
            f"context {context} exceeds {spec.name}'s max_position_embeddings {spec.max_position_embeddings}"
        )
    tp = gpus if mode == "tensor" else 1
    shape = kv_shape(spec)
    if tp > 1 and not shape.mla and shape.kv_heads and tp > shape.kv_heads:
        warnings.append(f"TP={tp} > {shape.kv_heads} KV heads: KV heads are replicated, not sharded")
    if tp > 1 and spec.num_attention_heads % tp:
        warnings.append(f"{spec.num_attention_heads} attention heads do not divide by TP={tp}")

    plan = plan_memory(spec, acc, fmt, kv, eng, batch=1, context=context, gpus=gpus, parallel=mode)
    biggest = max_batch(plan)
    if want_max:
        n_batch = max(1, min(biggest, eng.max_num_seqs, MAX_BATCH))
    plan = plan_memory(spec, acc, fmt, kv, eng, batch=n_batch, context=context, gpus=gpus, parallel=mode)
    if not plan.fits:
        warnings.append(
            f"does not fit: needs {plan.total / 1e9:.1f} GB per GPU, {plan.usable / 1e9:.1f} GB usable "
            f"({plan.binding_constraint()})"
        )
    if n_batch > eng.max_num_seqs:
        warnings.append(f"batch {n_batch} is above {eng.label}'s default scheduler cap of {eng.max_num_seqs}")

    st = Setup(spec, acc, fmt, kv, eng, gpus, mode)
    sp = speed(st, n_batch, context_in, context_out)
    return Estimate(
        model=spec.name,
        gpu=acc.name,
        gpus=gpus,
        precision=fmt.name,
        engine=eng.name,
        task="inference",
        parallel=mode,
        batch=n_batch,
        context_in=context_in,
        context_out=context_out,
        kv_dtype=kv.name,
        fits=plan.fits,
        binding_constraint=plan.binding_constraint(),
        memory=plan.breakdown(),
        max_batch=biggest,
        decode_tokens_per_s=sp.decode_tokens_per_s,
        output_tokens_per_s_total=sp.output_tokens_per_s_total,
        prefill_tokens_per_s=sp.prefill_tokens_per_s,
        ttft_ms=sp.ttft_s * 1000.0,
        bound=sp.bound,
        assumptions=_assumptions(st, plan, rate.rate_name, rate.tflops),
        warnings=warnings,
    )


def _assumptions(st: Setup, plan: MemoryPlan, rate_name: str, tflops: float) -> dict[str, str]:
    eng, fmt = st.engine, st.fmt
    out = {
        "engine": eng.label,
        "precision": f"{fmt.label}: {fmt.bits_per_weight:g} bits/weight (embeddings {fmt.embedding_bits:g}, "
        f"lm_head {fmt.lm_head_bits:g})",
        "kv_dtype": f"{st.kv.name} ({st.kv.bytes_per_element:g} B/element)",
        "bandwidth_efficiency": f"{st.bandwidth_eff:.2f} of {st.acc.bandwidth_gbps:g} GB/s"
        + _ceiling_note(eng.stream_ceiling(fmt.compute_class), "GB/s", st.achieved_bandwidth / 1e9),
        "compute_efficiency": f"{st.compute_eff:.2f} of {st.peak_tflops:g} TFLOPS {rate_name} (dense"
        + (", fp16 accumulate" if st.peak_tflops != tflops else "")
        + ")"
        + _ceiling_note(
            eng.compute_ceiling_tflops.get(fmt.compute_class, eng.compute_ceiling_tflops.get("default")),
            "TFLOPS",
            st.achieved_flops / 1e12,
        ),
        "compute_class": fmt.compute_class,
        "fixed_costs": f"{eng.layer_overhead_us:g} us/layer + {eng.step_overhead_us:g} us/step",
        "memory_budget": f"{eng.memory_utilization:.2f} of {plan.capacity / 1e9:.1f} GB "
        f"({st.acc.memory_gb:g} GiB card) - CUDA context {eng.cuda_context_gb:g} GB - engine reserve "
        f"{eng.engine_reserve_gb:g} GB",
        "kv_allocation": (
            "full context reserved up front"
            if eng.kv_allocates_full_context
            else f"paged, {eng.kv_block_tokens}-token blocks"
        ),
        "decode_speed": "average over generating context_out tokens after the prompt",
    }
    if st.gpus > 1:
        if st.parallel == "tensor":
            out["parallel"] = f"tensor parallel x{st.gpus} over {gpu_link(st.acc, st.gpus).label}"
        else:
            out["parallel"] = f"layer split over {st.gpus} GPUs (capacity, no batch-1 speed-up)"
    return out


def _ceiling_note(ceiling: float | None, unit: str, achieved: float) -> str:
    if not ceiling:
        return ""
    return f"; engine kernel ceiling {ceiling:g} {unit} -> {achieved:,.0f} {unit} reached"
