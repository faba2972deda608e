"""``gpuscout.estimate``: will it fit, can the engine run it there, and how fast at a given load."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from gpuscout.errors import ConfigurationRejected, InvalidInputError, quoted_value
from gpuscout.estimate.arguments import MAX_BATCH as MAX_BATCH  # the input limits: stated there, once
from gpuscout.estimate.arguments import MAX_CONCURRENCY as MAX_CONCURRENCY
from gpuscout.estimate.arguments import MAX_CONTEXT as MAX_CONTEXT
from gpuscout.estimate.arguments import MAX_GPUS as MAX_GPUS
from gpuscout.estimate.arguments import MAX_RATE as MAX_RATE
from gpuscout.estimate.arguments import (
    ContextPastWindow,
    int_in,
    positive_float,
    require_language_model,
    resolve_gpu_arg,
    text_number_hint,
    within_max_model_len,
)
from gpuscout.estimate.engines import (
    LLAMA_SERVER_DEFAULT_SLOTS,
    MOE_WEIGHT_ONLY_NOTE,
    EngineProfile,
    class_key,
    default_engine,
    resolve_engine,
)
from gpuscout.estimate.hf_attention import with_default_attention
from gpuscout.estimate.kv_cache import (
    SGLANG_STATE_TO_KV_RATIO,
    engine_kv_dtypes,
    engine_state_pages,
    kv_shape,
    linear_state_bytes,
    linear_state_dtypes,
    mixes_windows,
)
from gpuscout.estimate.launch_flags import max_model_len_flag, memory_share_flag, read_flag_names
from gpuscout.estimate.lazy_text import items, text
from gpuscout.estimate.memory import (
    GIB,
    MemoryPlan,
    capacity_bytes,
    card_memory_label,
    gib,
    max_batch,
    model_consts,
    plan_memory,
)
from gpuscout.estimate.parallel import (
    HOST_STAGED_SHARE,
    NODE_GPUS,
    SCALE_OUT_LATENCY_US,
    TP_HEAD_RULES,
    Link,
    allreduce_latency_us,
    collective_link,
    custom_kernel_gbps,
    lacks_peer_access,
    mesh_peers,
    node_gpus,
    pcie_topology_warning,
    tp_degrees_allowed,
    tp_head_conflict,
)
from gpuscout.estimate.precision import (
    CLASS_GGUF,
    CLASS_GGUF_F16,
    CLASS_WEIGHT_ONLY,
    FP32_PLACEHOLDER_TFLOPS,
    SPARSE_MLA_FP8,
    ComputeRate,
    KvDtype,
    WeightFormat,
    gguf_from_checkpoint,
    has_bf16,
    kv_dtype_names,
    published_checkpoint,
    resolve_kv_dtype,
    resolve_precision,
    states_fp8_scaling,
)
from gpuscout.estimate.serving import (
    CAP_MATTERS,
    Load,
    ServingPoint,
    holds_growing_cache,
    pipelined,
    serve_replicas,
    steady_context,
    token_budget_cap,
)
from gpuscout.estimate.support import (
    FLASH_ATTENTION_2_SOURCE,
    flash_attention_2_refusal,
    instead_of_release,
    refused_for_age,
    release_refusal,
    verdict_for,
    without_float16,
)
from gpuscout.estimate.throughput import Setup, StepTime, prefill_seconds, wide_body_params
from gpuscout.estimate.types import CAP_WORDS, Estimate, FitOption, MemoryNeed, binding_words
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import as_software_sees
from gpuscout.knowledge.calibration_coverage import speed_calibrated, uncalibrated_warning
from gpuscout.knowledge.engine_support import SupportVerdict, alternatives
from gpuscout.knowledge.linear_attention import (
    HF_GATED_DELTA_RULE_NOTE,
    LINEAR_ATTENTION_ENGINES,
    LINEAR_ATTENTION_VENDORS,
    linear_attention_instead,
    linear_attention_refusal,
)
from gpuscout.knowledge.model_types import EXPERTS_ONLY_BASE, ModelSpec
from gpuscout.wording import ms_text, plural


def pipelines(eng: EngineProfile) -> bool:
    """Whether ``eng``'s layer split over several GPUs is a pipeline with a batch in flight on each (vLLM,
    SGLang, TensorRT-LLM at a release that has one: ``EngineProfile.has_pipeline``), whose speed no
    calibration row measures; llama.cpp's and accelerate's layer splits are calibrated. The serving
    physics asks the same (``serving.pipelined``)."""
    return eng.has_pipeline()


#: What a pipeline's speed rests on: no calibration row runs an engine's pipeline parallelism.
PIPELINE_UNCALIBRATED = (
    "the pipeline's speed is the layer split's physics, not fitted: no calibration row runs a pipeline"
)

PARALLEL_MODES = {
    "tensor": "tensor",
    "tp": "tensor",
    "layer": "layer",
    "pipeline": "layer",
    "pp": "layer",
    "layer-split": "layer",
    "layer split": "layer",
    "replicas": "replicas",
    "replica": "replicas",
    "data": "replicas",
    "dp": "replicas",
    "data-parallel": "replicas",
}


def parallel_mode(parallel: object, engine: str | EngineProfile) -> str:
    """The parallel mode ("tensor", "layer" or "replicas") for any of its spellings (``PARALLEL_MODES``);
    None: ``engine``'s own way to spread a model over several GPUs (``EngineProfile.default_parallel``:
    a layer split for llama.cpp and HF transformers, tensor parallel for the servers). The one place
    the faces (Python, CLI, JSON API) take that default from."""
    if parallel is None:
        return resolve_engine(engine).default_parallel
    mode = PARALLEL_MODES.get(parallel.strip().lower()) if isinstance(parallel, str) else None
    if mode is None:
        raise InvalidInputError(
            "parallel", f"unknown parallel mode {quoted_value(parallel)}", "tensor, layer, replicas"
        )
    return mode


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
        return fmt  # fp8 / nvfp4 / mxfp4 / w8a8: the support rules decide
    if fmt.gguf and eng.name != "llama.cpp":
        warnings.append(
            f"{fmt.label} is a llama.cpp format; {eng.label} support for GGUF is partial — "
            "speed estimated with its generic weight-only efficiency"
        )
    return fmt


def run_format(fmt: WeightFormat, eng: EngineProfile, warnings: list[str], spec: ModelSpec) -> WeightFormat:
    """The weight format ``eng`` runs ``spec`` in when ``fmt`` is asked: the engine's own
    (:func:`_engine_format`, noting a swap in ``warnings``) as the model's files of it hold the weights
    (:func:`_as_published`). The estimate, its "would fit" options and ``diagnose`` all time this one."""
    return _as_published(_engine_format(fmt, eng, warnings), spec)


def _as_published(fmt: WeightFormat, spec: ModelSpec) -> WeightFormat:
    """``fmt`` as the files of ``spec`` in it hold the weights: a GGUF quant of a checkpoint whose MoE experts
    ship in MXFP4 (gpt-oss) keeps them so (:func:`precision.gguf_from_checkpoint`, read from the model
    table's ``native_precision``); ``fmt`` itself otherwise."""
    if not fmt.gguf or not spec.native_precision:
        return fmt
    try:
        checkpoint = resolve_precision(spec.native_precision)
    except InvalidInputError:  # an imported config's format the table does not know: nothing kept
        return fmt
    return gguf_from_checkpoint(fmt, checkpoint)


def _model_and_precision(
    model: str | ModelSpec, precision: str | WeightFormat | None
) -> tuple[ModelSpec, str, str]:
    """(spec, precision asked or implied, note). A quantized checkpoint name ("Qwen3-14B-AWQ") implies its
    precision; otherwise the model's native format (DeepSeek-V3 fp8, gpt-oss MXFP4 experts), else bf16.
    An experts-only format (``mxfp4-moe``, ``int4-moe``) asked for a model without experts is refused by
    name: it would leave every weight in 16 bits under a 4-bit label."""
    spec, name, note = _asked_precision(model, precision)
    fmt = resolve_precision(name)
    if fmt.dense_bits is not None and not spec.is_moe:
        dense = EXPERTS_ONLY_BASE.get(fmt.name, "")
        raise InvalidInputError(
            "precision",
            f"{fmt.name} quantizes only the routed experts of an MoE model, and {spec.name} has none",
            f"{dense} (every linear layer in {dense}), or another format"
            if dense
            else "a format that quantizes every linear layer",
        )
    return spec, name, note


def _asked_precision(
    model: str | ModelSpec, precision: str | WeightFormat | None
) -> tuple[ModelSpec, str, str]:
    """:func:`_model_and_precision`'s answer before the experts-only check."""
    if isinstance(model, ModelSpec):
        spec, implied, note = model, "", ""
    elif isinstance(model, str):  # a blank name too: the resolver says it is empty, with known names
        from gpuscout.knowledge.models import resolve_model_detail

        res = resolve_model_detail(model)
        spec, implied, note = res.model, res.precision, res.note
    else:
        raise InvalidInputError(
            "model", f"expected a model name or a ModelSpec, got {quoted_value(model)}", "e.g. llama-3.1-8b"
        )
    if isinstance(precision, WeightFormat):  # its checkpoint format too: "awq" is judged as AWQ
        return spec, precision.checkpoint or precision.name, note
    if precision is not None and not isinstance(precision, str):
        resolve_precision(precision)  # type: ignore[unreachable]  # InvalidInputError naming the field
    asked = (precision or "").strip().lower()
    if asked in ("", "native", "auto", "checkpoint"):
        return spec, implied or spec.native_precision or "bf16", note
    published = published_checkpoint(spec.native_precision, asked)
    if published:  # gpt-oss's MXFP4 checkpoint keeps attention in bf16, Kimi-K2-Thinking's int4 too
        return spec, published, note
    if not states_fp8_scaling(asked):
        from gpuscout.knowledge.models import fp8_checkpoint_format

        # "fp8" is the model's FP8 checkpoint: block-scaled for DeepSeek-V3/R1 and Qwen3 ("fp8-per-tensor"
        # asks for per-tensor scales, as vLLM's --quantization fp8 makes from a 16-bit checkpoint)
        return spec, fp8_checkpoint_format(spec), note
    return spec, asked, note


@dataclass(frozen=True, slots=True)
class _LoadArgs:
    load: Load
    label: str
    rate: float | None


def _load_args(
    batch: int | Literal["max"] | None,
    concurrency: int | None,
    request_rate: float | None,
    num_requests: int | None,
    lockstep: bool = False,
    varied_output: bool = False,
) -> _LoadArgs | None:
    """The load asked for; None = saturate ("max": as many sequences as fit)."""
    given = [
        n
        for n, v in (("batch", batch), ("concurrency", concurrency), ("request_rate", request_rate))
        if v is not None
    ]
    if len(given) > 1:
        raise InvalidInputError(
            given[1],
            f"give one of batch, concurrency or request_rate, not {' and '.join(given)}",
            names=("batch", "concurrency", "request_rate"),
        )
    n_req = int_in("num_requests", num_requests, 1, MAX_CONCURRENCY) if num_requests is not None else None
    if n_req is not None and not given:
        # a run with no load to run it at: the default (one request at a time) would drop it without a word
        raise InvalidInputError(
            "num_requests",
            f"a run of {n_req:,} {plural(n_req, 'request')} needs the load it runs at: a concurrency, a "
            "request_rate (inf: all at once, a burst) or a batch",
            "num_requests with concurrency, request_rate or batch; leave it out for one request",
            names=("concurrency", "request_rate", "batch", "num_requests"),
        )
    if request_rate is not None:
        if (
            isinstance(request_rate, int | float)
            and not isinstance(request_rate, bool)
            and math.isinf(request_rate)
            and request_rate > 0
        ):
            if n_req is None:
                raise InvalidInputError(
                    "num_requests", "an infinite request rate needs the number of requests", ">= 1"
                )
            return _LoadArgs(
                Load("burst", float(n_req), n_req, varied_output=varied_output),
                f"{n_req} {plural(n_req, 'request')} at once",
                math.inf,
            )
        rate = positive_float("request_rate", request_rate, MAX_RATE)
        return _LoadArgs(
            Load("rate", rate, n_req, varied_output=varied_output),
            f"{rate:g} {plural(f'{rate:g}', 'request')}/s",
            rate,
        )
    if concurrency is not None:
        c = int_in("concurrency", concurrency, 1, MAX_CONCURRENCY, error=ConfigurationRejected)
        return _LoadArgs(
            Load("concurrency", float(c), n_req, lockstep, varied_output), f"concurrency {c}", None
        )
    if isinstance(batch, str):
        if batch.strip().lower() != "max":
            # text is only 'max': a number in text ("8", from argv) is named as such, not re-read
            raise InvalidInputError(
                "batch",
                f"expected an integer or 'max', got the text {quoted_value(batch)}{text_number_hint(batch)}",
                f"1..{MAX_CONCURRENCY} or max",
            )
        if n_req is not None:  # "max" is the steady state of a full batch: a run of N has no meaning there
            raise InvalidInputError(
                "num_requests",
                "applies to a finite run at a concurrency, a request rate or a batch size, not batch max",
                "leave it out, or give a concurrency, a request rate or a batch size",
            )
        return None
    # a batch is the requests in flight over every replica, as a concurrency is: the same range
    b = int_in("batch", 1 if batch is None else batch, 1, MAX_CONCURRENCY, error=ConfigurationRejected)
    return _LoadArgs(Load("concurrency", float(b), n_req, lockstep, varied_output), f"batch {b}", None)


def derived_model_len(spec: ModelSpec, context: int) -> int:
    """The max_model_len an engine derives from the checkpoint's config.json when none is stated: its
    own window (``native_context``: a Qwen2.5 -Instruct's 32,768), or, where the context asked needs the
    rope scaling its model card documents (configured, as :func:`arguments.past_native_window` says), the
    scaled window; the model's window where the two are one."""
    native = spec.native_context
    if native and context <= native:
        return native
    return spec.max_position_embeddings or 0


def _for_model(eng: EngineProfile, spec: ModelSpec, context: int = 0) -> EngineProfile:
    """The engine's scheduler as it runs ``spec``, from its launch flags and the context it serves
    (``max_model_len``, else the model's own).

    vLLM V0 (0.5-0.7) sized its step budget from the context: without chunked prefill a step holds up to
    max(max_model_len, 2048) prompt tokens, and above 32K tokens of context it switched chunked prefill
    on by itself, with 512 tokens per step (max(max_model_len, 2048) under multi-step scheduling); 0.7
    forced chunked prefill off for MLA models (DeepSeek). A stated ``--max-num-batched-tokens`` or
    ``--enable-chunked-prefill`` wins over these defaults, except that MLA ran unchunked."""
    eng = with_default_attention(eng, spec)  # HF transformers' eager attention for Gemma 2 and gpt-oss
    max_len = eng.max_model_len or derived_model_len(spec, context)
    fixed = eng.max_num_batched_tokens
    if eng.mla_unchunked_prefill and spec.is_mla:
        chunked, budget = False, fixed or max(max_len, 2048)
    elif eng.prefill_budget_from_model_len:
        auto = bool(eng.auto_chunk_above_len) and max_len > eng.auto_chunk_above_len
        chunked = auto if eng.enable_chunked_prefill is None else eng.enable_chunked_prefill
        if chunked:
            budget = fixed or (max(max_len, 2048) if eng.multi_step > 1 else eng.auto_chunk_tokens)
        else:
            budget = fixed or max(max_len, 2048)
    else:
        chunked = eng.chunked_prefill if eng.enable_chunked_prefill is None else eng.enable_chunked_prefill
        budget = fixed or eng.prefill_chunk_tokens
    if (chunked, budget) == (eng.chunked_prefill, eng.prefill_chunk_tokens):
        return eng
    return replace(eng, chunked_prefill=chunked, prefill_chunk_tokens=budget)


def _asked_kv(kv_dtype: str | KvDtype | None, spec: ModelSpec, eng: EngineProfile) -> KvDtype | None:
    """The KV dtype asked for, as the engine holds it (None, "auto": the engine's default): by
    ``kv_dtype`` or by the engine's launch flags (``--kv-cache-dtype fp8``, llama.cpp's ``-ctk q8_0 -ctv
    q8_0``: ``EngineProfile.kv_cache_dtype``), which must then agree, each judged alike
    (:func:`_offered_kv`) and an error naming its own field."""
    asked = _offered_kv(kv_dtype, spec, eng, "kv_dtype")
    if not eng.kv_cache_dtype:
        return asked
    stated = _offered_kv(eng.kv_cache_dtype, spec, eng, "engine")
    given = kv_dtype is not None and not (isinstance(kv_dtype, str) and not kv_dtype.strip())
    if given and (asked and asked.name) != (stated and stated.name):
        said = next((f for f in eng.stated_flags if f.startswith("kv_cache_dtype ")), "")
        flags = said[said.find("(") + 1 : -1] if "(" in said else f"kv_cache_dtype {eng.kv_cache_dtype}"
        cache = f"the KV cache to {stated.name}" if stated else "the engine's default KV cache (auto)"
        wanted = f"{asked.name}" if asked else "the engine's default (auto)"
        typed = kv_dtype if isinstance(kv_dtype, str) else wanted
        raise InvalidInputError(
            "kv_dtype",
            f"{typed!r} disagrees with the engine's launch flags: {flags} sets {cache}, kv_dtype asks for "
            f"{wanted}; give the KV cache dtype once",
            f"kv_dtype {stated.name if stated else 'auto'}, or left out with the engine's {flags}",
            names=("kv_dtype",),
        )
    return stated


def _offered_kv(
    kv_dtype: str | KvDtype | None, spec: ModelSpec, eng: EngineProfile, field: str
) -> KvDtype | None:
    """``kv_dtype`` as the engine holds it (None, "auto": the engine's default). An engine
    with its own cache format for sparse MLA (vLLM: ``fp8_ds_mla``) uses it for "fp8"; llama.cpp's
    8-bit integer cache is q8_0. A dtype the engine does not offer is refused, naming those it does
    (``kv_cache.ENGINE_KV_DTYPES``): it would size the cache with kernels the engine does not have.
    ``field``: the input an error names (``kv_dtype``, or ``engine`` for its launch flags)."""
    if kv_dtype is None or (isinstance(kv_dtype, str) and kv_dtype.strip().lower() == "auto"):
        return None
    kv = resolve_kv_dtype(kv_dtype)
    sparse_mla = kv_shape(spec).topk > 0  # only an MLA shape carries a top-k
    if kv.name == SPARSE_MLA_FP8 and not sparse_mla:
        raise InvalidInputError(
            field,
            f"{SPARSE_MLA_FP8} is vLLM's cache format for sparse MLA (DeepSeek-V3.2); {spec.name} has none",
            accepted=", ".join(n for n in kv_dtype_names() if n != SPARSE_MLA_FP8),
        )
    if kv.name == "fp8" and sparse_mla and eng.sparse_mla_kv:
        return resolve_kv_dtype(eng.sparse_mla_kv)
    if kv.name == "int8" and eng.name == "llama.cpp":
        return resolve_kv_dtype("q8_0")
    offered = engine_kv_dtypes(eng.name, eng.sparse_mla_kv if sparse_mla else "")
    if offered is None or kv.name in offered.names or kv.name not in kv_dtype_names():
        return kv  # an engine or a hand-made dtype the table does not know: taken as given
    if kv.name.startswith(("q", "iq")):
        hint = f" ({kv.name} is a llama.cpp cache type)"
    elif eng.name == "llama.cpp" and kv.name in ("fp8", SPARSE_MLA_FP8):
        hint = " (q8_0 is its 8-bit cache)"
    else:
        hint = ""
    raise InvalidInputError(
        field,
        f"{eng.label} has no {kv.name} KV cache{hint}; it takes {offered.how}",
        accepted=", ".join(offered.names),
    )


def _kv_dtype(
    asked: KvDtype | None, spec: ModelSpec, fmt: WeightFormat, eng: EngineProfile, acc: Accelerator
) -> KvDtype:
    """The KV dtype asked for (checked by ``_asked_kv``), or the engine's default: its own cache format
    for sparse MLA where it has one (vLLM: ``fp8_ds_mla``)."""
    if asked is not None:
        return asked
    if kv_shape(spec).topk > 0 and eng.sparse_mla_kv:
        return resolve_kv_dtype(eng.sparse_mla_kv)
    return _kv_default(fmt, eng, acc)


def _within_context(spec: ModelSpec, context_in: int, context_out: int, field: str = "") -> None:
    """Refuse a context past the model's window (``max_position_embeddings``), naming ``field`` (else
    the larger of context_in / context_out). vLLM refuses a max_model_len above it ("User-specified
    max_model_len ... is greater than the derived max_model_len", unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
    and SGLang a context_length (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1), and past it RoPE
    positions the model never saw give wrong output (llama.cpp only warns: n_ctx > n_ctx_train). A model
    served with RoPE scaling (YaRN) is estimated as a spec whose window is the scaled one: the error names
    where the Python API takes its config.json, and a face names its own (:class:`ContextPastWindow`)."""
    limit = spec.max_position_embeddings
    total = context_in + context_out
    if not limit or total <= limit:
        return
    if not field:
        field = "context_in" if context_in >= context_out else "context_out"
    said = (
        f"{total:,} tokens"
        if field == "context"
        else f"{context_in:,} prompt + {context_out:,} output tokens = {total:,}"
    )
    accepted = f"<= {limit}" if field == "context" else f"context_in + context_out <= {limit}"
    # a checkpoint whose window is its model card's YaRN one (``ModelSpec.native_context``): say both
    what = (
        f"the window its model card documents with YaRN; config.json: {spec.native_context:,}"
        if spec.native_context
        else "max_position_embeddings"
    )
    raise ContextPastWindow(field, said, spec.name, limit, what, accepted)


def _kv_default(fmt: WeightFormat, eng: EngineProfile, acc: Accelerator) -> KvDtype:
    """The KV dtype the engine picks: fp16 for GGUF (llama.cpp) and on parts without bf16, fp8 for an FP8
    checkpoint on TensorRT-LLM, fp32 for fp32 weights, else bf16."""
    if fmt.compute_class == "fp32":
        return resolve_kv_dtype("fp32")
    # a per-tensor FP8 checkpoint (ModelOpt) carries an FP8 KV-cache scale; a publisher's block-scaled one
    # (DeepSeek-V3/R1) has no KV quantisation and the engine's "auto" keeps the cache 16-bit
    if eng.kv_fp8_with_fp8_weights and fmt.name == "fp8":
        return resolve_kv_dtype("fp8")
    if fmt.gguf or not has_bf16(acc):
        return resolve_kv_dtype("fp16")
    return resolve_kv_dtype("bf16")


def estimate(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    gpus: int = 1,
    precision: str | WeightFormat | None = None,
    engine: str | EngineProfile | None = None,
    batch: int | Literal["max"] | None = None,
    concurrency: int | None = None,
    request_rate: float | None = None,
    num_requests: int | None = None,
    lockstep: bool = False,
    varied_output: bool = False,
    context_in: int = 512,
    context_out: int = 512,
    kv_dtype: str | KvDtype | None = None,
    task: str = "inference",
    parallel: str | None = None,
    strict: bool = False,
) -> Estimate:
    """Memory fit, engine support and speed of ``model`` served on ``gpus`` x ``gpu`` at a load.

    Load (give at most one): ``concurrency`` requests in flight (closed loop), ``request_rate``
    requests/s (open loop; ``math.inf`` with ``num_requests`` = all submitted at once), or ``batch``
    (concurrent sequences; "max" = as many as fit, capped by the engine's scheduler). Default: one request.
    ``lockstep``: the clients send equal-length requests together (fixed-length benchmarks): they then
    prefill and finish in waves instead of spreading out. With ``concurrency``, ``num_requests`` is the
    length of the run: its first ``concurrency`` requests arrive together (a benchmark client's start),
    which raises the run's mean TTFT; ``num_requests`` without a load is an error (a run needs one).
    ``varied_output``: output lengths vary around ``context_out`` as a
    chat dataset's do (ShareGPT; taken as exponential): a finite run (``num_requests``) then lasts until
    its longest requests end, the batch thinning out meanwhile, so its requests/s falls below the
    mean-length figure.
    When the load exceeds what fits in KV memory, the batch is capped there and the rest queue.

    ``precision``: None/"native" = the checkpoint's format (a quantized name such as "Qwen3-14B-AWQ",
    the model's native FP8/MXFP4, else bf16). ``engine``: "vllm", "sglang", "tensorrt-llm", "tgi",
    "hf-transformers", "llama.cpp", "gpt-fast"; a version or year ("vLLM 0.6", "llama.cpp 2024") selects
    that era; None (default): llama.cpp for a GGUF precision, else vLLM (``engines.default_engine``).
    ``context_in`` may be 0: a run that generates without a prompt (llama-bench's ``tg`` tests); its
    ``prefill_tokens_per_s`` is then 0 (no prompt, no prefill figure) and ``ttft_ms`` the time to the first
    generated token (scheduling and one decode step). ``context_out`` may be 0: a prompt-only run (a
    prefill measurement, a memory fit at a context); it has no output to time, so ``tpot_ms``,
    ``decode_tokens_per_s`` and ``output_tokens_per_s_total`` are 0 (no output, no figure), ``step_ms`` is
    empty and a warning says so (``ttft_ms`` and ``requests_per_s`` time the prompt).
    ``parallel``: "tensor" (TP), "layer" (pipeline / llama.cpp layer split) or "replicas" (one copy of
    the model per GPU, requests spread over them); None (default): the engine's own
    (:func:`parallel_mode`: a layer split for llama.cpp and HF transformers, else tensor parallel).

    An impossible combination (vLLM FP8 on a V100, TensorRT-LLM on an MI300X, a tensor-parallel degree
    that does not divide the model's attention heads: Llama-3.1-70B's 64 over 3 GPUs) returns
    ``supported=False`` with the reason and what would run; with ``strict=True`` it raises
    ConfigurationRejected instead. Bad input raises InvalidInputError / UnknownNameError naming the
    field: among it a context past the model's window (``context_in + context_out`` above
    ``max_position_embeddings``) and a ``kv_dtype`` the engine does not offer (vLLM: fp8, not q4_0).

    ``Estimate.speed_calibrated`` is true only where the calibration set has inference runs on the GPU's
    generation (:mod:`gpuscout.knowledge.calibration_coverage`: MI325X as CDNA 3 like the measured
    MI300X; not MI355X, Blackwell, Volta, TPU, Gaudi or Trainium); elsewhere a warning says the speed is
    uncalibrated and names the nearest calibrated part.

    A ``gpu`` name that covers several variants ("A100": SXM4 and PCIe, 40 and 80 GB) is answered for
    the one it reads as (``Estimate.gpu``), and the first warning (after a refusal's reason) names it and
    the others (:func:`~gpuscout.knowledge.accelerators.assumed_variant_warning`).
    """
    return _estimate(
        None, model, gpu, gpus=gpus, precision=precision, engine=engine, batch=batch,
        concurrency=concurrency, request_rate=request_rate, num_requests=num_requests, lockstep=lockstep,
        varied_output=varied_output, context_in=context_in, context_out=context_out, kv_dtype=kv_dtype,
        task=task, parallel=parallel, strict=strict,
    )  # fmt: skip


def memory_needed(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    gpus: int = 1,
    precision: str | WeightFormat | None = None,
    engine: str | EngineProfile | None = None,
    batch: int = 1,
    context: int = 4096,
    kv_dtype: str | KvDtype | None = None,
    parallel: str | None = None,
) -> MemoryNeed:
    """Memory per GPU for ``batch`` sequences of ``context`` tokens each (prompt + output), counted
    whole, and whether it fits on ``gpus`` x ``gpu`` under ``engine``'s memory budget.

    The question a VRAM calculator asks. :func:`estimate` answers another one: what runs at a load, so
    it caps the batch at what the KV cache holds and reports the memory of the sequences that run.
    Arguments resolve and fail as :func:`estimate`'s do (``parallel="replicas"``: one copy of the model
    per GPU, the batch spread over them; None: the engine's own split, as :func:`estimate`)."""
    spec, prec_name, model_note = _model_and_precision(model, precision)
    engine = default_engine(prec_name) if engine is None else engine
    acc = resolve_gpu_arg(gpu)
    gpus = int_in("gpus", gpus, 1, MAX_GPUS, error=ConfigurationRejected)
    # "A100" read as one of its variants, an MI250X module as its 2 GPUs: said last
    acc, gpus, variant = as_software_sees(gpu, acc, gpus)
    batch = int_in("batch", batch, 1, MAX_CONCURRENCY, error=ConfigurationRejected)
    context = int_in("context", context, 1, MAX_CONTEXT)
    mode = parallel_mode(parallel, engine)
    require_language_model(spec)
    _within_context(spec, context, 0, "context")
    found = _prepare(
        spec, acc, gpus, prec_name, model_note, engine, mode, context, 0, kv_dtype, False, asked="context",
        sequences=batch,
    )  # fmt: skip
    if isinstance(found, Estimate):  # the engine cannot run this format here
        return MemoryNeed(
            model=spec.name, gpu=acc.name, gpus=gpus, precision=found.precision, engine=found.engine,
            batch=batch, context=context, kv_dtype=found.kv_dtype, fits=False,
            binding_constraint="unsupported", memory=found.memory, max_batch=0, supported=False,
            assumptions=dict(found.assumptions), warnings=[*found.warnings, *([variant] if variant else [])],
        )  # fmt: skip
    p = found
    per_replica = math.ceil(batch / p.replicas)
    plan = plan_memory(
        spec, acc, p.fmt, p.kv, p.eng, batch=per_replica, context=context, gpus=p.per_replica_gpus,
        parallel=p.st_mode,
    )  # fmt: skip
    warnings = list(p.warnings)
    if not plan.fits:
        fit = p.biggest * p.replicas
        warnings.append(
            f"does not fit: {batch} x {context} tokens need {gib(plan.total / 1e9):.1f} GiB per GPU, "
            f"{gib(plan.usable / 1e9):.1f} GiB usable ({plan.binding_constraint()}); "
            + (
                f"{fit} {plural(fit, 'sequence of this length fits', 'sequences of this length fit')}"
                if fit
                else "not one sequence fits"
            )
        )
    if variant:  # after the rest: a face shows an unsupported answer's first warning as its reason
        warnings.append(variant)
    return MemoryNeed(
        model=spec.name,
        gpu=acc.name,
        gpus=gpus,
        precision=p.fmt.name,
        engine=p.eng.name,
        batch=batch,
        context=context,
        kv_dtype=p.kv.name,
        fits=plan.fits,
        binding_constraint=plan.binding_constraint(),
        memory=plan.breakdown(),
        max_batch=p.biggest * p.replicas,
        assumptions=_memory_assumptions(p.st, plan, p.verdict, p.replicas),
        warnings=warnings,
    )


class EstimateSession:
    """:func:`estimate` for many loads of the same few setups (a ranking asks one GPU and split for a
    handful of batch sizes): what does not depend on the load (engine, format, support verdict, the
    rates, the memory plan at one sequence, prefill speed) is worked out once per setup and kept for
    the session's life. Each call returns what :func:`estimate` returns for the same arguments (same
    checks, same errors, equal results); only the session's own calls share the work."""

    def __init__(self) -> None:
        self._prepared: dict[tuple[object, ...], _Prepared] = {}

    def __call__(
        self,
        model: str | ModelSpec,
        gpu: str | Accelerator,
        *,
        gpus: int = 1,
        precision: str | WeightFormat | None = None,
        engine: str | EngineProfile | None = None,
        batch: int | Literal["max"] | None = None,
        concurrency: int | None = None,
        request_rate: float | None = None,
        num_requests: int | None = None,
        lockstep: bool = False,
        varied_output: bool = False,
        context_in: int = 512,
        context_out: int = 512,
        kv_dtype: str | KvDtype | None = None,
        task: str = "inference",
        parallel: str | None = None,
        strict: bool = False,
    ) -> Estimate:
        return _estimate(
            self._prepared, model, gpu, gpus=gpus, precision=precision, engine=engine, batch=batch,
            concurrency=concurrency, request_rate=request_rate, num_requests=num_requests,
            lockstep=lockstep, varied_output=varied_output, context_in=context_in,
            context_out=context_out, kv_dtype=kv_dtype,
            task=task, parallel=parallel, strict=strict,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Prepared:
    """What an estimate works out before the load: the same for every load of one setup."""

    spec: ModelSpec
    acc: Accelerator
    gpus: int
    fmt: WeightFormat
    kv: KvDtype
    eng: EngineProfile
    mode: str
    context_in: int
    context_out: int
    verdict: SupportVerdict
    st: Setup
    warnings: tuple[str, ...]
    plan1: MemoryPlan
    biggest: int
    cap: int
    cap_reason: str
    replicas: int
    per_replica_gpus: int
    st_mode: str
    context: int
    prefill_tps: float
    asked_kv: KvDtype | None = None  # the KV dtype asked for (None: the engine's default, per format)
    # the (cap, reason) of a steady flow of staggered requests, where the engine's KV cache grows on
    # demand (``EngineProfile.kv_grows_on_demand``): prompt + output / 2 tokens a request; None: ``cap``
    steady: tuple[int, str] | None = None


def _estimate(
    memo: dict[tuple[object, ...], _Prepared] | None,
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    gpus: int,
    precision: str | WeightFormat | None,
    engine: str | EngineProfile | None,
    batch: int | Literal["max"] | None,
    concurrency: int | None,
    request_rate: float | None,
    num_requests: int | None,
    lockstep: bool,
    varied_output: bool,
    context_in: int,
    context_out: int,
    kv_dtype: str | KvDtype | None,
    task: str,
    parallel: str | None,
    strict: bool,
) -> Estimate:
    """:func:`estimate`, with the load-independent part kept in ``memo`` (None: worked out anew)."""
    if task not in ("inference", "infer", "serving"):
        raise InvalidInputError(
            "task",
            f"{quoted_value(task)} is not an inference task; use gpuscout.estimate_training for training",
            "inference",
        )
    spec, prec_name, model_note = _model_and_precision(model, precision)
    engine = default_engine(prec_name) if engine is None else engine
    acc = resolve_gpu_arg(gpu)
    gpus = int_in("gpus", gpus, 1, MAX_GPUS, error=ConfigurationRejected)
    # "A100" read as one of its variants, an MI250X module as its 2 GPUs: said first
    acc, gpus, variant = as_software_sees(gpu, acc, gpus)
    context_in = int_in("context_in", context_in, 0, MAX_CONTEXT)
    context_out = int_in("context_out", context_out, 0, MAX_CONTEXT)
    if context_in + context_out < 1:
        raise InvalidInputError("context_out", "context_in + context_out must be at least 1 token", ">= 1")
    mode = parallel_mode(parallel, engine)
    load_args = _load_args(
        batch, concurrency, request_rate, num_requests, bool(lockstep), bool(varied_output)
    )
    require_language_model(spec)
    _within_context(spec, context_in, context_out)

    key = (spec, acc, gpus, prec_name, model_note, engine, mode, context_in, context_out, kv_dtype)
    prepared = None
    if memo is not None:
        try:
            prepared = memo.get(key)
        except TypeError:  # an argument that cannot key a dict (an engine profile's mappings)
            memo = None
    if prepared is None:
        found = _prepare(
            spec, acc, gpus, prec_name, model_note, engine, mode, context_in, context_out, kv_dtype, strict
        )
        if isinstance(found, Estimate):  # the engine cannot run it here
            return _saying(found, variant)
        prepared = found
        if memo is not None:
            memo[key] = prepared
    return _saying(_at_load(prepared, load_args), variant)


def _saying(est: Estimate, warning: str) -> Estimate:
    """``est`` with ``warning`` first among its warnings, after the reason that leads a refusal's (none
    added for ""). Said per call, not kept with the prepared setup: "A100" and "A100-SXM4-80GB" share
    it, only the first needs the words."""
    if not warning:
        return est
    at = 1 if not est.supported and est.warnings[:1] == [est.unsupported_reason] else 0
    return replace(est, warnings=[*est.warnings[:at], warning, *est.warnings[at:]])


def _prepare(
    spec: ModelSpec,
    acc: Accelerator,
    gpus: int,
    prec_name: str,
    model_note: str,
    engine: str | EngineProfile,
    mode: str,
    context_in: int,
    context_out: int,
    kv_dtype: str | KvDtype | None,
    strict: bool,
    asked: str = "context_in + context_out",
    sequences: int = 1,
) -> _Prepared | Estimate:
    """The load-independent part of an estimate, or the answer when the engine cannot run it here
    (``asked``: how an error names the context, "context" for :func:`memory_needed`; ``sequences``: how
    many sequences that answer's memory holds, :func:`memory_needed`'s batch)."""
    unsupported = functools.partial(_unsupported, sequences=sequences)
    warnings: list[str] = []
    if model_note:
        warnings.append(model_note)
    # the engine as it starts on this GPU (vLLM V1 sizes its step budget and sequence cap by the
    # device's reported memory), then as it runs this model
    eng = _engine_on(spec, acc, engine, gpus, mode, context_in + context_out)
    # a stated --max-model-len shorter than the context: an input error; past the window: a warning
    past_window = within_max_model_len(spec, eng, context_in, context_out, asked)
    if past_window:
        warnings.append(past_window)
    if eng.version_note:  # a release newer than the profile's, or a version that is none
        warnings.append(eng.version_note)
    if eng.eager_attention_note:
        warnings.append(eng.eager_attention_note)
    if eng.ignored_flags:
        warnings.append(
            f"engine flags gpuscout does not model, ignored: {' '.join(eng.ignored_flags)} (read: "
            f"{read_flag_names()})"
        )
    asked_kv = _asked_kv(kv_dtype, spec, eng)  # a bad kv_dtype is an input error, whatever runs
    fmt = run_format(resolve_precision(prec_name), eng, warnings, spec)
    verdict = verdict_for(eng, fmt, acc)
    too_old = release_refusal(eng, spec.family)  # a named release older than the model's architecture
    if too_old is not None:
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
            reason=too_old.reason, sources=too_old.sources, field="engine",
            instead=instead_of_release(too_old, eng, fmt, acc, dense_model=not spec.is_moe),
        )  # fmt: skip
    # Gated DeltaNet layers: only the engines (and the GPUs) read running them
    no_linear = linear_attention_refusal(eng.name, eng.label, spec, acc.vendor)
    if no_linear:
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
            reason=no_linear, sources=tuple(LINEAR_ATTENTION_ENGINES.values()),
            field="engine" if acc.vendor in LINEAR_ATTENTION_VENDORS else "gpu",
            instead=linear_attention_instead(),
        )  # fmt: skip
    if spec.linear_layers and eng.name == "hf-transformers":
        warnings.append(HF_GATED_DELTA_RULE_NOTE)
    if not verdict.supported:  # refused for being too old a release: the engine field is the lever
        field = "engine" if refused_for_age(eng, fmt, acc) else "gpu"
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict, field=field
        )
    no_fp16 = without_float16(eng, spec.family, fmt, verdict, acc)  # vLLM and Gemma: float32, not float16
    if no_fp16 is not None and no_fp16.refused:
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
            reason=no_fp16.refusal, sources=(no_fp16.source,), field="precision", instead=no_fp16.instead,
        )  # fmt: skip
    if no_fp16 is not None:
        warnings.append(no_fp16.note)
        fmt = resolve_precision("fp32")
        verdict = verdict_for(eng, fmt, acc)
    no_fa2 = flash_attention_2_refusal(eng, acc)
    if no_fa2:
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
            reason=no_fa2, sources=(FLASH_ATTENTION_2_SOURCE,), field="engine",
            instead=f"{eng.name} without flash-attention-2 (attn_implementation='sdpa', its default)",
        )  # fmt: skip
    if verdict.tag != "sourced":
        warnings.append(f"support rule {verdict.tag}: {verdict.message()}")
    fmt, eff_class, rate_fmt = _as_run(fmt, verdict, acc, warnings, eng)
    no_pipeline = TP_HEAD_RULES.get(eng.name)
    if mode == "layer" and gpus > 1 and no_pipeline is not None and not no_pipeline.pipeline:
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
            reason=f"{eng.label} has no pipeline (layer) split: it shards every layer over its GPUs",
            instead=f"{eng.name} with tensor parallelism over {gpus} GPUs (--parallel tensor), or an engine "
            "with pipeline parallelism (vllm, sglang, tensorrt-llm, llama.cpp)",
            sources=(no_pipeline.no_pipeline_source or no_pipeline.source,), field="parallel",
        )  # fmt: skip
    if mode == "layer" and gpus > 1 and eng.pipeline_microbatches and not eng.has_pipeline():
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
            reason=f"{eng.name} {eng.version} has no pipeline (layer) split: pipeline parallelism came in "
            f"{eng.name} {eng.pipeline_since}",
            instead=f"{eng.name} {eng.version} with tensor parallelism over {gpus} GPUs (--parallel tensor), "
            f"or {eng.name} {eng.pipeline_since} or later",
            sources=(eng.pipeline_source,), field="parallel",
        )  # fmt: skip
    if (
        mode == "layer"
        and gpus > 1
        and (eng.has_pipeline() or (eng.continuous_batching and eng.name != "llama.cpp"))
    ):
        warnings.append(  # (a pipeline: :func:`pipelines`)
            f"{eng.label} splits layers over GPUs as pipeline parallelism: "
            + (
                f"up to {gpus} batches in flight, one per GPU (a request's own prompt is not pipelined; "
                f"{eng.pipeline_flag} {gpus}); {PIPELINE_UNCALIBRATED}"
                if pipelines(eng)
                else "one batch at a time, visiting the GPUs in turn"
            )
        )
    kv = _kv_dtype(asked_kv, spec, fmt, eng, acc)
    replicas = gpus if mode == "replicas" else 1
    per_replica_gpus = 1 if mode == "replicas" else gpus
    st_mode = "tensor" if mode == "replicas" else mode
    context = context_in + context_out
    heads = tp_head_conflict(spec, eng.name, gpus) if mode == "tensor" and not eng.dp_attention else ""
    if heads:
        rule = TP_HEAD_RULES[eng.name]
        return unsupported(
            spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
            reason=f"{eng.name}: {heads}; {eng.label} refuses to start",
            instead=_layouts_instead(spec, acc, fmt, kv, eng, gpus, context),
            sources=(rule.source,), field="gpus", kv=kv,
        )  # fmt: skip
    st = _timed_setup(spec, acc, fmt, kv, eng, per_replica_gpus, st_mode, eff_class, rate_fmt)
    if not st.rate.known:
        reason = st.rate.warning
        return unsupported(spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict, reason)
    if st.rate.warning:
        warnings.append(st.rate.warning)
    if st.rate.derived and not st.rate.warning:
        warnings.append(derived_rate_warning(acc, st.rate))
    tp = st.tp
    shape = kv_shape(spec)
    if tp > 1 and not shape.mla and shape.kv_heads and tp > shape.kv_heads:
        warnings.append(f"TP={tp} > {shape.kv_heads} KV heads: KV heads are replicated, not sharded")
    if tp > 1 and spec.num_attention_heads % tp and not eng.dp_attention:
        # an engine without a stated rule (hf-transformers' tp_plan, llama.cpp's row split)
        warnings.append(
            f"{spec.num_attention_heads} attention heads do not divide by TP={tp}: the ranks hold unequal "
            "shares (timed as an even split)"
        )
    link = collective_link(acc, tp) if tp > 1 else None
    if link is not None and link.assumed:
        warnings.append(
            f"{acc.name}: interconnect not in the table; tensor parallelism costed over {link.label}"
        )
    if link is not None and link.assumed_network:
        warnings.append(
            f"tensor parallel x{tp} spans {link.label}, {SCALE_OUT_LATENCY_US:.0f} us added to each "
            "all-reduce for the step between nodes, neither calibrated; the engines' multi-node layout is "
            "tensor parallel within a node and pipeline parallel across nodes (vLLM's distributed serving "
            "guide), which is not modelled"
        )
    if link is not None and (topology := pcie_topology_warning(link, tp)):
        warnings.append(topology)
    if link is not None and link.kind == "nvlink" and mesh_peers(acc) is not None and tp < NODE_GPUS:
        warnings.append(
            f"all-reduce latency over Infinity Fabric at TP={tp} is an assumption "
            f"({allreduce_latency_us(link, 2):.0f} us at TP=2, from RCCL small-message figures), not "
            f"calibrated: every multi-GPU calibration row on Infinity Fabric runs TP={NODE_GPUS}"
        )

    prompt = _static_prompt(eng, context_in)
    plan1 = plan_memory(
        spec, acc, fmt, kv, eng, batch=1, context=context, gpus=per_replica_gpus, parallel=st_mode,
        prompt=prompt,
    )  # fmt: skip
    biggest = max_batch(plan1)
    short = _kv_short_of_max_model_len(
        spec, acc, fmt, kv, eng, per_replica_gpus, st_mode, plan1, context_in + context_out
    )
    if short is not None:
        if eng.states("max_model_len"):  # started so, it does not start: no speed to give
            return unsupported(
                spec, acc, gpus, fmt, eng, mode, context_in, context_out, verdict, strict,
                reason=short.refusal(), instead=short.advice(), sources=(short.source,), field="engine",
                kv=kv,
            )  # fmt: skip
        warnings.append(short.refusal() + ": " + short.advice())
    limit = min(eng.max_num_seqs, MAX_BATCH)
    cap = max(1, min(biggest, limit))
    cap_reason = "kv_cache" if biggest <= limit else "scheduler"
    steady: tuple[int, str] | None = None
    if eng.kv_grows_on_demand and cap_reason == "kv_cache" and context_out > 1 and biggest > 0:
        # staggered requests hold less than their whole length (steady_context, kv_grows_on_demand)
        def fits(n: int) -> bool:
            return plan_memory(
                spec, acc, fmt, kv, eng, batch=n, context=steady_context(context_in, context_out, n),
                gpus=per_replica_gpus, parallel=st_mode, prompt=prompt,
            ).fits  # fmt: skip

        # the most that fit: at least the full-length figure, at most what fits at the large-batch
        # limit (plus the last block's rounding); the fit is monotone in the batch: a binary search
        top = max_batch(
            plan_memory(
                spec, acc, fmt, kv, eng, batch=1, context=steady_context(context_in, context_out),
                gpus=per_replica_gpus, parallel=st_mode, prompt=prompt,
            )
        )  # fmt: skip
        lo, hi = biggest, min(top, limit) + 1  # lo fits (whole lengths do); past hi is not asked
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        steady = (lo, "kv_cache" if lo < limit else "scheduler")  # biggest <= lo <= limit
    pre_1 = prefill_seconds(st, max(context_in, 1), 1)
    prefill_tps = max(context_in, 1) / pre_1 if pre_1 > 0 else 0.0
    return _Prepared(
        spec, acc, gpus, fmt, kv, eng, mode, context_in, context_out, verdict, st, tuple(warnings), plan1,
        biggest, cap, cap_reason, replicas, per_replica_gpus, st_mode, context, prefill_tps, asked_kv,
        steady,
    )  # fmt: skip


def _most_running(p: _Prepared) -> tuple[int, str]:
    """(the most sequences one replica runs at once in a steady flow of staggered requests, what sets
    it): the KV cache at what such requests hold (``steady``) or the engine's cap, and the token budget
    per step of an engine that counts decodes in it (:func:`token_budget_cap`)."""
    most, limit = (p.cap, p.cap_reason) if p.steady is None else p.steady
    budget = token_budget_cap(p.eng, p.context_in, max(1, p.context_out), steady=True)
    if budget is not None and pipelined(p.st):
        budget *= p.st.gpus  # a budget per batch in flight (:func:`serving.serve_pipelined`)
    if budget is not None and budget < most:
        return max(1, budget), "prefill"
    return most, limit


def _rate_words(rate: float) -> str:
    """A request rate to read: '2.15', '0.0043' (two significant figures below 0.1: not '0.00')."""
    return f"{rate:,.2f}" if rate >= 0.1 else f"{rate:.2g}"


def _static_prompt(eng: EngineProfile, context_in: int) -> int | None:
    """The prompt a static batch (no continuous batching) prefills in one pass with the others', which
    sizes its activations (:func:`memory.prefill_pass`); None where the engine plans for its own step."""
    return context_in if not eng.continuous_batching and context_in > 0 else None


#: What an estimate with ``context_out=0`` says of the figures it leaves at 0.
NO_OUTPUT_NOTE = (
    "no output tokens (context_out 0): a prompt-only run, with no time per output token and no per-sequence "
    "or output tokens/s (given as 0); the time to first token and requests/s time the prompt"
)


def _at_load(p: _Prepared, load_args: _LoadArgs | None) -> Estimate:
    """The estimate of a prepared setup at the load asked for (None: saturated)."""
    spec, acc, gpus, fmt, kv, eng, mode = p.spec, p.acc, p.gpus, p.fmt, p.kv, p.eng, p.mode
    context_in, context_out, verdict, st, plan1 = p.context_in, p.context_out, p.verdict, p.st, p.plan1
    biggest, cap, cap_reason, replicas = p.biggest, p.cap, p.cap_reason, p.replicas
    per_replica_gpus, st_mode, context = p.per_replica_gpus, p.st_mode, p.context
    warnings = list(p.warnings)
    most, most_limit = _most_running(p)
    if load_args is None:  # "max": saturate the replica at what fits (a steady flow of requests)
        load = Load("concurrency", float(most * replicas))
        load_label = f"max ({most} {plural(most, 'sequence')} per replica)"
    else:
        load, load_label = load_args.load, load_args.label
    if not plan1.fits:
        return _does_not_fit(p, load, None if load_args is None else load_args.rate)
    point = serve_replicas(st, load, replicas, context_in, context_out, cap, cap_reason, p.steady)
    prompt = _static_prompt(eng, context_in)
    # what the running batch holds: staggered requests whose cache grows on demand, half their output
    grows = holds_growing_cache(eng, load, context_out)
    held = steady_context(context_in, context_out, point.running) if grows else context
    plan = plan_memory(
        spec, acc, fmt, kv, eng, batch=point.running, context=held, gpus=per_replica_gpus,
        parallel=st_mode, prompt=prompt,
    )  # fmt: skip
    if point.saturated and point.binding != "queueing":
        what = {
            "kv_cache": "KV-cache memory",
            "scheduler": f"{eng.label}'s scheduler cap (max_num_seqs {eng.max_num_seqs})",
            "prefill": (
                f"the token budget of {eng.prefill_chunk_tokens} per step, decodes and prompt chunks"
                if eng.decodes_in_token_budget
                else f"the prompts its {eng.step_token_budget}-token budget per step feeds"
            ),
        }[point.cap_reason]
        n = point.running
        pace = (
            ""
            if point.binding == point.cap_reason
            else f"; room for more would add under {CAP_MATTERS:.0%} requests/s: "
            f"{binding_words(point.binding, mode)} sets the pace"
        )
        warnings.append(
            f"{load_label}: at most {n} {plural(n, 'sequence')} {plural(n, 'runs', 'run')} at once per "
            f"replica ({what}); the rest queue for {ms_text(point.queue_s * 1000)} on average{pace}"
        )
    elif point.binding == "queueing":
        if math.isfinite(point.queue_s):
            sent = load.num_requests
            warnings.append(
                f"{load_label} exceeds the capacity of {_rate_words(point.requests_per_s * replicas)} "
                "requests/s: requests "
                f"queue for {ms_text(point.queue_s * 1000)} on average over {sent} {plural(sent, 'request')}"
            )
        else:
            warnings.append(
                f"{load_label} exceeds the capacity of {_rate_words(point.requests_per_s * replicas)} "
                "requests/s: the queue "
                "grows without bound (give num_requests for a finite run's mean TTFT)"
            )
    host = host_bound_note(eng, point.running, point.step)
    if host:
        warnings.append(host)
    # calibrated where the calibration set has inference runs on this generation (MI325X as CDNA 3 like the
    # measured MI300X; not MI355X, Blackwell, TPU...): see gpuscout.knowledge.calibration_coverage
    calibrated = speed_calibrated(acc, "inference")
    if not calibrated:
        warnings.append(uncalibrated_warning(acc, "inference"))
    # a pipeline's speed rests on no measurement whatever the GPU (its warning says so: PIPELINE_UNCALIBRATED)
    calibrated = calibrated and not (st_mode == "layer" and per_replica_gpus > 1 and pipelines(eng))
    # kernels this vendor runs that no row covers (vLLM's Triton AWQ fallback on ROCm): fitted elsewhere
    foreign = eng.foreign_kernels(acc.vendor, _kernel_class(st))
    if foreign:
        timed = st.timed_as
        how = (
            f"timed as the {timed.label} checkpoint, its byte saving not credited: no faster than "
            f"{timed.label}, as gpuscout has no efficiency of their own and does not lend them Marlin's; "
            f"memory sized at {fmt.bits_per_weight:g} bits per weight"
            if timed is not None
            else "timed at the efficiency fitted on NVIDIA GPUs, no constant of their own"
        )
        warnings.append(
            f"{eng.label}'s speed for {fmt.label} on {acc.name} is not calibrated: {foreign}; no "
            f"calibration row runs them on {acc.vendor} GPUs ({how})"
        )
        calibrated = False
    # the efficiency classes and constants the estimate leans on that no row of this engine (and era)
    # fits: the same list as the "uncalibrated" assumption, so the label never says calibrated beside it
    parts = uncalibrated_parts(st)
    own = uncalibrated_words([part for part in parts if not part.foreign])  # foreign: warned above
    if own:
        warnings.append(
            f"speed not calibrated for {eng.label}'s {', '.join(own)}: no calibration row covers them "
            "(priors, or the engine's nearest fitted figure; see the uncalibrated assumption)"
        )
    calibrated = calibrated and not parts
    prefill_tps = p.prefill_tps if context_in > 0 else 0.0  # no prompt, no prefill speed to give
    ttft_ms = point.ttft_s * 1000.0
    # no output, no output speed to give (the run is timed as one token's: its prompt, then done)
    no_output = context_out == 0
    tpot_ms = 0.0 if no_output else point.tpot_s * 1000.0
    if no_output:
        warnings.append(NO_OUTPUT_NOTE)
    return Estimate(
        model=spec.name,
        gpu=acc.name,
        gpus=gpus,
        precision=fmt.name,
        engine=eng.name,
        task="inference",
        parallel=mode,
        batch=point.running,
        context_in=context_in,
        context_out=context_out,
        kv_dtype=kv.name,
        fits=True,
        binding_constraint=plan1.binding_constraint(),
        memory=plan.breakdown(),
        max_batch=biggest,
        max_running=most,
        max_running_limit=most_limit,
        kv_grows=eng.kv_grows_on_demand,
        decode_tokens_per_s=1000.0 / tpot_ms if tpot_ms > 0 else 0.0,
        output_tokens_per_s_total=0.0 if no_output else point.output_tokens_per_s * replicas,
        prefill_tokens_per_s=prefill_tps,
        ttft_ms=ttft_ms,
        bound=point.step.bound,
        assumptions=text(lambda: _assumptions(st, plan, verdict, point, replicas, load_label)),
        warnings=warnings,
        supported=True,
        support=verdict.mode,
        binding_limit=point.binding,
        tpot_ms=tpot_ms,
        requests_per_s=point.requests_per_s * replicas,
        concurrency=point.in_flight * replicas,
        queue_ms=point.queue_s * 1000.0,
        request_rate=None if load_args is None else load_args.rate,
        replicas=replicas,
        step_ms={} if no_output else _step_ms(point.step),
        cuda_graphs=eng.cuda_graphs and eng.graphs_cover(point.running),
        speed_calibrated=calibrated,
        uncalibrated=uncalibrated_words(parts),
    )


def _step_ms(step: StepTime) -> dict[str, float]:
    """A decode step's time and its (overlapping) parts, ms: see :attr:`Estimate.step_ms`."""
    return {
        "total": step.total * 1e3,
        "memory": step.memory * 1e3,
        "compute": step.compute * 1e3,
        "interconnect": step.comm * 1e3,
        "fixed": step.fixed * 1e3,
    }


def _does_not_fit(p: _Prepared, load: Load, rate: float | None) -> Estimate:
    """The answer for a setup that cannot hold one sequence of the context asked: the memory it needs,
    what would hold it instead, and no speed (an engine that cannot load a model serves nothing)."""
    plan1 = p.plan1
    warnings = [
        *p.warnings,
        f"does not fit: needs {gib(plan1.total / 1e9):.1f} GiB per GPU, {gib(plan1.usable / 1e9):.1f} GiB "
        f"usable ({plan1.binding_constraint()}); no speed is given",
    ]
    hint = _memory_share_hint(p.eng, plan1)
    if hint:
        warnings.append(hint)

    options = items(lambda: _fits_instead(p))  # in the advisor: worked out once, when first read

    def assumptions() -> dict[str, str]:
        out = _memory_assumptions(p.st, plan1, p.verdict, p.replicas)
        out["would_fit"] = (
            "; ".join(o.text for o in options)
            or "nothing on up to 8 of these GPUs in a format this engine runs"
        )
        return out

    return _without_speed(
        model=p.spec.name,
        gpu=p.acc.name,
        gpus=p.gpus,
        precision=p.fmt.name,
        engine=p.eng.name,
        parallel=p.mode,
        context_in=p.context_in,
        context_out=p.context_out,
        kv_dtype=p.kv.name,
        binding_constraint=plan1.binding_constraint(),
        memory=plan1.breakdown(),
        bound="memory",
        assumptions=text(assumptions),
        warnings=warnings,
        supported=True,
        support=p.verdict.mode,
        binding_limit="memory",
        concurrency=load.value if load.kind == "concurrency" else 0.0,
        request_rate=rate,
        replicas=p.replicas,
        speed_calibrated=speed_calibrated(p.acc, "inference"),  # of the part (no speed is given here)
        fit_options=options,
    )


#: Engines that refuse to start when their KV cache cannot hold one request of ``max_model_len`` tokens
#: (``--max-model-len``, by default the model's context window), and where the check is read. vLLM V1
#: (``check_enough_kv_cache_memory``: "To serve at least one request with the models's max seq len
#: (...), (... GiB KV cache is needed, which is larger than the available KV cache memory (... GiB).
#: ... Try increasing `gpu_memory_utilization` or decreasing `max_model_len`"), as V0 did before it
#: (``raise_if_cache_size_invalid``). SGLang does not refuse: it caps each request at the tokens its
#: pool holds (``max_req_input_len``); TGI is not listed, gpuscout not reading its ``--max-total-tokens``.
KV_MUST_HOLD_MAX_MODEL_LEN: dict[str, str] = {
    "vllm": "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/v1/core/kv_cache_utils.py",
}


@dataclass(frozen=True, slots=True)
class _KvShort:
    """An engine's KV cache that cannot hold one request of its ``max_model_len`` (per GPU)."""

    engine: EngineProfile
    max_model_len: int
    needed: float  # bytes of KV cache one request of max_model_len takes
    free: float  # bytes left for the KV cache after weights, activations and overhead
    longest: int  # the longest max_model_len whose one request the cache holds
    source: str

    def refusal(self) -> str:
        eng = self.engine
        which = "its" if eng.states("max_model_len") else "its default"
        return (
            f"{eng.label} refuses to start at {which} max_model_len {self.max_model_len:,}: one request of "
            f"that length needs {self.needed / GIB:.1f} GiB of KV cache per GPU, {self.free / GIB:.1f} GiB "
            "is left for it here"
        )

    def advice(self) -> str:
        return (
            f"start it with {max_model_len_flag(self.engine.name)} {self.longest} or less (the longest "
            "one request the KV cache holds here)"
        )


def _kv_short_of_max_model_len(
    spec: ModelSpec,
    acc: Accelerator,
    fmt: WeightFormat,
    kv: KvDtype,
    eng: EngineProfile,
    gpus: int,
    split: str,
    plan1: MemoryPlan,
    context: int,
) -> _KvShort | None:
    """Where ``eng`` checks at start-up that its KV cache holds one request of ``max_model_len``
    (:data:`KV_MUST_HOLD_MAX_MODEL_LEN`) and this one (``plan1``: one sequence of the context asked, on
    ``gpus`` GPUs split as ``split``) does not: the figures and the longest max_model_len it holds. None
    where the engine does not check, the context asked does not fit either (answered as not fitting),
    or the cache holds it."""
    source = KV_MUST_HOLD_MAX_MODEL_LEN.get(eng.name)
    max_len = eng.max_model_len or derived_model_len(spec, context)
    if source is None or not max_len or not plan1.fits:
        return None

    def kv_of(tokens: int) -> float:
        plan = plan_memory(spec, acc, fmt, kv, eng, batch=1, context=tokens, gpus=gpus, parallel=split)
        return plan.kv_per_sequence

    free = plan1.usable - plan1.weights - plan1.activations - plan1.overhead
    needed = kv_of(max_len)
    if needed <= free:
        return None
    lo, hi = 1, max_len  # kv_of(lo) fits (the context asked does: plan1 fits); kv_of(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if kv_of(mid) <= free else (lo, mid)
    return _KvShort(eng, max_len, needed, free, lo, source)


def _memory_share_hint(eng: EngineProfile, plan: MemoryPlan) -> str:
    """Where an engine's start-up memory share (SGLang's mem_fraction_static, sized by the GPU) is what
    keeps one sequence out, the share that would hold it while leaving the activations room beside the
    pool; "" where none would, or the share was stated at launch."""
    if not eng.pool_excludes_activations or eng.states("memory_utilization") or not plan.capacity:
        return ""
    cap = plan.capacity
    held = plan.weights + eng.cuda_context_gb * 1e9 + plan.kv_cache + plan.per_sequence_extra
    beside = plan.activations + eng.engine_reserve_gb * 1e9
    needed = math.ceil(held / cap * 20.0) / 20.0  # in steps of 0.05
    if needed > 1.0 - beside / cap or needed <= eng.memory_utilization:
        return ""
    return (
        f"{eng.label} starts with --mem-fraction-static {eng.memory_utilization:.2f} on this GPU (weights "
        f"and KV cache; the rest is kept for activations and {eng.runtime.graphs}): --mem-fraction-static "
        f"{needed:.2f} would hold one sequence ({gib(beside / 1e9):.1f} GiB left beside the pool)"
    )


def _without_speed(**fields: Any) -> Estimate:
    """An inference estimate that gives no speed (the engine cannot run the setup, or it cannot hold one
    sequence): no batch, every speed 0; ``fields`` are the rest."""
    return Estimate(
        task="inference",
        batch=0,
        fits=False,
        max_batch=0,
        decode_tokens_per_s=0.0,
        output_tokens_per_s_total=0.0,
        prefill_tokens_per_s=0.0,
        ttft_ms=0.0,
        **fields,
    )


# The memory budget a would-fit setup may start the engine with where the default's falls just short
# (vLLM's 0.9, SGLang's 0.88 or its per-GPU rule): the share renters raise it to in order to fit a model.
# An assumption, not a limit read in the engines: above it, what the engine does not account for (the
# allocator's fragmentation, NCCL's buffers, the sampler's peaks) leaves too little room to be safe.
RAISED_MEMORY_SHARE = 0.95

# Narrower formats to suggest where a model does not fit, widest first (llama.cpp: its GGUF types)
_NARROWER = ("fp8", "int8", "int4")
_NARROWER_GGUF = ("gguf-q8_0", "gguf-q4_k_m")


def _layouts_instead(
    spec: ModelSpec,
    acc: Accelerator,
    fmt: WeightFormat,
    kv: KvDtype,
    eng: EngineProfile,
    gpus: int,
    context: int,
) -> str:
    """Where tensor parallelism over ``gpus`` is refused (heads that do not divide): the layouts this
    engine starts that hold one sequence of ``context``. One replica per GPU first where the model fits
    one GPU (how a model that small is served); then the nearest tensor-parallel degrees below and above
    that it takes within one node (:func:`node_gpus`: engines serve tensor parallel within a node), and a
    pipeline (layer) split over the same GPUs where it offers one. Degrees past a node are proposed only
    where none of these holds a sequence."""

    def fits(n: int, split: str) -> float | None:
        plan = plan_memory(spec, acc, fmt, kv, eng, batch=1, context=context, gpus=n, parallel=split)
        return gib(plan.total / 1e9) if plan.fits else None  # GiB, as the alternatives say it

    def tensor(degrees: list[int]) -> list[str]:
        return [
            f"tensor parallel over {n} x {acc.name} ({per_gpu:.1f} GiB per GPU)"
            for n in degrees
            if (per_gpu := fits(n, "tensor")) is not None
        ]

    def nearest(degrees: list[int]) -> list[int]:
        return [t for t in degrees if t < gpus][-1:] + [t for t in degrees if t > gpus][:1]

    allowed = tp_degrees_allowed(spec, eng.name, MAX_GPUS)
    out = []
    if (per_gpu := fits(1, "tensor")) is not None:
        out.append(f"{gpus} replicas of one {acc.name} (--parallel replicas, {per_gpu:.1f} GiB per GPU)")
    out += tensor(nearest([t for t in allowed if t <= node_gpus(acc)]))
    # a pipeline split gives each GPU whole layers: no more GPUs than layers (refuse_wide_layer_split)
    wide = gpus > spec.num_hidden_layers
    if TP_HEAD_RULES[eng.name].pipeline and not wide and (per_gpu := fits(gpus, "layer")) is not None:
        out.append(
            f"pipeline parallel over {gpus} x {acc.name} (--parallel layer, {per_gpu:.1f} GiB per GPU)"
        )
    if not out:  # nothing within a node, no pipeline: the degrees past it (over the network between nodes)
        out += tensor(nearest(allowed))
    if not out:
        degrees = ", ".join(map(str, allowed[:6])) or "none"
        out.append(f"none holds one sequence here; tensor parallel degrees {eng.label} takes: {degrees}")
    return "; ".join(out)


def _fits_instead(p: _Prepared) -> tuple[FitOption, ...]:
    """What would hold one sequence of this context where ``p`` does not: first, the same GPUs and format
    with the engine started with ``RAISED_MEMORY_SHARE`` of memory (its flag in ``FitOption.flags``), where
    the engine has such a flag and that holds it; then the fewest GPUs of this kind
    (2, 4 or 8, split as asked; tensor parallel for replicas) that the engine starts with, in this
    format, and the widest narrower format this engine runs on this GPU at this count, sized as the engine
    holds it (:func:`_as_run`) with the KV cache asked for (``--kv-dtype``; none asked, the one the engine
    picks for that format): a format it dequantizes to 16 bits, or runs as fp16, saves nothing and is
    never suggested. Empty when none does. :attr:`Estimate.fit_options`, and in words (each option's
    ``text``, joined by "; ") its ``assumptions["would_fit"]``."""
    out: list[FitOption] = []
    split = "layer" if p.mode == "layer" else "tensor"
    prompt = _static_prompt(p.eng, p.context_in)  # as the setup was sized (:func:`_prepare`)
    flag = memory_share_flag(p.eng.name)
    if flag and p.eng.memory_utilization < RAISED_MEMORY_SHARE:
        # the cheapest remedy of a near miss: the same GPUs and format with the larger budget renters start
        # the engine with to fit a model (the weights do not shrink; the budget grows)
        raised = replace(p.eng, memory_utilization=RAISED_MEMORY_SHARE)
        plan = plan_memory(
            p.spec, p.acc, p.fmt, p.kv, raised, batch=1, context=p.context, gpus=p.per_replica_gpus,
            parallel=p.st_mode, prompt=prompt,
        )  # fmt: skip
        if plan.fits:
            out.append(
                FitOption(
                    format=p.fmt.name, gpus=p.per_replica_gpus, gpu=p.acc.name, parallel="",
                    per_gpu_gib=gib(plan.total / 1e9), flags=f"{flag} {RAISED_MEMORY_SHARE:g}",
                )
            )  # fmt: skip
    # a whole-layer split runs on any count (3-, 5- and 6-GPU rigs are rented); tensor parallel on 2, 4, 8
    for n in range(2, 9) if split == "layer" else (2, 4, 8):
        if n <= p.per_replica_gpus:
            continue
        if split == "tensor" and not p.eng.dp_attention and tp_head_conflict(p.spec, p.eng.name, n):
            continue  # a split the engine refuses to start
        if split == "layer" and n > p.spec.num_hidden_layers:
            continue  # a GPU without a layer: refused (memory.refuse_wide_layer_split)
        plan = plan_memory(
            p.spec, p.acc, p.fmt, p.kv, p.eng, batch=1, context=p.context, gpus=n, parallel=split,
            prompt=prompt,
        )  # fmt: skip
        if plan.fits:
            out.append(
                FitOption(
                    format=p.fmt.name,
                    gpus=n,
                    gpu=p.acc.name,
                    parallel=split,
                    per_gpu_gib=gib(plan.total / 1e9),
                )
            )
            break
    for name in _NARROWER_GGUF if p.fmt.gguf else _NARROWER:
        fmt = run_format(resolve_precision(name), p.eng, [], p.spec)
        verdict = verdict_for(p.eng, fmt, p.acc)
        no_fp16 = without_float16(p.eng, p.spec.family, fmt, verdict, p.acc)
        if not verdict.supported or (no_fp16 is not None and no_fp16.refused):
            continue
        held = _as_run(fmt, verdict, p.acc, [], p.eng)[0]  # 16-bit where the engine dequantizes it
        if held.bits_per_weight >= p.fmt.bits_per_weight:
            continue
        kv = _kv_dtype(p.asked_kv, p.spec, held, p.eng, p.acc)  # the cache asked for, as estimate sizes it
        plan = plan_memory(
            p.spec,
            p.acc,
            held,
            kv,
            p.eng,
            batch=1,
            context=p.context,
            gpus=p.per_replica_gpus,
            parallel=p.st_mode,
            prompt=prompt,
        )
        if plan.fits:
            # on the setup's own GPUs, split as asked: no split named (``parallel`` "")
            out.append(
                FitOption(
                    format=fmt.name, gpus=p.per_replica_gpus, gpu=p.acc.name, parallel="",
                    per_gpu_gib=gib(plan.total / 1e9),
                )
            )  # fmt: skip
            break
    return tuple(out)


def _as_run(
    fmt: WeightFormat,
    verdict: SupportVerdict,
    acc: Accelerator,
    warnings: list[str],
    eng: EngineProfile,
) -> tuple[WeightFormat, str, WeightFormat | None]:
    """(format the weights are held in, efficiency class, format whose tensor rate the math runs at).

    llama.cpp holds MXFP4 (gpt-oss's experts) as one of its own GGUF block types and multiplies it with
    the same quantised-type kernels as Q4_K (MMVQ in decode, MMQ in prefill), so its efficiencies are the
    GGUF class's, not those of a Marlin-style weight-only kernel."""
    if verdict.mode == "fallback-fp16":
        warnings.append(verdict.message())
        return resolve_precision("fp16"), "", None
    if verdict.mode == "dequantized":
        warnings.append(verdict.message() + " (sized and timed in 16-bit)")
        return resolve_precision("bf16" if has_bf16(acc) else "fp16"), "", None
    if verdict.mode == "weight-only" and fmt.compute_class not in (
        CLASS_WEIGHT_ONLY,
        CLASS_GGUF,
        CLASS_GGUF_F16,
    ):
        native = {"fp8": acc.fp8_supported, "fp4": acc.fp4_supported}.get(fmt.native or "", True)
        lacks = (
            f"{acc.name} has no native {fmt.native.upper()} tensor cores: "
            if fmt.native and not native
            else ""
        )
        warnings.append(f"{lacks}{verdict.message()} (memory saved, math at the 16-bit rate)")
        sixteen = resolve_precision("bf16" if has_bf16(acc) else "fp16")
        if eng.name == "llama.cpp":
            return fmt, CLASS_GGUF, sixteen
        return fmt, CLASS_WEIGHT_ONLY, sixteen
    if w4a16_experts(fmt, eng):
        # natively supported, but the experts' narrow weights meet 16-bit activations (W4A16): 16-bit math,
        # as where the GPU has no tensor cores for the weights' type (precision.py, ``expert_activations``)
        return fmt, CLASS_WEIGHT_ONLY, resolve_precision("bf16" if has_bf16(acc) else "fp16")
    return fmt, "", None


def _engine_on(
    spec: ModelSpec, acc: Accelerator, engine: str | EngineProfile, gpus: int, mode: str, context: int
) -> EngineProfile:
    """``engine`` as it starts on ``gpus`` x ``acc`` split as ``mode`` (vLLM V1 sizes its step budget and
    sequence cap by the device's reported memory), then as it runs ``spec`` at ``context`` tokens."""
    on_gpu = resolve_engine(engine).for_gpu(
        capacity_bytes(acc) / GIB,
        f"{acc.name} {acc.full_name}",
        tp=gpus if mode == "tensor" else 1,
        mla=spec.is_mla,
        vendor=acc.vendor,
        capability=acc.nvidia_cc,
    )
    return _for_model(on_gpu, spec, context)


def _timed_setup(
    spec: ModelSpec,
    acc: Accelerator,
    fmt: WeightFormat,
    kv: KvDtype,
    eng: EngineProfile,
    gpus: int,
    mode: str,
    eff_class: str,
    rate_fmt: WeightFormat | None,
) -> Setup:
    """The setup a step is timed on, from the format as run and its efficiency class and rate format
    (:func:`_as_run`): a weight-only checkpoint on kernels no row calibrates timed as its 16-bit
    checkpoint (:func:`_timed_as`: that class, efficiencies and rate). ``gpus`` / ``mode``: one replica's
    (a "replicas" mode is passed as one GPU, "tensor")."""
    timed_as = _timed_as(fmt, eff_class, eng, acc)
    if timed_as is not None:
        eff_class, rate_fmt = "", None
    return Setup(spec, acc, fmt, kv, eng, gpus, mode, eff_class, rate_fmt=rate_fmt, timed_as=timed_as)


def setup_as_run(
    spec: ModelSpec,
    acc: Accelerator,
    gpus: int,
    precision: str,
    kv_dtype: str | KvDtype,
    engine: str | EngineProfile,
    mode: str,
    context: int,
) -> Setup:
    """The setup :func:`estimate` times a decode step of ``precision`` on (its :func:`_prepare`'s steps,
    warnings dropped): the engine as it starts on this GPU and model, the engine's format of the
    checkpoint (:func:`run_format`), the support verdict's format, efficiency class and rate
    (:func:`_as_run`), a weight-only checkpoint timed as its 16-bit one where its kernels are uncalibrated
    (:func:`_timed_setup`); ``kv_dtype`` the cache the estimate sized, ``mode`` "tensor", "layer" or
    "replicas" (one replica timed). What ``diagnose`` times, so its expected speed is the estimate's."""
    eng = _engine_on(spec, acc, engine, gpus, mode, context)
    fmt = run_format(resolve_precision(precision), eng, [], spec)
    fmt, eff_class, rate_fmt = _as_run(fmt, verdict_for(eng, fmt, acc), acc, [], eng)
    kv = kv_dtype if isinstance(kv_dtype, KvDtype) else resolve_kv_dtype(kv_dtype)
    if mode == "replicas":
        gpus, mode = 1, "tensor"
    return _timed_setup(spec, acc, fmt, kv, eng, gpus, mode, eff_class, rate_fmt)


def _timed_as(fmt: WeightFormat, eff_class: str, eng: EngineProfile, acc: Accelerator) -> WeightFormat | None:
    """The 16-bit format a weight-only checkpoint (int4 AWQ / GPTQ, 8-bit GPTQ, NF4) is timed as where the
    engine's weight-only kernels on this GPU's vendor are other code than those its weight-only efficiency
    was fitted on and no calibration row runs them (``EngineProfile.vendor_uncalibrated``: vLLM's Triton
    AWQ / W4A16 kernels on ROCm, not Marlin), and the engine has no efficiency of their own; None elsewhere.

    No profile carries a figure for a non-Marlin weight-only kernel that could stand in: vLLM times its
    pre-0.14 AWQ GEMM and GPTQ kernels below CC 8.0 at the Marlin-fitted figure too, and the exllama v1
    model (TGI 1.x, AutoGPTQ 0.4) is a per-row CUDA-core cost on NVIDIA GPUs. Crediting the Triton
    fallback with Marlin's efficiency on a quarter of the bytes made vLLM's AWQ on an MI300X 2.6x its bf16
    speed and faster than Marlin on an H100, with nothing measured behind it; so the 4-bit weights' byte
    saving is not credited: the speed is the 16-bit checkpoint's (its memory stays the format's)."""
    if (eff_class or fmt.efficiency_class) != CLASS_WEIGHT_ONLY or fmt.compute_class != CLASS_WEIGHT_ONLY:
        return None
    if not eng.foreign_kernels(acc.vendor, CLASS_WEIGHT_ONLY):
        return None
    return resolve_precision("bf16" if has_bf16(acc) else "fp16")


@dataclass(frozen=True, slots=True)
class UncalibratedPart:
    """A figure an estimate leans on that no calibration row fits (:func:`uncalibrated_parts`):
    ``detail`` as the ``uncalibrated`` assumption names it, ``short`` as a warning or a pick's caveat
    does ("MoE layers", "fp8-block kernels"); ``foreign``: kernels of another vendor's code than the rows
    that fitted the figure ran, which their own warning describes."""

    detail: str
    short: str
    foreign: bool = False


def _short_constant(name: str) -> str:
    """A constant of ``EngineProfile.uncalibrated`` in a few words: the MoE ones as "MoE layers", an
    efficiency as "kernel efficiencies", a per-layer / step / sequence cost as "fixed costs"; a note
    (an era's efficiencies off the GPUs that measured them) up to its parenthesis."""
    if name.startswith("moe_"):
        return "MoE layers"
    if name.endswith("_efficiency"):
        return "kernel efficiencies"
    if name.endswith("_us"):
        return "fixed costs"
    return name.split(" (", 1)[0]


def uncalibrated_parts(st: Setup) -> list[UncalibratedPart]:
    """What the estimate of ``st`` leans on that no measurement in the calibration set covers for its
    engine (and era): constants left at their priors (``EngineProfile.uncalibrated``, the MoE ones for
    an MoE model only), the compute class's efficiencies (``uncalibrated_classes``), kernels another
    vendor's GPUs run (``vendor_uncalibrated``), codebook and dequantised FP4 formats. Empty where every
    efficiency class the estimate uses is fitted; the estimate's speed is calibrated only then (and on a
    measured GPU generation)."""
    eng, fmt = st.engine, st.fmt
    out = [
        UncalibratedPart(name, _short_constant(name))
        for name in eng.uncalibrated
        if st.spec.is_moe or not name.startswith("moe_")
    ]
    if st.eff_class in eng.uncalibrated_classes:
        detail = f"{st.eff_class} bandwidth and compute efficiency"
        out.append(UncalibratedPart(detail, f"{st.eff_class} kernels"))
    elif eng.foreign_kernels(st.acc.vendor, _kernel_class(st)):
        key = _kernel_class(st)
        detail = (
            f"{key} kernels on {st.acc.vendor} GPUs (timed as {st.timed_as.label} weights)"
            if st.timed_as is not None
            else f"{st.eff_class} bandwidth and compute efficiency on {st.acc.vendor} GPUs"
        )
        out.append(UncalibratedPart(detail, f"{key} kernels on {st.acc.vendor}", foreign=True))
    if fmt.codebook:
        out.append(
            UncalibratedPart(
                f"{fmt.label}'s codebook kernels (timed at the k-quants' efficiency)", f"{fmt.label} kernels"
            )
        )
    if fmt.native == "fp4" and st.eff_class != fmt.efficiency_class:
        # no calibration row runs an FP4 format: where the GPU has no FP4 math, the kernels that
        # dequantise it (Marlin FP4, Triton matmul_ogs) are timed as the engine's int4 weight-only ones
        out.append(
            UncalibratedPart(
                f"{fmt.label} dequantised to 16-bit math (timed at the int4 weight-only efficiency)",
                # "16-bit math", not "dequantised to 16-bit": the weights stay in the format (they
                # are sized so), only the kernels' arithmetic is 16-bit
                f"{fmt.name} kernels (16-bit math)",
            )
        )
    if st.spec.linear_layers:  # no calibration row runs a model with them (stop 69)
        out.append(
            UncalibratedPart(
                "Gated DeltaNet linear-attention layers (their kernels and state traffic timed by the same "
                "physics as the attention layers')",
                "linear-attention layers",
            )
        )
    return out


def uncalibrated_words(parts: Sequence[UncalibratedPart]) -> tuple[str, ...]:
    """The parts' short names, each once ("MoE layers" stands for all three MoE constants)."""
    return tuple(dict.fromkeys(p.short for p in parts))


def _kernel_class(st: Setup) -> str:
    """The efficiency key of the kernels that run the weights: the format's own where it is timed as
    another (:attr:`Setup.timed_as`), else the one timed."""
    return st.fmt.efficiency_class if st.timed_as is not None else st.eff_class


def w4a16_experts(fmt: WeightFormat, eng: EngineProfile) -> bool:
    """Whether ``eng`` multiplies ``fmt``'s routed experts by 16-bit activations where it runs the format
    natively: gpt-oss's MXFP4 experts in every engine but llama.cpp (whose native Blackwell MXFP4 MMA
    quantises the activations to MXFP4, PR #17906)."""
    return fmt.expert_activations in ("bf16", "fp16") and eng.name != "llama.cpp"


def _unsupported(
    spec: ModelSpec,
    acc: Accelerator,
    gpus: int,
    fmt: WeightFormat,
    eng: EngineProfile,
    mode: str,
    context_in: int,
    context_out: int,
    verdict: SupportVerdict,
    strict: bool,
    reason: str = "",
    *,
    instead: str = "",
    sources: tuple[str, ...] = (),
    field: str = "gpu",
    kv: KvDtype | None = None,
    sequences: int = 1,
) -> Estimate:
    """The answer for a combination the engine cannot run: the reason, the sources, no speed; its memory
    that of ``sequences`` sequences of the context (the batch :func:`memory_needed` was asked for: an
    unsupported engine still says what the weights and every user's KV cache need).

    ``reason``: a refusal other than the support verdict's (then ``instead`` says what would run and
    ``sources`` where the rule is read; ``field`` is what ``strict`` names)."""
    why = reason or verdict.message()
    alts = (
        alternatives(
            eng.name,
            verdict.precision,
            acc,
            checkpoint=verdict.checkpoint,
            dense_model=not spec.is_moe,
            release=eng.version,
        )
        if not reason
        else ()
    )
    would_run = "; ".join(a.message() for a in alts) if alts else instead
    if strict:
        raise ConfigurationRejected(field, why, "would run: " + (would_run or "none found"))
    kv = kv or _kv_default(fmt, eng, acc)
    per_gpus = 1 if mode == "replicas" else gpus
    plan = plan_memory(
        spec,
        acc,
        fmt,
        kv,
        eng,
        batch=math.ceil(sequences / gpus) if mode == "replicas" else sequences,
        context=context_in + context_out,
        gpus=per_gpus,
        parallel="tensor" if mode == "replicas" else mode,
    )
    cited = sources if reason else verdict.sources
    assumptions = {
        "engine": eng.label,
        "support": why + (f" (sources: {', '.join(cited)})" if cited else ""),
    }
    if would_run:
        assumptions["alternatives"] = would_run
    return _without_speed(
        model=spec.name,
        gpu=acc.name,
        gpus=gpus,
        precision=fmt.name,
        engine=eng.name,
        parallel=mode,
        context_in=context_in,
        context_out=context_out,
        kv_dtype=kv.name,
        binding_constraint="unsupported",
        memory=plan.breakdown(),
        bound="unsupported",
        assumptions=assumptions,
        warnings=[why, *filter(None, [eng.version_note])],  # the rules read are the newest release's
        speed_calibrated=speed_calibrated(acc, "inference"),  # of the part (no speed is given here)
        supported=False,
        unsupported_reason=why,
        unsupported_field=field if reason else "",
        support="unsupported",
        binding_limit="unsupported",
        replicas=gpus if mode == "replicas" else 1,
    )


def _memory_budget(st: Setup, plan: MemoryPlan) -> str:
    """How the engine's memory share is read, in GiB (as GPU memory is sold; the engines' own figures
    are GB: 1 GB is 0.93 GiB), saying what the usable figure is."""
    eng = st.engine
    card = f"{gib(plan.capacity / 1e9):.1f} GiB ({card_memory_label(st.acc)})"
    context = f"{eng.runtime.context} {gib(eng.cuda_context_gb):.2f} GiB"
    if eng.memory_fraction_of_free:
        # TensorRT-LLM: kv_cache_free_gpu_mem_fraction of the memory left once the weights, the
        # activations and the runtime are in (memory.plan_memory's gpu_plan), the rest left unused
        free = max(0.0, plan.capacity - plan.weights - plan.overhead - plan.activations)
        return (
            f"KV cache: {eng.memory_utilization:.2f} of the {gib(free / 1e9):.1f} GiB left free of {card} "
            f"by the weights, activations, {context} and engine reserve "
            f"{gib(eng.engine_reserve_gb):.2f} GiB (kv_cache_free_gpu_mem_fraction): "
            f"{gib(plan.usable / 1e9):.1f} GiB usable in all"
        )
    if eng.pool_excludes_activations:
        return (
            f"{eng.memory_utilization:.2f} of {card} for weights and KV cache (mem_fraction_static"
            f"{', as stated' if eng.states('memory_utilization') else ', sized by the GPU'}) - "
            f"{context}; activations and {eng.runtime.graphs} beside it"
        )
    return (
        f"{eng.memory_utilization:.2f} of {card} - {context} - engine reserve "
        f"{gib(eng.engine_reserve_gb):.2f} GiB"
    )


_MEASURED_AR = "latencies and rates measured on 8-GPU systems: aiconfigurator-core 0.12.0's collective tables"


def _allreduce_note(st: Setup, link: Link) -> str:
    """How the estimate times a tensor-parallel all-reduce on ``link``: the engine's custom kernel in
    CUDA-graph steps where it applies, NCCL otherwise, each with its measured latency."""
    tp = st.gpus
    nccl = allreduce_latency_us(link, tp)
    if st.engine.custom_allreduce_in(st.engine.cuda_graphs) and link.custom_allreduce:
        custom = allreduce_latency_us(link, tp, custom=True)
        how = "plus the bytes' time"
        rates = custom_kernel_gbps(link)
        if rates is not None:  # NVLink: the kernels' measured one-shot and two-shot rates
            how = (
                f"then each peer's message read at {rates[0]:.0f} GB/s, or a larger one split in two "
                f"passes at {rates[1]:.0f}"
            )
        return (
            f"all-reduces through {st.engine.label.split(' (')[0]}'s custom kernel in CUDA-graph steps "
            f"({custom:.1f} us each, {how}), NCCL's {nccl:.1f} us in eager ones ({_MEASURED_AR})"
        )
    return f"all-reduces through NCCL, {nccl:.1f} us each plus the bytes' time ({_MEASURED_AR})"


def _kv_windows_note(st: Setup) -> str:
    """What the engine does with the sliding-window layers of a model that mixes them with full ones
    (``EngineProfile.keeps_layer_windows``); "" for other models."""
    if not mixes_windows(st.spec):
        return ""
    eng = st.engine
    source = eng.kv_layer_windows_source
    if eng.keeps_layer_windows():
        why = f" ({source})" if source else ""
        if st.spec.chunked_attention:
            return (
                f"; the chunked-attention layers keep one {st.spec.sliding_window:,}-token chunk at most{why}"
            )
        return f"; the sliding-window layers keep their last {st.spec.sliding_window:,} tokens{why}"
    since = (
        f"per-layer windows from {eng.past_label or eng.label} {eng.kv_layer_windows_since} on"
        if eng.kv_layer_windows and eng.kv_layer_windows_since
        else ""
    )
    why = "; ".join(filter(None, (since, source)))
    said = f" ({why})" if why else ""
    local = "chunked" if st.spec.chunked_attention else "sliding"
    return f"; {eng.label} sizes every layer's cache at the whole context, the {local} layers' too{said}"


def _linear_state_allocation(st: Setup) -> str:
    """How the engine allocates a hybrid model's linear-attention states beside its KV cache ("" for a
    model without them)."""
    if not st.spec.linear_layers:
        return ""
    if st.engine.name == "vllm":
        block, _ = engine_state_pages(
            st.spec, st.kv, "vllm", st.engine.kv_block_tokens, tp=st.tp, cc=st.acc.nvidia_cc
        )
        return (
            f", enlarged to {block} tokens: vLLM's hybrid cache gives every layer pages of one size, so one "
            "attention layer's block holds one linear layer's state (each state padded to it)"
        )
    if st.engine.name == "sglang":
        return (
            f"; the linear-attention states in a pool of their own, {SGLANG_STATE_TO_KV_RATIO:g} : 1 of the "
            "KV cache's (--mamba-full-memory-ratio)"
        )
    return "; one linear-attention state per sequence beside it"


def _memory_assumptions(
    st: Setup, plan: MemoryPlan, verdict: SupportVerdict, replicas: int
) -> dict[str, str]:
    """The assumptions that size memory: engine, support, formats, the memory budget, the split."""
    eng, fmt = st.engine, st.fmt
    bits = f"{fmt.bits_per_weight:g} bits/weight"
    if fmt.dense_bits is not None:
        bits = f"MoE experts {fmt.bits_per_weight:g} bits/weight, other weights {fmt.dense_bits:g}"
    elif fmt.expert_bits is not None:  # a GGUF file that keeps the checkpoint's experts (gpt-oss: MXFP4)
        bits = f"MoE experts {fmt.expert_bits:g} bits/weight, other weights {fmt.bits_per_weight:g}"
    out = {
        "engine": eng.label,
        "support": verdict.message()
        + (f" (source: {', '.join(_rule_sources(verdict))})" if verdict.sources else ""),
        "precision": f"{fmt.label}: {bits} (embeddings {fmt.embedding_bits:g}, lm_head {fmt.lm_head_bits:g})"
        + (f"; {fmt.note}" if fmt.expert_bits is not None else ""),
        "kv_dtype": _kv_note(st),
        # in GiB, as GPU memory is sold (the engines' own figures are GB: 1 GB is 0.93 GiB)
        "memory_budget": _memory_budget(st, plan),
        "kv_allocation": (
            "full context reserved up front"
            if eng.kv_allocates_full_context
            else f"paged, {eng.kv_block_tokens}-token blocks"
        )
        + _kv_windows_note(st)
        + _linear_state_allocation(st),
    }
    if replicas > 1:
        out["parallel"] = (
            f"{replicas} replicas (data parallel), whole requests dealt out as evenly as they go"
        )
    elif st.gpus > 1 and st.parallel == "tensor":
        link = collective_link(st.acc, st.gpus)
        out["parallel"] = f"tensor parallel x{st.gpus} over {link.label}"
        out["parallel"] += "; " + _allreduce_note(st, link)
        if lacks_peer_access(st.acc):
            out["parallel"] += (
                f"; {st.acc.full_name or st.acc.name} cards have no GPU peer-to-peer access: NCCL stages "
                f"each all-reduce through host memory, timed at {HOST_STAGED_SHARE:.0%} of the PCIe "
                "bandwidth with the peer-to-peer latency (assumptions; no calibration row measures it)"
            )
        if st.engine.dp_attention:
            out["parallel"] += (
                f"; data-parallel attention: each GPU runs the whole attention for 1/{st.gpus} of the "
                "sequences and keeps only their cache (attention, embedding and lm_head on every GPU)"
            )
    elif st.gpus > 1:
        out["parallel"] = (
            f"pipeline over {st.gpus} GPUs (whole layers per GPU, a batch in flight on each; no batch-1 "
            "speed-up)"
            if pipelines(st.engine)
            else f"layer split over {st.gpus} GPUs (capacity, no batch-1 speed-up)"
        )
        if lacks_peer_access(st.acc):
            out["parallel"] += (
                f"; {st.acc.full_name or st.acc.name} cards have no GPU peer-to-peer access: each hand-off "
                f"is staged through host memory, its transfer timed at {HOST_STAGED_SHARE:.0%} of the PCIe "
                "bandwidth (an assumption; no calibration row measures it)"
            )
    return out


def _generation_keys(st: Setup) -> set[str]:
    """The keys of the engine's generation figures (``EngineProfile.generation_parts``) that ``st``'s
    timing reads: its class as the profile's efficiencies resolve it (vLLM's block FP8 reads its FP8
    figures, SGLang's has its own), and the 4-bit experts' share for an MoE model's weight-only experts."""
    eng = st.engine
    keys = {
        key
        for values in (eng.bandwidth_efficiency, eng.compute_efficiency)
        if (key := class_key(values, st.eff_class)) is not None
    }
    if st.spec.is_moe and st.eff_class == CLASS_WEIGHT_ONLY:
        keys.add(MOE_WEIGHT_ONLY_NOTE)
    return keys


def _expert_rate_note(st: Setup, verdict: SupportVerdict) -> str:
    """Which tensor rate an experts-only format's parts run at (gpt-oss's MXFP4 experts, bf16 rest)."""
    fmt, eng = st.fmt, st.engine
    weights = fmt.label.split(" ", 1)[0]
    if st.eff_class in (CLASS_WEIGHT_ONLY, CLASS_GGUF) and verdict.mode == "native":
        how = (
            f"{weights} weights x {fmt.expert_activations} activations (W4A16, vLLM's and SGLang's default "
            "MoE kernels; not W4A4, so not the FP4 rate: TensorRT-LLM's W4A8 reaches at most the FP8 rate"
            + (", and is timed as W4A16 here)" if eng.name == "tensorrt-llm" else ")")
        )
    elif st.eff_class in (CLASS_WEIGHT_ONLY, CLASS_GGUF):
        how = f"{weights} weights dequantised for 16-bit math (weight-only)"
    else:
        how = f"{weights} weights x activations quantised to {weights}"
    experts = st.achieved_flops * eng.moe_compute_efficiency / 1e12
    out = (
        f"routed experts: {how}, at the {rate_label(st.rate, st.acc)} rate ({st.rate.tflops:g} TFLOPS peak), "
        f"{experts:,.0f} TFLOPS achieved in grouped GEMMs; the {fmt.dense_bits:g}-bit attention projections, "
        "router and lm_head"
    )
    dense = st.dense_flops / 1e12
    if abs(st.attn_flops - st.dense_flops) > 1e-6 * st.dense_flops:
        return (
            out + f" at the 16-bit rate, {dense:,.0f} TFLOPS achieved; attention scores at "
            f"{st.attn_flops / 1e12:,.0f} TFLOPS achieved"
        )
    return out + f", and the attention scores, at the 16-bit rate, {dense:,.0f} TFLOPS achieved"


def _kv_note(st: Setup) -> str:
    """The cache's element type, and for sparse attention what a step reads of it."""
    shape = kv_shape(st.spec)
    if st.kv.name == SPARSE_MLA_FP8:
        size = f"{st.kv.name} ({st.kv.bytes_per_element * shape.elements_per_layer:g} B per token and layer)"
    else:
        size = f"{st.kv.name} ({st.kv.bytes_per_element:g} B/element)"
    if shape.topk:
        size += (
            f"; sparse attention reads the top {shape.topk} tokens per query, its indexer keeps "
            f"{shape.index_bytes_per_layer:g} B per token and layer (FP8) and reads them all"
        )
    return size


# Share of an eager decode step spent on the host above which the step's speed is the host CPU's.
HOST_BOUND_SHARE = 0.5


def host_bound_note(eng: EngineProfile, running: int, step: StepTime) -> str:
    """The caveat on an eager decode step that the host sets: where kernel launches and scheduling (Python,
    one CPU thread) are most of the step, its speed follows that thread's speed, which no offer states.

    The engines' eager launch costs are fitted on published runs; a host can be slower or faster. On
    three H200 VMs (``benchmarks/gpu_measure.py``, 2026-12-04) transformers decoded at 15-23 tok/s for
    one Llama-3.1-8B run depending on the machine, and the estimate was 1.3-2.5x faster than measured;
    Qwen's published transformers 4.51 runs on an H20 host (the calibration set's Qwen3 speed benchmark)
    decoded its small models at 1.8-2.1x the estimate's speed."""
    if eng.graphs_cover(running) or step.total <= 0 or step.fixed < HOST_BOUND_SHARE * step.total:
        return ""
    total_ms, host_ms = step.total * 1000, min(step.fixed, step.total) * 1000
    part = (
        f"each {total_ms:,.1f} ms step is"
        if host_ms >= 0.95 * total_ms
        else f"{host_ms:,.1f} ms of each {total_ms:,.1f} ms step is"
    )
    return (
        f"decoding is host-bound here: {part} kernel launches and scheduling on one CPU thread (eager "
        "PyTorch), so its speed follows the host's single-thread speed, which offers do not state; on "
        "cloud H200 VMs measured for gpuscout it ran 1.3 to 2.5 times slower than estimated, and in "
        "Qwen's published transformers runs on an H20 host up to 2.1 times faster "
        + (
            f"(an engine with {eng.runtime.graphs}, e.g. vLLM or SGLang, avoids it)"
            if not eng.cuda_graphs
            else f"(its {eng.runtime.graphs} cover decode batches up to {eng.graph_max_batch})"
        )
    )


def _graphs_note(eng: EngineProfile, running: int) -> str:
    """How the decode steps launch their kernels: CUDA graphs, or eager (never, or beyond the
    captured batch sizes)."""
    if not eng.cuda_graphs:
        return " (eager)"
    if eng.graphs_cover(running):
        prompts = "" if eng.graphs_in_prefill else "; prompt steps eager"
        return f" ({eng.runtime.graphs}{prompts})"
    return (
        f" (eager: {eng.runtime.graphs} cover decode batches up to {eng.graph_max_batch}, {running} "
        f"sequences run at once; {eng.eager_layer_overhead_us:g} us/layer of launches)"
    )


def rate_label(rate: ComputeRate, acc: Accelerator) -> str:
    """The dtype a peak rate is the rate of, as the explain lines name it: a part without bfloat16 (V100,
    T4, MI50) multiplies 16-bit weights in fp16, and its table rate is the FP16 one, so "bf16" is
    said only where the part computes in it."""
    if rate.rate_name == "bf16" and not has_bf16(acc):
        return "fp16"
    return rate.rate_name


def derived_rate_warning(acc: Accelerator, rate: ComputeRate) -> str:
    """What a rate derived from the FP32 one says (``bf16_tflops``): the derived figure and the FP32
    figure it comes from, each named: "bf16 rate 60 TFLOPS derived from FP32 29.8 TFLOPS (2x)"."""
    label = rate_label(rate, acc)

    def figure(tflops: float) -> str:  # three figures, never an exponent: 59.5, 165, 1,979
        return f"{tflops:.3g}" if tflops < 100 else f"{tflops:,.0f}"

    head = f"{acc.name}: no tensor-core rate in the table; {label} rate {figure(rate.tflops)} TFLOPS"
    if not acc.fp32_tflops:
        placeholder = f"{FP32_PLACEHOLDER_TFLOPS:g} TFLOPS"
        return f"{head} derived from a placeholder FP32 rate ({placeholder}; none in the table)"
    factor = rate.tflops / acc.fp32_tflops
    if abs(factor - 1.0) < 1e-9:
        return f"{head}: no tensor cores, so taken as its FP32 rate"
    return f"{head} derived from FP32 {figure(acc.fp32_tflops)} TFLOPS ({factor:.3g}x)"


def _cap_words(reason: str) -> str:
    return CAP_WORDS.get(reason, reason)


def _load_line(point: ServingPoint, replicas: int, load: str) -> str:
    """The ``load`` assumption: what runs per replica and what bounds it, "145 running per replica (cap
    145, KV cache), 1.82 requests/s". Where more run than ``point.cap`` (the sequences the KV cache holds
    at their whole length), they are staggered requests, each holding less (prompt + part of its
    output): said so, not as a cap exceeded."""
    where = "on the busiest replica" if replicas > 1 else "per replica"
    if point.running > point.cap:
        bound = (
            f"{point.cap} fit at full length; staggered requests hold less, {_cap_words(point.cap_reason)}"
        )
    else:
        bound = f"cap {point.cap}, {_cap_words(point.cap_reason)}"
    rate = point.requests_per_s * replicas
    return f"{load}: {point.running} running {where} ({bound}), {rate:,.3g} requests/s"


def _assumptions(
    st: Setup, plan: MemoryPlan, verdict: SupportVerdict, point: ServingPoint, replicas: int, load: str
) -> dict[str, str]:
    eng = st.engine
    sizing = _memory_assumptions(st, plan, verdict, replicas)
    fp16_acc = st.peak_tflops != st.rate.tflops
    # a doubled GeForce rate is fp16's with fp16 accumulation: bf16 MMAs accumulate only in fp32
    rate = "fp16" if fp16_acc else rate_label(st.rate, st.acc)
    parallel = sizing.pop("parallel", None)
    out = {
        **sizing,
        "bandwidth_efficiency": f"{st.bandwidth_eff:.2f} of {st.acc.bandwidth_gbps:g} GB/s"
        + _ceiling_note(eng.stream_ceiling(st.eff_class), "GB/s", st.achieved_bandwidth / 1e9),
        "compute_efficiency": f"{st.compute_eff:.2f} of {st.peak_tflops:g} TFLOPS {rate} (dense"
        + (", fp16 accumulate" if fp16_acc else "")
        + ")"
        + _ceiling_note(
            eng.compute_ceiling(st.eff_class),
            "TFLOPS",
            st.achieved_flops / 1e12,
        ),
        "compute_class": st.eff_class
        + (
            f" ({st.fmt.label}, {st.fmt.efficiency_class}, timed as {st.timed_as.label} weights)"
            if st.timed_as is not None
            else ""
        ),
        **({"expert_rate": _expert_rate_note(st, verdict)} if st.fmt.dense_bits is not None else {}),
        "fixed_costs": f"{eng.layer_overhead_us:g} us/layer + {eng.step_overhead_us:g} us/step + "
        f"{eng.seq_overhead_us:g} us/sequence/step"
        + (
            f" + {quant:g} us/layer for block-FP8 activation quantisation"
            if (quant := eng.activation_quant_layer_us(st.eff_class))
            else ""
        )
        + (
            f" + {gemm:g} us per weight GEMM ({model_consts(st.spec).weight_gemms} a step; measured kernels)"
            if (gemm := eng.gemm_fixed_us(st.eff_class)) and eng.cuda_graphs  # eager: launches hide it
            else ""
        )
        + _graphs_note(eng, point.running),
        "batching": (
            f"continuous, chunked prefill ({eng.prefill_chunk_tokens} tokens/step)"
            if eng.continuous_batching and eng.chunked_prefill
            else "continuous, prefills stall decoding"
            if eng.continuous_batching
            else "static batches (waves)"
        ),
        "load": _load_line(point, replicas, load),
    }
    if (
        eng.name == "llama.cpp"
        and point.running > LLAMA_SERVER_DEFAULT_SLOTS
        and not eng.states("max_num_seqs")
    ):
        out["slots"] = (
            f"llama-server started with --parallel {point.running} or more: without it, it runs "
            f"{LLAMA_SERVER_DEFAULT_SLOTS} slots (--parallel auto) and the other requests wait"
        )
    if note := eng.generation_note_for(_generation_keys(st)):
        out["kernel_generation"] = note
    if eng.stated_flags:
        out["launch_flags"] = "as stated: " + ", ".join(eng.stated_flags)
    c = st.spec
    prior = [part.detail for part in uncalibrated_parts(st)]
    if prior:
        out["uncalibrated"] = (
            f"{', '.join(prior)}: not calibrated, no measurement in the calibration set covers them for "
            f"{eng.label} (physics priors, or the engine's nearest fitted figure)"
        )
    # the host note where the fixed costs that bind are mostly the host's (not the GPU's gaps between small
    # kernels under CUDA graphs: DeepSeek-R1's routing and block-FP8 quantisation kernels at one user)
    host_bound = point.binding == "overhead" and point.step.host >= 0.5 * point.step.fixed
    keys = (st.eff_class, "moe" if c.is_moe else "", "host" if host_bound else "")
    basis = [eng.calibration_basis[k] for k in keys if k in eng.calibration_basis]
    if basis:
        out["calibration_basis"] = "; ".join(basis)
    if c.linear_layers:
        state = linear_state_dtypes(c, st.kv, eng.name)
        out["linear_attention"] = (
            f"{c.linear_layers} of {c.num_hidden_layers} layers are Gated DeltaNet linear attention: no KV "
            f"cache there, but a state of {linear_state_bytes(c, st.kv, eng.name, tp=st.tp) / 1e6:,.1f} MB "
            f"per sequence on each GPU ({state.how}), read and written whole every decode step, in the KV "
            f"cache figures; the cache per token is the {c.attention_layers} attention layers'"
        )
    if c.is_moe:
        reads = eng.moe_stream_share(st.eff_class)
        out["moe"] = (
            f"{c.experts_per_token} of {c.num_experts} experts per token; a step reads the experts its "
            f"tokens touch; expert weight reads at {reads:.2f} and expert GEMMs at "
            f"{eng.moe_compute_efficiency:.2f} of dense efficiency"
            + (f" ({eng.moe_source})" if eng.moe_source else "")
        )
    if st.gemm_tile > 1:
        out["gemm_tile"] = (
            f"tensor-core GEMMs compute at least {st.gemm_tile:g} rows (each touched expert too): "
            "small batches pay for a whole tile"
        )
    if st.wgmma_weight_only:
        out["gemm_kernel"] = (
            f"{st.fmt.label} through Machete (wgmma) on sm_90, not Marlin's mma.sync: the weight-only "
            "efficiency at the full tensor rate (no calibration row runs Machete; its weight-only rows are "
            "Marlin on A100s)"
        )
    if st.wgmma_experts:
        out["gemm_kernel"] = (
            f"{st.fmt.label}: the experts' W4A16 grouped GEMMs are warpgroup-MMA kernels here (Triton "
            "matmul_ogs on Hopper, FlashInfer TRT-LLM-gen / CUTLASS MoE on datacenter Blackwell), not "
            "Marlin's mma.sync: the weight-only efficiency at the full tensor rate"
        )
    if st.mma_sync_share < 1.0:
        out["gemm_kernel"] = _mma_sync_note(st)
    if st.wide_gemms and not st.split_dense:
        wide = wide_body_params(st) / model_consts(st.spec).dense_body
        out["wide_gemms"] = (
            f"{st.fmt.label}: the {wide:.0%} of the body's weights left in bf16 (the attention projections "
            f"and the first and last decoder layers) at the 16-bit rate, {st.dense_flops / 1e12:,.0f} TFLOPS "
            f"achieved; the rest at the {rate} rate, {st.achieved_flops / 1e12:,.0f} TFLOPS"
        )
    if parallel is not None:
        out["parallel"] = parallel
    return out


def _mma_sync_note(st: Setup) -> str:
    """Why a weight-only format's GEMMs are timed at a share of the weight-only efficiency
    (:attr:`Setup.mma_sync_share`): the kernel family, the factor, and the rate it leaves."""
    eng, share = st.engine, st.mma_sync_share
    if eng.name in ("vllm", "sglang"):  # engine_support.csv: Marlin (and the fused Marlin MoE kernel)
        moe = " (the experts in its fused MoE kernel)" if st.spec.num_experts else ""
        kernel = f"Marlin{moe}, Ampere-style mma.sync code"
    else:
        kernel = (
            "the engine's weight-only kernels, taken as Ampere-style mma.sync code (as Marlin, the AWQ "
            "GEMM, exllama v2)"
        )
    cc = st.acc.nvidia_cc
    full = "Hopper's wgmma" if cc is not None and cc < (10, 0) else "Blackwell's tcgen05"
    return (
        f"{st.fmt.label} through {kernel}, not {full}: timed at {share:g} of the weight-only compute "
        f"efficiency, {st.compute_eff * share:.2f} of {st.peak_tflops:g} TFLOPS (mma.sync code keeps about "
        "half the tensor rate where the full rate needs the warpgroup MMA: FlashAttention-2 reaches 50-73 % "
        "of an A100's peak, 35 % of an H100's)"
    )


def _rule_sources(verdict: SupportVerdict) -> tuple[str, ...]:
    """The sources of the rule that decided (the platform rule's too when it is not plainly sourced)."""
    rule = verdict.precision_rule or verdict.platform_rule
    own = rule.sources if rule is not None else verdict.sources
    plat = verdict.platform_rule
    extra = plat.sources if plat is not None and plat is not rule and plat.tag != "sourced" else ()
    return own + tuple(u for u in extra if u not in own)


def _ceiling_note(ceiling: float | None, unit: str, achieved: float) -> str:
    if not ceiling:
        return ""
    return f"; engine kernel ceiling {ceiling:g} {unit} -> {achieved:,.0f} {unit} reached"
