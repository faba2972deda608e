"""Speech-to-text with Whisper: memory and real-time factor (audio seconds per wall-clock second).

Whisper cuts audio into 30 s windows. Each window costs:

- the encoder, compute-bound: ``2 x encoder params x 1500 frames`` + self-attention
  ``4 x d_model x 1500^2`` per layer (+ the two input convolutions);
- the decoder, one step per output token (~3 tokens per second of English speech, + 4 special
  tokens per window), bandwidth-bound at small batch: each step reads the decoder weights once for
  the whole batch, and per window its cross-attention keys/values (``2 x layers x 1500 x d_model``)
  and its own short KV cache; plus a fixed per-step cost of the engine's decode loop (kernel launches,
  Python), which dominates on fast GPUs.

Engine priors (NOT calibrated: the calibration CSV has no speech rows): HF ``transformers``
generate in eager mode ~20 ms per decoder step (about 30 layers x 40 kernels at ~15 us launch and
Python cost); ``faster-whisper`` (CTranslate2, fused C++ loop) ~4 ms. Both reach 60 % of the peak
memory bandwidth and 40 % of the tensor peak their matmuls run at: the 16-bit one (a GPU without bf16,
T4 or V100, runs bf16 as fp16: a warning), FP32 for fp32, and for faster-whisper's int8 (CTranslate2's
int8 GEMMs) the INT8 one where the accelerator table has it (else the 16-bit one, said so).

Parameter split of the registry row (Whisper large-v3, 1.55B): encoder 0.637B, decoder 0.906B
(token embedding tied with the output projection), both counted from d_model 1280, 32 + 32 layers,
FFN 5120, vocabulary 51866.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gpuscout.errors import InvalidInputError, WrongModelKind, fold_name
from gpuscout.estimate.arguments import int_in, other_face, resolve_gpu_arg, resolve_model_arg
from gpuscout.estimate.memory import capacity_bytes
from gpuscout.estimate.precision import ComputeRate, compute_rate, resolve_precision
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.wording import plural

GB = 1e9
WINDOW_S = 30.0
FRAMES = 1500  # encoder positions per 30 s window
SPECIAL_TOKENS = 4  # start-of-transcript, language, task, no-timestamps / end
BANDWIDTH_EFFICIENCY = 0.6
COMPUTE_EFFICIENCY = 0.4
CUDA_CONTEXT_GB = 0.5
STEP_OVERHEAD_S = {"transformers": 0.020, "faster-whisper": 0.004}
PRECISIONS = ("fp16", "bf16", "fp32", "int8")


@dataclass(frozen=True, slots=True)
class TranscriptionEstimate:
    model: str
    gpu: str
    engine: str
    precision: str
    batch: int  # 30 s windows decoded together
    fits: bool
    memory: MemoryBreakdown
    realtime_factor: float  # seconds of audio transcribed per wall-clock second
    seconds: float  # wall-clock seconds for ``audio_s``
    bound: str  # "memory", "compute" or "overhead" (what dominates a decoder step)
    encoder_params: int
    decoder_params: int
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _whisper_shape(spec: ModelSpec) -> tuple[int, int, int, int]:
    """(d_model, layers per stack, ffn width, vocab) of a Whisper row."""
    accepted = "whisper-large-v3 (and other Whisper rows)"
    wanted = "a Whisper speech model"
    if spec.kind != "audio":
        raise WrongModelKind(spec.name, spec.kind, wanted, other_face(spec.name, spec.kind, wanted), accepted)
    if "whisper" not in spec.family.lower() or spec.hidden_size <= 0:
        raise InvalidInputError("model", f"{spec.name} is not a Whisper speech model", accepted=accepted)
    return spec.hidden_size, spec.num_hidden_layers, spec.intermediate_size, spec.vocab_size


def _matmul_rate(prec: str, engine: str, acc: Accelerator) -> tuple[ComputeRate, str]:
    """The peak the encoder's and decoder's matmuls run at, and what it is in words.

    fp16 / bf16 at the 16-bit tensor rate (a part without bf16 runs bf16 as fp16: its note becomes a
    warning); fp32 at the FP32 rate (TF32 off). int8 with faster-whisper runs CTranslate2's int8 GEMMs
    (int8 weights x int8-quantised activations) at the part's INT8 tensor rate where the table has one,
    else at the 16-bit rate, said so; with transformers the int8 weights are dequantised for 16-bit
    matmuls. The words are for int8 only ("" otherwise: the engine's assumption names the rate)."""
    if prec == "int8" and engine == "faster-whisper":
        int8 = compute_rate(resolve_precision("w8a8"), acc)
        if int8.native and int8.known:
            return (
                int8,
                f"int8 GEMMs (CTranslate2) at the {acc.name}'s INT8 tensor rate, {int8.tflops:g} TOPS",
            )
        rate = compute_rate(resolve_precision("fp16"), acc)
        return rate, (
            f"int8: no INT8 tensor rate for the {acc.name} in the table, so the matmuls are taken at the "
            f"16-bit rate ({rate.tflops:g} TFLOPS), an assumption"
        )
    if prec == "int8":
        rate = compute_rate(resolve_precision("fp16"), acc)
        return rate, f"int8 weights dequantised for fp16 matmuls at the 16-bit rate, {rate.tflops:g} TFLOPS"
    rate = compute_rate(resolve_precision(prec), acc, tf32=False)
    return rate, ""


def estimate_transcription(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    audio_s: float = 3600.0,
    batch: int = 1,
    precision: str = "fp16",
    engine: str = "transformers",
    tokens_per_audio_s: float = 3.0,
) -> TranscriptionEstimate:
    """Real-time factor and memory of transcribing ``audio_s`` seconds with ``batch`` windows at once."""
    spec, acc = resolve_model_arg(model), resolve_gpu_arg(gpu)
    d, layers, ffn, vocab = _whisper_shape(spec)
    if isinstance(audio_s, bool) or not isinstance(audio_s, int | float) or not 0 < audio_s <= 1e8:
        raise InvalidInputError(
            "audio_s", f"must be a positive number of seconds, got {audio_s!r}", accepted="> 0, <= 1e8"
        )
    batch = int_in("batch", batch, 1, 1024)  # 2.0 is 2, 2.5 an error naming the field
    if (
        isinstance(tokens_per_audio_s, bool)
        or not isinstance(tokens_per_audio_s, int | float)
        or not 0 < tokens_per_audio_s <= 50
    ):
        raise InvalidInputError("tokens_per_audio_s", f"got {tokens_per_audio_s!r}", accepted="> 0, <= 50")
    key = fold_name(engine).strip().lower() if isinstance(engine, str) else ""
    if key not in STEP_OVERHEAD_S:
        raise InvalidInputError(
            "engine", f"unknown speech engine {engine!r}", accepted=", ".join(STEP_OVERHEAD_S)
        )
    prec = precision.strip().lower() if isinstance(precision, str) else ""
    if prec not in PRECISIONS:
        raise InvalidInputError(
            "precision", f"unsupported precision {precision!r}", accepted=", ".join(PRECISIONS)
        )

    layer_attn = 4 * d * d
    enc_params = layers * (layer_attn + 2 * d * ffn) + 2 * 3 * 128 * d + 3 * d * d
    dec_params = layers * (2 * layer_attn + 2 * d * ffn) + vocab * d
    w_bytes = {"fp16": 2.0, "bf16": 2.0, "fp32": 4.0, "int8": 1.0}[prec]
    act_bytes = 4.0 if prec == "fp32" else 2.0
    # PyTorch (transformers) leaves TF32 matmuls off by default; CTranslate2's fp32 is taken the same
    rate, rate_note = _matmul_rate(prec, key, acc)
    flops_rate = rate.tflops * 1e12 * COMPUTE_EFFICIENCY
    bw = acc.bandwidth_gbps * GB * BANDWIDTH_EFFICIENCY

    windows = math.ceil(audio_s / WINDOW_S)
    steps_per_window = math.ceil(min(audio_s, WINDOW_S) * tokens_per_audio_s) + SPECIAL_TOKENS
    asked = batch
    batch = min(batch, windows)  # no more windows run together than the audio has
    enc_flops = 2.0 * enc_params * FRAMES + layers * 4.0 * d * FRAMES**2
    cross_kv = 2.0 * layers * FRAMES * d * act_bytes  # per window, read every step
    self_kv = 2.0 * layers * steps_per_window * d * act_bytes
    overhead_s = STEP_OVERHEAD_S[key]

    def round_s(b: int) -> tuple[float, float, float]:
        """(seconds, decoder read s, decoder compute s per step) for a round of ``b`` windows."""
        read = (dec_params * w_bytes + b * (cross_kv + self_kv)) / bw
        compute = b * (2.0 * dec_params + layers * 4.0 * d * (FRAMES + steps_per_window)) / flops_rate
        per_round = b * enc_flops / flops_rate + steps_per_window * (max(read, compute) + overhead_s)
        return per_round, read, compute

    batch_s, read_s, compute_s = round_s(batch)
    work_bound = "memory" if read_s >= compute_s else "compute"
    bound = "overhead" if overhead_s > max(read_s, compute_s) else work_bound
    # full rounds of ``batch`` windows, then the windows left over in a round of their own size
    full, left = divmod(windows, batch)
    seconds = full * batch_s + (round_s(left)[0] if left else 0.0)
    rtf = audio_s / seconds

    weights = (enc_params + dec_params) * w_bytes
    acts = batch * (FRAMES * 4 * ffn * act_bytes + cross_kv + self_kv)
    overhead = CUDA_CONTEXT_GB * GB + 0.1 * acts
    capacity = capacity_bytes(acc)
    fits = weights + acts + overhead <= capacity
    warnings = ["speech estimates are uncalibrated priors (no measured rows yet)"]
    if rate.warning:
        warnings.append(rate.warning)
    if not fits:
        need = (weights + acts + overhead) / GB
        warnings.append(f"needs {need:.1f} GB, the GPU has {capacity / GB:.1f} GB")
    if prec == "int8" and key == "transformers":
        warnings.append(
            "int8 Whisper is a faster-whisper (CTranslate2) feature; transformers runs it dequantised"
        )
    memory = MemoryBreakdown(
        weights_gb=weights / GB,
        kv_cache_gb=batch * (cross_kv + self_kv) / GB,
        activations_gb=batch * FRAMES * 4 * ffn * act_bytes / GB,
        overhead_gb=overhead / GB,
        usable_gb=capacity / GB,
        capacity_gb=capacity / GB,
    )
    assumptions = {
        "windows": f"{windows:,} x 30 s {plural(windows, 'window')}, {batch:,} at a time"
        + (f" (batch {asked} asked: only {windows:,} {plural(windows, 'window')})" if asked > batch else "")
        + f", {steps_per_window} decoder steps each "
        f"({tokens_per_audio_s:g} tokens per audio second)",
        "parameters": f"encoder {enc_params / 1e9:.3f}B, decoder {dec_params / 1e9:.3f}B",
        "engine": f"{key}: {overhead_s * 1e3:g} ms fixed per decoder step, {BANDWIDTH_EFFICIENCY:.0%} of "
        f"{acc.bandwidth_gbps:g} GB/s, {COMPUTE_EFFICIENCY:.0%} of {rate.tflops:g} "
        f"{'TOPS' if rate.rate_name == 'int8' else 'TFLOPS'} (priors)",
    }
    if rate_note:
        assumptions["matmuls"] = rate_note
    return TranscriptionEstimate(
        model=spec.name,
        gpu=acc.name,
        engine=key,
        precision=prec,
        batch=batch,
        fits=fits,
        memory=memory,
        realtime_factor=rtf,
        seconds=seconds,
        bound=bound,
        encoder_params=enc_params,
        decoder_params=dec_params,
        assumptions=assumptions,
        warnings=warnings,
    )
