"""``diagnose``: is a measured generation speed memory- or compute-bound, and what would help.

The seed question: "why is my generation slow while the GPU is not fully used?" Decode reads every
weight once per step; at small batch the tensor cores idle while memory streams. We turn a measured
tokens/s into the bandwidth and FLOP/s it implies, compare with the GPU's peaks, and price the usual
remedies (faster memory, quantisation, batching, speculative decoding) with the same estimator.

A figure above the roofline (more bandwidth or FLOP/s than the datasheet has) cannot be decode of that
model at that precision and batch: the diagnosis says so and what it more likely measured (the total of
a batch, a smaller or quantised model, speculative decoding, prompt tokens counted in) instead of
pricing remedies for a speed that was never reached.

A model that does not fit on the GPUs given (the estimator's own memory plan, as ``estimate`` answers
"does not fit") cannot have run from GPU memory alone: what did not fit sat in host memory (llama.cpp's
``--n-gpu-layers``, vLLM's ``--cpu-offload-gb``, accelerate's offload), so a speed far below the GPU's
roofline is what such a run gives. The diagnosis says so first, with the figures, and suggests only
setups that fit: those ``estimate``'s would-fit names, and a card with the memory to hold it.
"""

from __future__ import annotations

from gpuscout.errors import ConfigurationRejected, GpuscoutError, InvalidInputError, quoted_value
from gpuscout.estimate.api import (
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_GPUS,
    _engine_format,
    _model_and_precision,
    _within_context,
    estimate,
    parallel_mode,
    setup_as_run,
)
from gpuscout.estimate.arguments import MAX_MEASURED_TPS, MEASURED_TPS_ACCEPTED, int_in, resolve_gpu_arg
from gpuscout.estimate.engines import default_engine, resolve_engine
from gpuscout.estimate.kv_cache import kv_read_bytes_per_step, linear_state_step_bytes
from gpuscout.estimate.launch_flags import with_flags
from gpuscout.estimate.memory import gib, model_consts
from gpuscout.estimate.parallel import TP_HEAD_RULES, host_link_gbps, host_pcie_generation
from gpuscout.estimate.precision import resolve_precision
from gpuscout.estimate.runtime import device_runtime, on_runtime
from gpuscout.estimate.throughput import (
    Setup,
    _attn_flops_per_token,
    _head_params,
    decode_step,
    step_weight_bytes,
)
from gpuscout.estimate.types import Diagnosis, Estimate
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import assumed_variant_warning
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.models import label_as_typed

FASTER_MEMORY_GPUS = ("H100-SXM", "H200-SXM", "MI300X")
#: A measured speed at least this share of the engine's usual one reads as the engine working as expected:
#: a step spent in fixed costs is then the engine's own, not a misconfiguration to look for.
AS_EXPECTED = 0.9
SPECULATIVE_SPEEDUP = (1.5, 2.5)  # typical batch-1 gain with a good draft model (acceptance 60-80 %)
# tokens per step speculative decoding reaches at best in practice (EAGLE-3 / MTP with long accepted
# drafts): a figure further above the roofline than this is not explained by speculation alone
SPECULATIVE_MAX_TOKENS_PER_STEP = 4.0
ABOVE_ROOFLINE = "above-roofline"
# the model does not fit on the GPUs given: what sits in host memory sets the speed
HOST_OFFLOAD = "host-offload"
MAX_BATCH_SEARCHED = MAX_BATCH  # the batch a diagnosis searches up to: the most one engine runs at once
# the GPU counts a card "with the memory to hold it" is priced on: the fewest of these (up to the count
# measured on) that holds the batch measured
CARD_COUNTS = (1, 2, 4, 8)


def diagnose(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    measured_tps: float,
    precision: str | None = None,
    batch: int = 1,
    engine: str | None = None,
    gpus: int = 1,
    context: int = 1024,
    typed: str | None = None,
) -> Diagnosis:
    """Explain ``measured_tps`` (decode tokens/s per sequence at ``batch``) for ``model`` on ``gpu``;
    ``precision`` None: the one :func:`~gpuscout.estimate.api.estimate` takes (a quantized checkpoint's
    name implies its format, else the model's own: FP8 for DeepSeek-V3/R1, MXFP4 experts for gpt-oss,
    bf16 for most), said in the verdict; ``engine`` None: the estimate's default (llama.cpp for a GGUF
    precision, else vLLM). A GPU family name ("A100") is answered for the variant it reads as, said as
    ``estimate`` says it (:func:`~gpuscout.knowledge.accelerators.assumed_variant_warning`): in
    ``warnings``, and in the verdict, which every face prints (after what it found, before the format
    the figures assumed where none was named). ``typed``: the model as the user named it, where ``model``
    is the spec that name resolved to (a face that resolves it through the user's registry), for
    ``label`` (:func:`~gpuscout.knowledge.models.label_as_typed`: "deepseek-r1 (as deepseek-v3)").

    Where the engine refuses its own tensor split over ``gpus`` (attention heads that do not divide, as
    ``estimate`` refuses it on ``gpus``) and offers a pipeline split instead, the diagnosis times that
    layer split (the layout such a run had), said first in the verdict."""
    if not isinstance(measured_tps, int | float) or not 0 < measured_tps < MAX_MEASURED_TPS:
        raise InvalidInputError(
            "measured_tps",
            f"must be a positive tokens/s figure, got {quoted_value(measured_tps)}",
            MEASURED_TPS_ACCEPTED,
        )
    # the model and the format its precision names, as ``estimate`` takes them: "mxfp4" on gpt-oss is its
    # published checkpoint (MXFP4 experts, attention and lm_head bf16), "fp8" DeepSeek-V3's block-scaled one;
    # none named, the checkpoint's own format (the name's "-AWQ", the model's native one, else bf16)
    assumed = precision is None or (
        isinstance(precision, str) and precision.strip().lower() in ("", "native", "auto", "checkpoint")
    )
    label_from = typed if typed is not None and typed.strip() else model
    spec, precision, _ = _model_and_precision(model, precision)
    label = label_as_typed(spec, label_from) if isinstance(label_from, str) else spec.name
    acc = resolve_gpu_arg(gpu)
    variant = assumed_variant_warning(gpu)  # "A100" read as one of its variants ("" for an exact name)
    context = int_in("context", context, 1, MAX_CONTEXT)
    gpus = int_in("gpus", gpus, 1, MAX_GPUS, error=ConfigurationRejected)  # 2.0 echoed as 2
    # every sequence of the batch is in the step timed: at most what one engine runs at once
    batch = int_in("batch", batch, 1, MAX_BATCH, error=ConfigurationRejected)
    _within_context(spec, context, 0, "context")
    limit = spec.max_position_embeddings
    context_in = min(context, limit - 1) if limit else context  # + the token being generated
    if engine is None:
        engine = default_engine(resolve_precision(precision).name)
    eng = resolve_engine(engine)
    runtime = device_runtime(acc.vendor)  # the engine's words for this GPU's runtime (HIP on an AMD card)
    eng_label = on_runtime(eng.label, runtime)
    # the engine's own split, as the estimate takes it: a layer split (llama.cpp, HF) reads every weight
    # once per token on one GPU at a time, tensor parallel a 1/gpus share on each GPU at once
    mode = parallel_mode(None, eng)

    def timed(parallel: str) -> Estimate:  # one decode step of the batch at this context
        return estimate(
            spec,
            acc,
            gpus=gpus,
            precision=precision,
            engine=engine,
            batch=batch,
            context_in=context_in,
            context_out=1,
            parallel=parallel,
        )

    est = timed(mode)
    relaid = ""  # the tensor split refused: the layer split timed instead, said first
    rule = TP_HEAD_RULES.get(eng.name)
    if not est.supported and est.unsupported_field == "gpus" and mode == "tensor" and rule and rule.pipeline:
        try:
            layered: Estimate | None = timed("layer")
        except GpuscoutError:  # a split the estimator refuses too (more GPUs than layers)
            layered = None
        if layered is not None and layered.supported:
            relaid = (
                f"Tensor parallel over {gpus} GPUs does not start — {est.unsupported_reason.rstrip('.')}: "
                f"diagnosed as the pipeline (layer) split {eng_label} runs over {gpus} x {acc.name} "
                "instead (--parallel layer)."
            )
            est, mode = layered, "layer"
    # the setup the estimate timed: the format as it ran (bf16 as fp16 where the card has no bfloat16,
    # the support rules' fallback-fp16), its efficiency class, a weight-only checkpoint on uncalibrated
    # kernels timed as its 16-bit one (``Setup.timed_as``)
    asked = _engine_format(resolve_precision(precision), eng, []).name
    st = setup_as_run(spec, acc, gpus, precision, est.kv_dtype, eng, mode, context_in + 1)
    fmt, kv = st.fmt, st.kv
    # not one sequence fits (the estimate's memory plan, which an estimate the engine refuses still
    # makes): part of the model sat in host memory
    m = est.memory
    fits = est.fits if est.supported else m.total_gb <= m.usable_gb
    tp = st.tp
    # tensor parallel: each GPU streams its share at once; a layer split: the GPUs take turns
    per_gpu = "per GPU" if tp > 1 or gpus == 1 else f"in all (the {gpus} GPUs take turns, a layer split)"
    c = model_consts(spec)
    head = _head_params(spec)
    # the bytes and FLOPs a step physically moves: the checkpoint's own weights, even where its speed is
    # timed as its 16-bit checkpoint's (``expected``, :func:`_as_read`)
    read = _as_read(st)
    dense_b, expert_b = step_weight_bytes(read, batch)
    bytes_step = dense_b + expert_b
    bytes_step += (
        kv_read_bytes_per_step(spec, kv, context, tp=tp)
        + linear_state_step_bytes(spec, kv, st.engine.name, tp=tp)
    ) * batch
    flops_step = (2.0 * (c.active_body + head) + _attn_flops_per_token(spec, context)) * batch / tp
    step_s = 1.0 / measured_tps
    peak_bw = acc.bandwidth_gbps
    peak_tf = read.peak_tflops
    bw_gbps = bytes_step / step_s / 1e9
    tflops = flops_step / step_s / 1e12
    t_mem, t_comp = bytes_step / (peak_bw * 1e9), flops_step / (peak_tf * 1e12)
    roofline = 1.0 / max(t_mem, t_comp)
    expected = decode_step(st, batch, context).total
    expected_tps = 1.0 / expected
    bw_frac, comp_frac = bw_gbps / peak_bw, tflops / peak_tf
    physics_bound = "memory" if t_mem >= t_comp else "compute"
    bound = physics_bound if max(bw_frac, comp_frac) >= 0.3 else "overhead"
    ratio = measured_tps / expected_tps
    suggestions: list[str] = []
    pcie_tps = 0.0
    offload = ""
    fitting: list[str] = []  # where it does not fit: the setups that do, priced
    if not fits:
        offload, pcie_tps = _offload_verdict(est, read, bytes_step, measured_tps, roofline)
        if measured_tps <= roofline:  # above it, no remedies for a speed that was not reached
            fitting = _fitting_setups(spec, acc, est, precision, engine, batch, gpus, context_in, mode)
            if not fitting:  # estimate's would-fit holds one sequence: said so where more were measured
                would = "Would fit" if batch == 1 else f"Would fit one sequence (not {batch})"
                offload += f" {would}: {est.assumptions.get('would_fit') or 'nothing found'}."

    if measured_tps > roofline:
        bound = ABOVE_ROOFLINE
        what = f"{spec.name} ({fmt.name}) on {gpus} x {acc.name}"
        if physics_bound == "memory":
            need = (
                f"each step reads {bytes_step / 1e9:.2f} GB {per_gpu}, so {measured_tps:g} tokens/s would "
                f"take {bw_gbps:,.0f} GB/s, {bw_frac:.1f}x the {peak_bw:,.0f} GB/s datasheet bandwidth"
            )
        else:
            need = (
                f"each step computes {flops_step / 1e12:.2f} TFLOP {per_gpu}, so {measured_tps:g} tokens/s "
                f"would take {tflops:,.0f} TFLOPS, {comp_frac:.1f}x the {peak_tf:,.0f} TFLOPS datasheet peak"
            )
        verdict = (
            f"Above the roofline: {measured_tps:g} tokens/s per sequence is {measured_tps / roofline:.1f}x "
            f"the {roofline:,.1f} tokens/s ceiling of decoding {what} at batch {batch} — {need}. "
            "Decoding one token per step cannot be that fast on this hardware: the figure counts other "
            "tokens, another model, or several tokens per step."
        )
        suggestions = _above_roofline_checks(read, measured_tps, roofline, batch, context)
    elif not fits:
        bound = HOST_OFFLOAD
        verdict = ""
    elif bound == "memory":
        verdict = (
            f"Memory-bound: each step streams {bytes_step / 1e9:.2f} GB {per_gpu}; at {measured_tps:g} "
            f"tokens/s that is {bw_gbps:,.0f} GB/s ({bw_frac:.0%} of the {peak_bw:,.0f} GB/s peak) while "
            f"the tensor cores do {comp_frac:.1%} of their peak — low GPU 'utilisation' is expected."
        )
    elif bound == "compute":
        verdict = (
            f"Compute-bound: {tflops:,.1f} TFLOPS ({comp_frac:.0%} of {peak_tf:,.0f}) at batch {batch}; "
            "more batching no longer raises throughput much."
        )
    elif ratio >= AS_EXPECTED and est.supported:
        # as fast as the engine's own fixed costs allow: nothing to look for (offload, clocks)
        unsure = _uncalibrated_words(est)
        yardstick = (
            f"gpuscout's estimate for {eng_label} here ({expected_tps:,.1f}), {unsure}"
            if unsure
            else f"what {eng_label} usually reaches here ({expected_tps:,.1f})"
        )
        verdict = (
            f"Neither limit is near ({bw_frac:.0%} of bandwidth, {comp_frac:.1%} of compute): time goes "
            f"to the engine's fixed per-step costs (kernel launches, CPU-side scheduling), as expected — "
            f"{measured_tps:g} tokens/s is {ratio:.0%} of {yardstick}, so nothing points to a "
            "misconfiguration."
        )
    else:
        verdict = (
            f"Neither limit is near ({bw_frac:.0%} of bandwidth, {comp_frac:.1%} of compute): time goes "
            "to fixed costs — kernel launches, CPU-side scheduling, host-device transfers, or layers "
            "offloaded to the CPU."
        )
    if not est.supported:
        # the user measured something, but not this: the engine cannot run this format on this card
        # (vLLM FP8 on a V100), so "what the engine usually reaches here" is no yardstick
        verdict = (
            f"Not runnable as given — {est.unsupported_reason.rstrip('.')}. The figures below are the "
            "physics of that format on this card, not of what ran: diagnose the engine and format that "
            "produced the measurement (--engine, --precision). "
        ) + verdict
    if offload:  # before all else: it did not run from GPU memory alone
        verdict = f"{offload} {verdict}".rstrip()
    if relaid:  # the layout the figures are of, before what they say
        verdict = f"{relaid} {verdict}".rstrip()
    if variant:  # the card the figures rest on: its bandwidth, its FLOP/s, the memory the remedies fit
        verdict += f" {variant}."
    runs_as = f"{eng_label} runs {asked} as {fmt.name} on {acc.name}"
    if assumed:  # the format the figures rest on, which the user did not name
        own = (
            "the checkpoint's own format" if asked == fmt.name else f"the checkpoint's own {asked}: {runs_as}"
        )
        verdict += f" Sized for {fmt.name} weights, {own} (--precision names the one that ran)."
    elif asked != fmt.name:
        verdict += f" {runs_as}: sized for {fmt.name} weights."
    if bound == ABOVE_ROOFLINE:
        pass  # no remedies for a speed that was not reached
    elif not fits:  # only setups that hold it: offload on this card is no mistake to check for
        suggestions = fitting
    elif ratio < 0.6 and est.supported:
        unsure = _uncalibrated_words(est)
        if unsure:  # the yardstick itself is a prior here: say so before sending the user hunting
            yardstick = f"gpuscout's estimate for {eng_label} here ({expected_tps:,.1f} tokens/s), {unsure}"
        else:
            yardstick = f"what {eng_label} usually reaches here ({expected_tps:,.1f} tokens/s)"
        suggestions.append(
            f"Your speed is {ratio:.0%} of {yardstick}: "
            "check that every layer is on the GPU (no CPU offload), power/clock caps, and engine settings "
            f"({runtime.graphs}, flash attention)."
        )
    if bound not in (ABOVE_ROOFLINE, HOST_OFFLOAD):
        suggestions += _remedies(
            spec,
            acc,
            est.precision,
            engine,  # as given: its version and launch flags (an eager vLLM is priced eager)
            batch,
            gpus,
            context_in,
            expected_tps,
            physics_bound,
            runnable=est.supported,
            parallel=mode,
            measured_tps=float(measured_tps),
        )
    # the GPU's share of a step read partly from host memory is not known: no achieved figures against its
    # peaks (a figure above the roofline keeps them: what it would take)
    achieved = fits or bound == ABOVE_ROOFLINE
    return Diagnosis(
        model=spec.name,
        label=label,
        gpu=acc.name,
        gpus=gpus,
        precision=fmt.name,
        engine=eng.name,
        batch=batch,
        context=context,
        measured_tps=float(measured_tps),
        bound=bound,
        bytes_per_step=bytes_step,
        flops_per_step=flops_step,
        achieved_bandwidth_gbps=bw_gbps if achieved else None,
        peak_bandwidth_gbps=peak_bw,
        bandwidth_fraction=bw_frac if achieved else None,
        achieved_tflops=tflops if achieved else None,
        peak_tflops=peak_tf,
        compute_fraction=comp_frac if achieved else None,
        roofline_tps=roofline,
        # as estimate: no speed for a setup that does not load, nor for one the engine cannot run
        expected_tps=expected_tps if fits and est.supported else None,
        verdict=verdict,
        suggestions=suggestions,
        assumptions=est.assumptions,
        warnings=[variant] if variant else [],
        fits=fits,
        memory=est.memory,
        would_fit="" if fits else est.assumptions.get("would_fit", ""),
        pcie_ceiling_tps=pcie_tps,
    )


def _uncalibrated_words(est: Estimate) -> str:
    """Why ``est``'s speed is a prior rather than a fitted figure, in a clause ("which rests on figures
    no measurement calibrates: moe_layer_overhead_us, ..."); "" where it is calibrated."""
    uncal = est.assumptions.get("uncalibrated", "")
    if uncal:
        what = uncal.split(": not calibrated")[0]
        return f"which rests on figures no measurement calibrates ({what})"
    if not est.speed_calibrated:
        return f"which applies efficiencies fitted on other GPUs to the {est.gpu}'s datasheet"
    return ""


def _offload_verdict(
    est: Estimate, st: Setup, bytes_step: float, measured_tps: float, roofline: float
) -> tuple[str, float]:
    """What leads the diagnosis of a setup that does not fit (``est``: its estimate, which plans the
    memory), and the per-sequence tokens/s at most when the share of each step held in host memory
    crosses PCIe every step (``host_link_gbps``; taken in proportion to what is held there: what the GPUs
    lack together over the weights and cache they hold together, so a layer split whose fullest GPU alone
    overflows holds that GPU's shortfall of the whole model's step, not as much on every GPU); 0 where a
    step reads nothing."""
    m = est.memory  # per GPU (a layer split: its fullest GPU), GB: one sequence of the context
    need, usable = m.total_gb, m.usable_gb
    n = st.gpus
    layered = n > 1 and st.tp == 1  # ``bytes_step``: the whole model's, read by the GPUs in turn
    # what a step reads from, and what did not fit of it: all the GPUs' together (a tensor-parallel step
    # reads each GPU's share at once: the same proportion)
    held = m.gpus_weights_total_gb(n) + m.gpus_kv_cache_total_gb(n)
    short = m.gpus_short_total_gb(n)
    share = min(1.0, short / held) if held > 0 else 1.0
    host_b = bytes_step * share
    link_s = host_b / (host_link_gbps(st.acc) * 1e9) + (bytes_step - host_b) / (st.acc.bandwidth_gbps * 1e9)
    pcie_tps = 1.0 / link_s if link_s > 0 else 0.0
    rest = (  # weights alone too big, or the weights fit and one sequence's cache does not beside them
        "" if m.weights_gb + m.overhead_gb > usable else ", the rest one sequence's KV cache and activations"
    )
    on = "on its fullest GPU" if layered else "per GPU"
    lacked = (
        f"{gib(short):.1f} GiB in all (what the {n} GPUs of the layer split lack together)"
        if layered
        else f"{gib(short / n):.1f} GiB per GPU"
    )
    said = (
        f"Does not fit: {st.spec.name} ({st.fmt.name}) on {n} x {st.acc.name} needs "
        f"{gib(need):.1f} GiB {on} ({gib(m.weights_gb):.1f} GiB of weights{rest}), {gib(usable):.1f} GiB "
        f"usable — about {lacked} sat in host memory during the measurement "
        "(llama.cpp --n-gpu-layers, vLLM --cpu-offload-gb, accelerate offload) and is read from there "
        "each step, over PCIe or by the CPU: a speed far below the GPU's roofline "
        f"({roofline:,.1f} tokens/s, were it all on the GPU) is expected, not a fault."
    )
    if pcie_tps <= 0:  # nothing read per step: no bound to state
        return said, 0.0
    said += (
        f" Copying the {host_b / 1e9:,.1f} GB of each step held there over PCIe ({host_link_gbps(st.acc):g} "
        f"GB/s, Gen{host_pcie_generation(st.acc)} x16) allows at most {pcie_tps:,.2f} tokens/s"
    )
    if measured_tps > roofline:  # the roofline's verdict follows: no reading of an impossible figure
        said += "."
    elif measured_tps > pcie_tps * 1.05:
        said += (
            f"; {measured_tps:g} tokens/s is more, so the layers held there ran on the CPU (llama.cpp), "
            "bound by the host's memory bandwidth, which gpuscout does not know."
        )
    else:
        said += f"; {measured_tps:g} tokens/s is within that."
    return said, pcie_tps


def _tps_text(tps: float) -> str:
    """Tokens/s in words: two figures below 10 (0.21, 5.0), whole above (28, 1,250), never an exponent."""
    return f"{tps:,.0f}" if tps >= 10 else f"{tps:.1f}" if tps >= 1 else f"{tps:.2f}"


def _priced(
    spec: ModelSpec,
    gpu: str | Accelerator,
    gpus: int,
    precision: str,
    engine: str,
    batch: int,
    context: int,
    parallel: str | None = None,
) -> tuple[float, float, bool, Estimate] | None:
    """(tokens/s per sequence, in total, whether ``batch`` sequences fit, the estimate) of a plain decode
    step at ``batch`` sequences of ``context`` tokens on ``gpus`` x ``gpu``, as the diagnosis's own figure
    is timed (:func:`decode_step`), never a served load's (whose steps carry other requests' prompts);
    ``parallel`` the split (None: the engine's own); None where the estimator refuses it or the engine
    cannot run it (FP8 on a V100)."""
    try:
        e = estimate(
            spec, gpu, gpus=gpus, precision=precision, engine=engine, batch=1, context_in=context,
            context_out=1, parallel=parallel,
        )  # fmt: skip
    except GpuscoutError:
        return None
    if not e.supported:  # never a remedy the engine cannot run
        return None
    eng = resolve_engine(engine)
    mode = parallel_mode(parallel, eng)  # the precision as the estimate resolved it (fp8-block for fp8 on V3)
    st = setup_as_run(spec, resolve_gpu_arg(gpu), gpus, e.precision, e.kv_dtype, eng, mode, context + 1)
    per_seq = 1.0 / decode_step(st, batch, context).total
    return per_seq, per_seq * batch, e.fits and e.max_batch >= batch, e


def _fitting_setups(
    spec: ModelSpec,
    acc: Accelerator,
    est: Estimate,
    precision: str,
    engine: str,
    batch: int,
    gpus: int,
    context: int,
    parallel: str,
) -> list[str]:
    """Where ``est`` (on ``gpus`` x ``acc``, split as ``parallel``) does not fit: the setups that hold the
    ``batch`` sequences measured, priced as the diagnosis times its own step: those ``estimate``'s
    would-fit names (more of these GPUs, or a narrower format on them: each sized for one sequence, split
    as ``est``), then each card with faster memory that holds ``precision`` (the format asked, as that
    card runs it, named as the would-fit names it) on the fewest of ``CARD_COUNTS`` (no more than
    ``gpus``, the engine's own split) that holds them, the count said per card."""
    out: list[str] = []
    for option in est.fit_options:  # the would-fit's setups, as records: all on ``acc``
        started = with_flags(engine, option.flags)  # the option's flags, in place of the same flags asked
        res = _priced(spec, acc, option.gpus, option.format, started, batch, context, parallel)
        if res and res[2]:  # the batch measured, as the card below: not one sequence only
            out.append(f"Fits: {option.text} — ~{_tps_text(res[0])} tokens/s per sequence (estimated).")
    bigger = []
    for name in FASTER_MEMORY_GPUS:
        if name == acc.name:
            continue  # the card measured on
        for n in (k for k in CARD_COUNTS if k <= gpus):
            res = _priced(spec, name, n, precision, engine, batch, context)
            if res and res[2]:  # the fewest that hold the batch measured
                bigger.append(f"{n} x {name} ~{_tps_text(res[0])}")
                break
    if bigger:
        # the format as the engine names it ("gguf-q4_k_m" for "q4_k_m"), as the would-fit setups do
        named = _engine_format(resolve_precision(precision), resolve_engine(engine), []).name
        out.append(
            f"Fits: {named} on cards with the memory to hold it — "
            + ", ".join(bigger)
            + " tokens/s per sequence (estimated)."
        )
    return out


def _roofline_tps(st: Setup, batch: int, context: int) -> float:
    """Per-sequence decode tokens/s at 100 % of peak bandwidth and compute, ``batch`` sequences."""
    spec, tp = st.spec, st.tp
    c = model_consts(spec)
    dense_b, expert_b = step_weight_bytes(st, batch)
    seq_b = kv_read_bytes_per_step(spec, st.kv, context, tp=tp) + linear_state_step_bytes(
        spec, st.kv, st.engine.name, tp=tp
    )
    bytes_step = dense_b + expert_b + seq_b * batch
    flops = (2.0 * (c.active_body + _head_params(spec)) + _attn_flops_per_token(spec, context)) * batch / tp
    t_mem = bytes_step / (st.acc.bandwidth_gbps * 1e9)
    t_comp = flops / (st.peak_tflops * 1e12)
    return 1.0 / max(t_mem, t_comp)


def _above_roofline_checks(
    st: Setup, measured_tps: float, roofline: float, batch: int, context: int
) -> list[str]:
    """What a figure above the roofline more likely measured, with the numbers that tell them apart."""
    out: list[str] = []
    # the total of a batch: the fewest sequences whose combined ceiling reaches the figure
    # (b x roofline(b) grows with b: the weights read serve every sequence)
    lo, hi = batch + 1, MAX_BATCH_SEARCHED
    if hi * _roofline_tps(st, hi, context) >= measured_tps:
        while lo < hi:
            mid = (lo + hi) // 2
            if mid * _roofline_tps(st, mid, context) >= measured_tps:
                hi = mid
            else:
                lo = mid + 1
        out.append(
            f"Total throughput of a batch? {measured_tps:g} tokens/s summed over {lo} or more sequences is "
            f"within the ceiling ({measured_tps / lo:,.1f} per sequence at batch {lo}); diagnose the "
            "per-sequence figure with the batch it ran at (--batch)."
        )
    else:
        out.append(
            f"Not even the total of {MAX_BATCH_SEARCHED} sequences at once reaches {measured_tps:g} "
            "tokens/s here."
        )
    out.append(
        f"A smaller or quantised model? The ceiling is for {st.spec.name} with {st.fmt.label} weights; "
        "diagnose the checkpoint that ran (--precision, e.g. a 4-bit GGUF or AWQ)."
    )
    times = measured_tps / roofline
    spec_note = (
        f"{times:.1f}x is within what long accepted drafts give"
        if times <= SPECULATIVE_MAX_TOKENS_PER_STEP
        else f"{times:.1f}x is more than speculation gives (rarely above {SPECULATIVE_MAX_TOKENS_PER_STEP:g} "
        "tokens per step)"
    )
    out.append(
        "Speculative decoding (draft model, EAGLE, MTP, n-gram) emits several tokens per weight read: "
        + spec_note
        + "."
    )
    out.append(
        "Prompt tokens counted in? A benchmark's total token throughput adds the prefill's tokens, "
        "which run far faster than decode."
    )
    return out


def _as_read(st: Setup) -> Setup:
    """``st`` as its weights are read: a weight-only checkpoint that the estimate times as its 16-bit one
    (``Setup.timed_as``: its kernels here uncalibrated, its byte saving not credited to the speed) still
    holds and reads its own narrow weights, so the roofline (a physical ceiling) and the bandwidth a
    measured speed implies count those, not the 16-bit checkpoint's."""
    if st.timed_as is None:
        return st
    return Setup(st.spec, st.acc, st.fmt, st.kv, st.engine, st.gpus, st.parallel)


def _remedies(
    spec: ModelSpec,
    acc: Accelerator,
    precision: str,
    engine: str,
    batch: int,
    gpus: int,
    context: int,
    base_tps: float,
    bound: str,
    *,
    runnable: bool = True,
    parallel: str | None = None,
    measured_tps: float | None = None,
) -> list[str]:
    """The usual remedies priced with the estimator, split as ``parallel`` (None: the engine's own);
    ``runnable`` False (the engine cannot run this format on this card) drops those priced from the
    unrunnable speed (speculative decoding's gain).

    A remedy is offered only where it beats what the user has: ``measured_tps`` where it is above the
    estimate (``base_tps``), so an "int4: ~138 tokens/s" is no remedy for a measured 180, and
    speculative decoding's gain multiplies the speed measured, not the estimate."""
    out: list[str] = []
    have = max(base_tps, measured_tps or 0.0)  # the speed a remedy must beat
    now = measured_tps or base_tps  # the speed a remedy's gain multiplies

    def tps(
        *, gpu: str | Accelerator = acc, precision: str = precision, batch: int = batch
    ) -> tuple[float, float, bool] | None:
        """(tokens/s per sequence, in total, whether ``batch`` sequences fit): :func:`_priced`."""
        res = _priced(spec, gpu, gpus, precision, engine, batch, context, parallel)
        return None if res is None else res[:3]

    profile = resolve_engine(engine)
    if bound == "memory":
        faster = []
        for name in FASTER_MEMORY_GPUS:
            if name == acc.name:
                continue  # the card measured on
            res = tps(gpu=name)
            if res and res[2] and res[0] > have * 1.2:
                faster.append(f"{name} ~{res[0]:,.0f}")
        if faster:
            out.append("Faster memory (HBM): " + ", ".join(faster) + " tokens/s per sequence (estimated).")
        quant = ("gguf-q4_k_m", "gguf-q8_0") if profile.name == "llama.cpp" else ("fp8", "int4")
        for q in quant:
            if q == precision:
                continue
            res = tps(precision=q)
            if res and res[0] > have * 1.1:
                out.append(f"Quantise to {q}: ~{res[0]:,.0f} tokens/s per sequence (fewer bytes per step).")
        if profile.name != "llama.cpp":
            # a dense model's step reads its weights once for the whole batch; an MoE's tokens route to
            # different experts, so a bigger batch reads more of them (each read still serves several)
            shared = (
                "each expert read serves the sequences routed to it, though a bigger batch reads more experts"
                if spec.is_moe
                else "the weights read serve every sequence"
            )
            cap = profile.max_num_seqs  # the engine's cap on sequences run at once
            for b in (8, 32):
                if b <= batch or (cap and b > cap):
                    continue
                res = tps(batch=b)
                if res and res[2] and res[1] > have * batch * 1.1:
                    out.append(
                        f"Batch {b} requests together: ~{res[1]:,.0f} tokens/s generated in total "
                        f"({res[0]:,.0f} per sequence) — {shared}."
                    )
        if batch <= 4 and runnable:
            lo, hi = SPECULATIVE_SPEEDUP
            out.append(
                f"Speculative decoding (draft model / EAGLE / n-gram): typically {lo:g}-{hi:g}x at batch 1, "
                f"i.e. ~{now * lo:,.0f}-{now * hi:,.0f} tokens/s, when the draft is accepted often."
            )
    else:
        out.append(
            "Compute-bound: a GPU with more tensor TFLOPS, FP8 on Hopper/Ada/Blackwell, or tensor "
            "parallelism over more GPUs raises throughput; larger batches will not."
        )
    return out
