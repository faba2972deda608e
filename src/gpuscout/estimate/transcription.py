"""Speech-to-text with Whisper: memory and speed on one GPU.

Speed is RTFx, seconds of audio transcribed per wall-clock second (``realtime_factor``; 100 = an hour of
audio in 36 s). The usual ASR real-time factor, RTF, is its inverse (``rtf``: wall-clock seconds per
second of audio, < 1 faster than real time); the estimate carries both so neither can be misread.

How each engine cuts the audio and decodes it (its documented defaults):

- ``transformers``: the ASR pipeline with ``chunk_length_s=30`` and ``batch_size=N`` (how long audio is
  batched there; insanely-fast-whisper runs it so). ``stride_length_s`` defaults to ``chunk_length_s / 6``
  on each side (``AutomaticSpeechRecognitionPipeline.preprocess`` and ``chunk_iter``,
  https://github.com/huggingface/transformers/blob/main/src/transformers/pipelines/automatic_speech_recognition.py),
  so each 30 s chunk advances 20 s: ``1 + ceil((T - 30) / 20)`` chunks, 1.5x the encoder passes and the
  decoder tokens of ``T / 30`` windows. Greedy: ``num_beams`` defaults to 1 (``GenerationConfig``,
  https://github.com/huggingface/transformers/blob/main/src/transformers/generation/configuration_utils.py).
- ``faster-whisper``: ``WhisperModel.transcribe`` (batch 1: one 30 s window after another) or
  ``BatchedInferencePipeline.transcribe(batch_size=N)`` (VAD chunks of at most 30 s), no overlap; both
  default to ``beam_size=5``
  (https://github.com/SYSTRAN/faster-whisper/blob/master/faster_whisper/transcribe.py).

Shape (whisper-large-v3 ``config.json``, https://huggingface.co/openai/whisper-large-v3/blob/main/config.json):
32 encoder and 32 decoder layers, d_model 1280, FFN 5120, vocabulary 51866, 128 mel bins, and 1500 encoder
frames per 30 s window (``max_source_positions``: 3000 mel frames, 10 ms hop, halved by the stride-2
convolution). Parameter split of the registry row (1.55B): encoder 0.637B, decoder 0.906B (token embedding
tied with the output projection), counted from those figures.

Each window costs, in turn:

1. the host: its log-mel features on the CPU (a 400-point STFT every 10 ms, power, a 128 x 201 filterbank,
   log: :data:`LOGMEL_FLOPS`) and the engine's per-chunk Python work. Serial with the GPU: the pipeline
   preprocesses in its own process between batches (``num_workers`` 0), faster-whisper before decoding;
2. the encoder, compute-bound: ``2 x encoder params x 1500 frames`` + self-attention ``4 x d_model x
   1500^2`` per layer (+ the two input convolutions);
3. the decoder, one step per output token (~3 tokens per second of English speech + 4 special tokens per
   window) for the whole batch. transformers: on the GPU a step reads the decoder weights once, and per
   decoder row (a window times its beams) the cross-attention keys/values (``2 x layers x 1500 x d_model``)
   and its own short KV cache; beam search ``index_select``s both the self- and the cross-attention cache
   every step (``EncoderDecoderCache.reorder_cache``, read + write). On the host a step launches every
   layer's kernels from Python (``generate``'s per-step work and
   :data:`~gpuscout.estimate.engines.EAGER_LAYER_LAUNCH_US`, both calibrated on the LLM rows of the same
   loop, scaled to a Whisper layer's kernels); the launches run ahead of the GPU until the step's token
   comes back to the host, so the two overlap (the p-norm of ``estimate.throughput``). faster-whisper
   (CTranslate2): a step is a chain of ~1,100 small kernels, each costing at least a fitted floor, the
   weight GEMMs their bytes where more; a window's beams share the encoder's keys/values
   (:mod:`gpuscout.estimate.ctranslate2_step`).

Where each engine runs at all is judged first (``knowledge/data/workload_support.csv``): transformers on
PyTorch's platforms (the ``diffusers`` and training rows' facts: no Kepler, PyTorch/XLA on a TPU),
faster-whisper on CTranslate2's (CPU and NVIDIA CUDA; float16 on compute capability 7.0+, int8 6.1+,
bfloat16 8.0+). A refusal gives ``supported`` False, the reason and what would run, and no speed.

Speed priors: faster-whisper's one free constant, CTranslate2's per-kernel floor, is fitted on four recalled
faster-whisper README figures (batch 1, NVIDIA only; ``benchmarks/accuracy_speech.py``, which also checks
the two batch-8 figures held out and the transformers one); the rest are priors: matmuls at 40 % of the tensor
peak their precision runs at (the 16-bit one; a GPU without bf16, T4 or V100, runs bf16 as fp16: a
warning; FP32 for fp32; for faster-whisper's int8, CTranslate2's int8 GEMMs, the INT8 one where the
accelerator table has it, else the 16-bit one, said so), weight and cache reads at 60 % of the memory
bandwidth. int8 under transformers is bitsandbytes' LLM.int8(), slower than fp16: the GPU work of its
forward passes is timed as fp16's x :data:`LLM_INT8_SLOWDOWN` (recalled, a warning says so; the host's is
not). Not modelled: timestamp tokens and the ``WhisperTimeStampLogitsProcessor``'s per-row loop
(``return_timestamps=True``), a batch waiting for its longest window (or a hallucination loop to 448
tokens), temperature fallback re-decodes, faster-whisper re-decoding a window's cut last segment, and
decoding the audio file (ffmpeg).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gpuscout.errors import InvalidInputError, WrongModelKind, fold_name, quoted_value
from gpuscout.estimate import ctranslate2_step as ct2
from gpuscout.estimate.arguments import (
    int_in,
    other_face,
    refuse_blank_model,
    resolve_gpu_arg,
    resolve_model_arg,
)
from gpuscout.estimate.engines import EAGER_LAYER_LAUNCH_US, resolve_engine
from gpuscout.estimate.memory import capacity_bytes, gib
from gpuscout.estimate.precision import ComputeRate, compute_rate, resolve_precision
from gpuscout.estimate.throughput import BLEND_P
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import as_software_sees
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.workload_support import check_workload
from gpuscout.wording import plural

GB = 1e9
WINDOW_S = 30.0
FRAMES = 1500  # encoder positions per 30 s window (config.json max_source_positions)
SPECIAL_TOKENS = 4  # start-of-transcript, language, task, no-timestamps / end
BANDWIDTH_EFFICIENCY = 0.6
COMPUTE_EFFICIENCY = 0.4
CUDA_CONTEXT_GB = 0.5
ENGINES = ("transformers", "faster-whisper")
#: The platform rules (``knowledge/data/workload_support.csv``) each engine's verdict comes from.
SPEECH_WORKLOADS = {"transformers": "transformers-speech", "faster-whisper": "faster-whisper"}
PRECISIONS = ("fp16", "bf16", "fp32", "int8")
MAX_BEAM = 32

# (1) chunk overlap. transformers' ASR pipeline: ``stride_length_s = chunk_length_s / 6`` on each side
# when not given (AutomaticSpeechRecognitionPipeline.preprocess; chunk_iter steps by chunk_len - left -
# right), https://github.com/huggingface/transformers/blob/main/src/transformers/pipelines/automatic_speech_recognition.py
STRIDE_FRACTION = 1.0 / 6.0
CHUNK_ADVANCE_S = {
    "transformers": WINDOW_S * (1.0 - 2.0 * STRIDE_FRACTION),  # 20 s
    "faster-whisper": WINDOW_S,  # seek / VAD chunks: no overlap
}

# (2) decoding. faster-whisper: ``beam_size: int = 5`` in WhisperModel.transcribe and
# BatchedInferencePipeline.transcribe, https://github.com/SYSTRAN/faster-whisper/blob/master/faster_whisper/transcribe.py;
# transformers: GenerationConfig ``num_beams=1`` (whisper-large-v3's generation_config.json sets none),
# https://github.com/huggingface/transformers/blob/main/src/transformers/generation/configuration_utils.py
DEFAULT_BEAM = {"transformers": 1, "faster-whisper": 5}

# (3) the host's share of a window, serial with the GPU. Log-mel (WhisperFeatureExtractor / faster-whisper's
# FeatureExtractor: n_fft 400, hop 160 at 16 kHz, 128 mel bins): 3000 frames of a windowed 400-point real
# FFT (~2.5 N log2 N flops) and power, the 128 x 201 filterbank matmul, and log10 / clamp / scale.
N_FFT = 400
MEL_FRAMES = 3000
MEL_BINS = 128
FFT_BINS = N_FFT // 2 + 1
LOGMEL_FLOPS = (
    MEL_FRAMES * (2.5 * N_FFT * math.log2(N_FFT) + N_FFT + 3 * FFT_BINS)
    + 2.0 * MEL_BINS * FFT_BINS * MEL_FRAMES
    + 10.0 * MEL_BINS * MEL_FRAMES
)  # ~0.19 GFLOP per 30 s window
HOST_GFLOPS = 10.0  # achieved by torch.stft / numpy FFT + BLAS filterbank on the host (prior)
# the rest of a chunk's Python work: the pipeline's padding to 3000 frames, tensor conversion, collation
# and stitching of the chunks' tokens; faster-whisper's per-window loop (segments, text, compression
# ratio). A prior.
WINDOW_HOST_S = 0.002

# (4) a decoder step's host time. transformers: generate()'s per-step work (logits processors, stopping
# criteria, cache bookkeeping) and the eager launches of every layer, from the HF transformers profile
# calibrated on LLM rows of the same loop. EAGER_LAYER_LAUNCH_US is an HF Llama-style layer's launches,
# ~42 kernels (two RMSNorms of 8 elementwise ops, q/k/v/o, 2 x 5 RoPE ops, 2 cache concatenations, SDPA,
# a head merge, gate/up/down, SiLU, multiply, 2 residual adds); a Whisper decoder layer launches 21
# (modeling_whisper.py WhisperDecoderLayer with SDPA: 3 LayerNorms; self-attention q_proj, scaling,
# k_proj, v_proj, 2 cache concatenations, SDPA, out_proj; cross-attention q_proj, scaling, SDPA,
# out_proj, its keys/values cached; fc1, GELU, fc2; 3 residual adds)
LLAMA_LAYER_KERNELS = 42
WHISPER_LAYER_KERNELS = 21
# beam search, per layer and step: transformers index_selects the keys and values of both caches; per step
# the beam bookkeeping (scores, top-k over beams x vocabulary, gathers): ~40 kernels from Python (priors).
# CTranslate2's step, kernel by kernel: gpuscout.estimate.ctranslate2_step
BEAM_LAYER_KERNELS = 4
BEAM_STEP_KERNELS = 40
# cache bytes transformers' beam reorder reads and writes per row and step, in units of (cross, self) caches
BEAM_REORDER = (2.0, 2.0)

# (5) int8 under transformers is bitsandbytes' LLM.int8() (``load_in_8bit``): int8 weights (memory halved),
# each matmul quantising its input row-wise, splitting off the outlier columns to an fp16 matmul and
# dequantising the int32 output: slower than fp16, not faster. "15-23% slower than fp16" for BLOOM-176B
# (the Hugging Face blog on LLM.int8(), Aug 2022; recalled), and more on small matrices such as Whisper's
# (d_model 1280; the LLM.int8() paper's own timings, recalled). No speech row measures it: the model's
# forward passes' GPU work is timed as fp16's times this factor, the low end of that range (the host's
# launch and log-mel work are not slowed), so the speed is below fp16's (uncalibrated, said so). Fast int8
# Whisper is faster-whisper's (CTranslate2).
LLM_INT8_SLOWDOWN = 1.15


@dataclass(frozen=True, slots=True)
class TranscriptionEstimate:
    model: str
    gpu: str
    engine: str
    precision: str
    batch: int  # 30 s windows decoded together
    fits: bool
    memory: MemoryBreakdown
    # RTFx: seconds of audio transcribed per wall-clock second (100: an hour of audio in 36 s); None where
    # the engine cannot run on this accelerator in this precision (``supported`` False: no speed)
    realtime_factor: float | None
    seconds: float | None  # wall-clock seconds for ``audio_s`` (None: not supported)
    bound: str  # "memory", "compute" or "overhead" (what dominates a decoder step)
    encoder_params: int
    decoder_params: int
    beam: int  # 1: greedy; N: beam search, N decoder rows per window
    windows: int  # 30 s windows (chunks) run, the overlap of transformers' strides counted
    decoder_step_s: float  # one decoder step of a full batch, host and GPU overlapped
    decoder_step_gb: float  # GB a decoder step of a full batch reads and writes (weights, caches, reorder)
    # where ``seconds`` goes: the host's per-window work (log-mel, Python), the encoder, the decoder steps
    host_s: float
    encoder_s: float
    decoder_s: float
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # whether the engine runs on this accelerator in this precision at all (the platform rules,
    # ``knowledge.workload_support``); where not, ``unsupported_reason`` says why,
    # ``assumptions["alternatives"]`` what would run, and ``realtime_factor`` and ``seconds`` are None
    supported: bool = True
    unsupported_reason: str = ""

    @property
    def rtf(self) -> float | None:
        """The usual ASR real-time factor, RTFx's inverse: wall-clock seconds per second of audio (< 1:
        faster than real time); None where the engine cannot run here (no speed)."""
        return None if self.realtime_factor is None else 1.0 / self.realtime_factor


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
    else at the 16-bit rate, said so; with transformers int8 is bitsandbytes' LLM.int8(), timed as the
    fp16 work times :data:`LLM_INT8_SLOWDOWN`. The words are for int8 only ("" otherwise: the engine's
    assumption names the rate)."""
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
        return rate, (
            f"int8 is bitsandbytes' LLM.int8() in transformers: timed as the fp16 work (16-bit rate, "
            f"{rate.tflops:g} TFLOPS, 16-bit weight reads) x {LLM_INT8_SLOWDOWN:g}, its matmuls slower than "
            "fp16's (recalled, uncalibrated)"
        )
    rate = compute_rate(resolve_precision(prec), acc, tf32=False)
    return rate, ""


def chunk_count(audio_s: float, engine: str) -> int:
    """30 s windows the engine runs over ``audio_s`` seconds: transformers' chunks start every 20 s
    (``chunk_iter``: the last one is the first to reach the end), faster-whisper's every 30 s."""
    if audio_s <= WINDOW_S:
        return 1
    return 1 + math.ceil((audio_s - WINDOW_S) / CHUNK_ADVANCE_S[engine] - 1e-9)


def step_host_seconds(engine: str, layers: int, beam: int, *, int8: bool = False) -> float:
    """Fixed cost of one decoder step whatever its bytes. transformers: the host's per-step work and every
    layer's kernel launches from Python (more with beam search: the cache reorder and the beam
    bookkeeping). faster-whisper: every kernel of the step at CTranslate2's per-kernel floor (``int8``:
    its quantise kernels too), the step's time where no kernel moves more than the floor's worth."""
    if engine == "transformers":
        beam_layer = BEAM_LAYER_KERNELS if beam > 1 else 0
        beam_step = BEAM_STEP_KERNELS if beam > 1 else 0
        hf = resolve_engine("hf-transformers")
        kernel_s = EAGER_LAYER_LAUNCH_US * 1e-6 / LLAMA_LAYER_KERNELS
        kernels = layers * (WHISPER_LAYER_KERNELS + beam_layer) + beam_step
        return hf.step_overhead_us * 1e-6 + kernels * kernel_s
    return ct2.kernel_count(layers, beam, int8) * ct2.CT2_KERNEL_FLOOR_S


def _overlap(gpu: float, host: float) -> float:
    """A step whose host launches run ahead of the GPU until its token is read back: about the larger of
    the two (the p-norm :func:`gpuscout.estimate.throughput` blends them with)."""
    return float((gpu**BLEND_P + host**BLEND_P) ** (1.0 / BLEND_P))


def estimate_transcription(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    audio_s: float = 3600.0,
    batch: int = 1,
    precision: str = "fp16",
    engine: str = "transformers",
    tokens_per_audio_s: float = 3.0,
    beam: int | None = None,
) -> TranscriptionEstimate:
    """Speed (RTFx) and memory of transcribing ``audio_s`` seconds with ``batch`` windows at once;
    ``beam`` decoder beams per window (None: the engine's default, transformers 1, faster-whisper 5)."""
    refuse_blank_model(model, "audio")  # "is empty", with the speech models known
    spec = resolve_model_arg(model)
    # "A100" read as one of its variants; an MI250X runs it on one of its GCDs
    acc, _, variant = as_software_sees(gpu, resolve_gpu_arg(gpu))
    d, layers, ffn, vocab = _whisper_shape(spec)
    if isinstance(audio_s, bool) or not isinstance(audio_s, int | float) or not 0 < audio_s <= 1e8:
        raise InvalidInputError(
            "audio_s",
            f"must be a positive number of seconds, got {quoted_value(audio_s)}",
            accepted="> 0, <= 1e8",
        )
    batch = int_in("batch", batch, 1, 1024)  # 2.0 is 2, 2.5 an error naming the field
    if (
        isinstance(tokens_per_audio_s, bool)
        or not isinstance(tokens_per_audio_s, int | float)
        or not 0 < tokens_per_audio_s <= 50
    ):
        raise InvalidInputError(
            "tokens_per_audio_s", f"got {quoted_value(tokens_per_audio_s)}", accepted="> 0, <= 50"
        )
    key = fold_name(engine).strip().lower() if isinstance(engine, str) else ""
    if key not in ENGINES:
        said = (
            "is empty"
            if isinstance(engine, str) and not key
            else f"unknown speech engine {quoted_value(engine)}"
        )
        raise InvalidInputError("engine", said, accepted=", ".join(ENGINES))
    prec = precision.strip().lower() if isinstance(precision, str) else ""
    if prec not in PRECISIONS:
        raise InvalidInputError(
            "precision", f"unsupported precision {precision!r}", accepted=", ".join(PRECISIONS)
        )
    beams = DEFAULT_BEAM[key] if beam is None else int_in("beam", beam, 1, MAX_BEAM)
    # where the engine runs at all, and in this precision: a refusal gives no speed, a caveat a warning
    platform = check_workload(SPEECH_WORKLOADS[key], acc, prec)
    refusal = platform.message()

    layer_attn = 4 * d * d
    enc_params = layers * (layer_attn + 2 * d * ffn) + 2 * 3 * 128 * d + 3 * d * d
    dec_params = layers * (2 * layer_attn + 2 * d * ffn) + vocab * d
    w_bytes = {"fp16": 2.0, "bf16": 2.0, "fp32": 4.0, "int8": 1.0}[prec]
    # LLM.int8() (transformers): the fp16 work, slowed (see LLM_INT8_SLOWDOWN); int8 weights in memory
    llm_int8 = prec == "int8" and key == "transformers"
    read_bytes = 2.0 if llm_int8 else w_bytes  # what a decoder step is timed to read per weight
    slow = LLM_INT8_SLOWDOWN if llm_int8 else 1.0
    act_bytes = 4.0 if prec == "fp32" else 2.0
    # PyTorch (transformers) leaves TF32 matmuls off by default; CTranslate2's fp32 is taken the same
    rate, rate_note = _matmul_rate(prec, key, acc)
    flops_rate = rate.tflops * 1e12 * COMPUTE_EFFICIENCY
    bw = acc.bandwidth_gbps * GB * BANDWIDTH_EFFICIENCY

    plain_windows = math.ceil(audio_s / WINDOW_S)
    windows = chunk_count(audio_s, key)
    steps_per_window = math.ceil(min(audio_s, WINDOW_S) * tokens_per_audio_s) + SPECIAL_TOKENS
    asked = batch
    batch = min(batch, windows)  # no more windows run together than the audio has
    enc_flops = 2.0 * enc_params * FRAMES + layers * 4.0 * d * FRAMES**2
    # a window's encoder keys/values: per decoder row in transformers (expanded to the beams), shared by a
    # window's beams in CTranslate2 (see gpuscout.estimate.ctranslate2_step)
    cross_kv = 2.0 * layers * FRAMES * d * act_bytes
    self_kv = 2.0 * layers * steps_per_window * d * act_bytes
    host_window_s = LOGMEL_FLOPS / (HOST_GFLOPS * 1e9) + WINDOW_HOST_S
    host_step_s = step_host_seconds(key, layers, beams, int8=prec == "int8")

    def decoder_step(b: int) -> tuple[float, float, float, str]:
        """(bytes read and written, step s, the GPU work's s without the fixed cost, what bounds it) of
        one decoder step over ``b`` windows."""
        rows = b * beams
        if key == "faster-whisper":
            c = ct2.step(
                d=d,
                layers=layers,
                ffn=ffn,
                vocab=vocab,
                frames=FRAMES,
                windows=b,
                beams=beams,
                self_len=steps_per_window,
                weight_bytes=w_bytes,
                act_bytes=act_bytes,
                int8=prec == "int8",
                bandwidth=bw,
                flops_rate=flops_rate,
            )
            return c.bytes, c.seconds, c.work_s, c.bound
        cross_moves, self_moves = BEAM_REORDER if beams > 1 else (0.0, 0.0)
        moved_per_row = (1.0 + cross_moves) * cross_kv + (1.0 + self_moves) * self_kv
        moved = dec_params * read_bytes + rows * moved_per_row
        flops = rows * (2.0 * dec_params + layers * 4.0 * d * (FRAMES + steps_per_window))
        read, compute = moved / bw, flops / flops_rate
        gpu = max(read, compute) * slow  # LLM.int8() slows the GPU work only
        work_bound = "memory" if read >= compute else "compute"
        return moved, _overlap(gpu, host_step_s), gpu, "overhead" if host_step_s > gpu else work_bound

    def round_s(b: int) -> tuple[float, float, float]:
        """(host s, encoder s, decoder s) of a round of ``b`` windows."""
        step = decoder_step(b)[1]
        return b * host_window_s, b * enc_flops / flops_rate * slow, steps_per_window * step

    step_bytes, step_s, gpu_step_s, bound = decoder_step(batch)
    # full rounds of ``batch`` windows, then the windows left over in a round of their own size
    full, left = divmod(windows, batch)
    parts = [full * x for x in round_s(batch)]
    if left:
        parts = [x + y for x, y in zip(parts, round_s(left), strict=True)]
    host_s, encoder_s, decoder_s = parts
    seconds = host_s + encoder_s + decoder_s
    rtfx = audio_s / seconds
    rows = batch * beams

    weights = (enc_params + dec_params) * w_bytes
    kv = (batch if key == "faster-whisper" else rows) * cross_kv + rows * self_kv
    acts = batch * FRAMES * 4 * ffn * act_bytes + kv
    overhead = CUDA_CONTEXT_GB * GB + 0.1 * acts
    capacity = capacity_bytes(acc)
    fits = weights + acts + overhead <= capacity
    warnings = [variant] if variant else []
    if refusal:  # the reason first, as ``estimate()`` gives an engine's refusal
        warnings.append(refusal)
    else:
        warnings.append(_calibration_words(key))
    warnings += [f"{platform.label} on {acc.name}: {rule.said}" for rule in platform.caveats]
    if rate.warning:
        warnings.append(rate.warning)
    if not fits:
        need = (weights + acts + overhead) / GB
        warnings.append(f"needs {gib(need):.1f} GiB, the GPU has {gib(capacity / GB):.1f} GiB")
    if llm_int8 and not refusal:
        warnings.append(
            f"int8 in transformers is bitsandbytes' LLM.int8(): int8 weights, but matmuls slower than fp16 "
            f"(timed as fp16 x {LLM_INT8_SLOWDOWN:g}, the low end of the 15-23% slowdown recalled for "
            "BLOOM-176B; Whisper's small matrices likely lose more; uncalibrated): for fast int8 Whisper, "
            "faster-whisper (CTranslate2's int8 GEMMs)"
        )
    memory = MemoryBreakdown(
        weights_gb=weights / GB,
        kv_cache_gb=kv / GB,
        activations_gb=batch * FRAMES * 4 * ffn * act_bytes / GB,
        overhead_gb=overhead / GB,
        usable_gb=capacity / GB,
        capacity_gb=capacity / GB,
    )
    assumptions = {
        "windows": _windows_words(key, windows, plain_windows, batch, asked)
        + f", {steps_per_window} decoder steps each ({tokens_per_audio_s:g} tokens per audio second)",
        "decoding": _decoding_words(key, beams, beam is None),
        "parameters": f"encoder {enc_params / 1e9:.3f}B, decoder {dec_params / 1e9:.3f}B",
        "engine": f"{key}: {BANDWIDTH_EFFICIENCY:.0%} of {acc.bandwidth_gbps:g} GB/s, "
        f"{COMPUTE_EFFICIENCY:.0%} of {rate.tflops:g} {'TOPS' if rate.rate_name == 'int8' else 'TFLOPS'} "
        f"(priors)",
        "host": f"log-mel features {LOGMEL_FLOPS / 1e9:.2f} GFLOP per window at {HOST_GFLOPS:g} GFLOP/s "
        f"+ {WINDOW_HOST_S * 1e3:g} ms per window, serial with the GPU; "
        + _step_words(key, host_step_s, gpu_step_s, step_s),
    }
    if rate_note:
        assumptions["matmuls"] = rate_note
    if refusal:
        assumptions["support"] = f"{refusal} (sources: {', '.join(platform.sources)})"
        assumptions["alternatives"] = platform.instead()
    return TranscriptionEstimate(
        model=spec.name,
        gpu=acc.name,
        engine=key,
        precision=prec,
        batch=batch,
        fits=fits and not refusal,  # a platform the engine cannot run on holds nothing
        memory=memory,
        realtime_factor=None if refusal else rtfx,
        seconds=None if refusal else seconds,
        bound=bound,
        encoder_params=enc_params,
        decoder_params=dec_params,
        beam=beams,
        windows=windows,
        decoder_step_s=step_s,
        decoder_step_gb=step_bytes / GB,
        host_s=host_s,
        encoder_s=encoder_s,
        decoder_s=decoder_s,
        assumptions=assumptions,
        warnings=warnings,
        supported=not refusal,
        unsupported_reason=refusal,
    )


def _windows_words(engine: str, windows: int, plain_windows: int, batch: int, asked: int) -> str:
    """How the audio is cut and batched, in words."""
    unit = plural(windows, "chunk" if engine == "transformers" else "window")
    words = f"{windows:,} x 30 s {unit}"
    if engine == "transformers" and windows > 1:
        words += (
            f" every {CHUNK_ADVANCE_S[engine]:g} s (the pipeline's default stride, chunk_length_s / 6 = "
            f"{WINDOW_S * STRIDE_FRACTION:g} s each side: {windows / plain_windows:.2f}x the work of "
            f"{plain_windows:,} {plural(plain_windows, 'window')})"
        )
    elif engine == "faster-whisper":
        words += ", no overlap" + (
            " (BatchedInferencePipeline)" if asked > 1 else " (WhisperModel.transcribe)"
        )
    words += f", {batch:,} at a time"
    if asked > batch:
        words += f" (batch {asked} asked: only {windows:,} {unit})"
    return words


def _decoding_words(engine: str, beams: int, default: bool) -> str:
    """Greedy or beam search, and whose default it is."""
    source = "transformers' default num_beams=1" if engine == "transformers" else "faster-whisper's default"
    if beams == 1:
        return "greedy" + (f" ({source})" if default else "")
    words = f"beam search, {beams} beams" + (" (faster-whisper's default beam_size=5)" if default else "")
    reorder = "both caches" if engine == "transformers" else "the self-attention cache"
    return f"{words}: {beams} decoder rows per window, each step reordering {reorder}"


def _step_words(engine: str, fixed_s: float, gpu_s: float, step_s: float) -> str:
    """What a decoder step costs, in words."""
    if engine == "transformers":
        return (
            f"decoder step {fixed_s * 1e3:.1f} ms of host work (generate loop + eager launches from Python) "
            f"overlapping the GPU's {gpu_s * 1e3:.1f} ms (priors)"
        )
    return (
        f"decoder step {step_s * 1e3:.1f} ms: CTranslate2's kernels at >= "
        f"{ct2.CT2_KERNEL_FLOOR_S * 1e6:g} us each (fitted on recalled faster-whisper README figures) "
        f"would take {fixed_s * 1e3:.1f} ms, "
        f"their bytes and flops alone {gpu_s * 1e3:.1f} ms"
    )


def _calibration_words(engine: str) -> str:
    """What the speed is calibrated on (the first warning of a supported estimate)."""
    if engine == "transformers":
        return (
            "speech estimates are uncalibrated priors for transformers (no speech row fitted; one recalled "
            "faster-whisper README figure checks it: benchmarks/accuracy_speech.py)"
        )
    return (
        "faster-whisper speed: one constant (CTranslate2's per-kernel floor) fitted on 4 recalled "
        "faster-whisper README figures (whisper-large-v2, batch 1, beam 5, a Tesla V100S and an RTX 3070 Ti: "
        "NVIDIA only), its 2 batch-8 figures held out; the rest are priors"
    )
