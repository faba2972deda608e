"""One Whisper decoder step in CTranslate2 (faster-whisper's engine): a chain of small kernels.

At batch 1 faster-whisper decodes one 30 s window with 5 beams: 5 decoder rows. Each step runs every one
of the 32 decoder layers as a sequence of dependent kernels (layer norms, GEMMs and their bias kernels,
head splits and merges, the self-attention cache concatenation, attention over the 1,500 encoder frames,
the residual adds, the beam reorder of the self-attention cache), issued one op at a time from C++,
without CUDA graphs, and ends with the beam search copying its top-k back to the host (a sync: the host
cannot run ahead into the next step). With 5 rows most of those kernels move a few kilobytes, so a kernel
costs its fixed latency (the host's op dispatch, allocation and launch, and the GPU's launch and drain),
not its bytes: the step is latency-bound, and a GPU with twice the bandwidth is barely faster.

The model: a step is the sum, over its kernels, of ``max(CT2_KERNEL_FLOOR_S, bytes / bandwidth,
flops / peak)``. The weight GEMMs (and, with many windows, the attention over the encoder's keys and
values) exceed the floor on a slow-memory GPU or at a large batch; everything else costs the floor.

int8 (CTranslate2's int8 compute types): the weights are int8, but the activations are quantised on the
fly before every int8 GEMM (``ops::Quantize``: per-row scales, then int8 values) and its int32 output is
dequantised (fused with the bias and activation): one more kernel per linear layer than fp16 (whose
GEMM is followed by its bias kernel). At batch 1 the extra kernels cost about what the halved weight
reads save: int8 is not faster there (the README figures below); at a large batch the bytes win.

Kernel counts per decoder layer (CTranslate2's ``TransformerDecoderLayer`` and ``MultiHeadAttention``,
pre-norm, fused QKV projection; recalled from its source, layers/transformer.cc and layers/attention.cc,
not re-read this session):

- self-attention: layer norm, QKV GEMM + bias, 3 head splits, 2 cache concatenations (the whole cache
  copied: read + write), Q.K^T, softmax, .V, head merge, output GEMM + bias, residual add: 15;
- cross-attention: layer norm, query GEMM + bias, head split, Q.K^T over the encoder frames, softmax,
  .V, head merge, output GEMM + bias, residual add: 11 (the encoder's keys and values are projected once
  per window, on the first step);
- feed-forward: layer norm, fc1 GEMM + bias and GELU, fc2 GEMM + bias, residual add: 6;
- beam search: the self-attention keys and values gathered to the surviving beams: 2.

Beams share the encoder's keys and values: CTranslate2 does not replicate the "memory" states per beam
(``TransformerDecoder::replicate_state``, recalled) and folds a window's beams into the query length of
the cross-attention. The README's own memory figures agree (recalled): 8 windows x 5 beams of replicated
fp16 cross-attention caches would be 9.8 GB, more than the RTX 3070 Ti's 8 GB that ran batch 8 in 6.1 GB.

Per step, around the layers: token embedding and position add, final layer norm, the output projection
(a GEMM over the 51,866-token vocabulary), the logits processors (suppressed tokens, timestamp rules),
log-softmax and top-k, and with beams the score and sequence bookkeeping and the copy to the host: ~30.

Calibration: ``CT2_KERNEL_FLOOR_S`` is the one constant fitted, on the four batch-1 faster-whisper
figures (large-v2, 13 min of audio, beam 5: fp16 and int8 on a Tesla V100S and an RTX 3070 Ti) of
faster-whisper's README "Benchmark" section (https://github.com/SYSTRAN/faster-whisper, README; figures
recalled, not read this session), with the estimate's default 3 tokens per audio second; the batch-8
figures are held out (``benchmarks/accuracy_speech.py``). The floor therefore also carries what the model
leaves out at batch 1: timestamp tokens, the previous window's text as a prompt, re-decodes.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Fitted (benchmarks/accuracy_speech.py --fit): seconds one CTranslate2 decoder kernel costs at least.
CT2_KERNEL_FLOOR_S = 18.3e-6
#: Small kernels per decoder layer (everything but the weight GEMMs, the attention matmuls, the cache
#: concatenations and the beam gathers): self-attention norm, 3 head splits, softmax, merge, residual (7);
#: cross-attention norm, split, softmax, merge, residual (5); feed-forward norm, residual (2)
SMALL_LAYER_KERNELS = 14
#: Linear layers per decoder layer: QKV, self-attention output, cross-attention query and output, fc1, fc2
LINEARS_PER_LAYER = 6
#: Kernels of one linear layer: fp16 GEMM + bias kernel; int8 quantise + GEMM + dequantise (with bias)
KERNELS_PER_LINEAR = {"int8": 3, "other": 2}
#: Kernels of a step around the layers (embeddings, final norm, logits processors, log-softmax, top-k,
#: the token copied back), and the beam search's own bookkeeping (scores, origins, gathers): priors
STEP_KERNELS = 20
BEAM_STEP_KERNELS = 10
#: Of those, the ones over a row's whole vocabulary of fp32 logits (read and written): the logits
#: processors, log-softmax, top-k
LOGITS_PASSES = 3


def kernel_count(layers: int, beams: int, int8: bool) -> int:
    """Kernels one decoder step launches (fp16: 34 per layer with beams, 32 greedy; int8 6 more)."""
    per_linear = KERNELS_PER_LINEAR["int8" if int8 else "other"]
    per_layer = SMALL_LAYER_KERNELS + LINEARS_PER_LAYER * per_linear + 2 + 2 + 2 + (2 if beams > 1 else 0)
    return layers * per_layer + per_linear + STEP_KERNELS + (BEAM_STEP_KERNELS if beams > 1 else 0)


@dataclass(frozen=True, slots=True)
class Ct2Step:
    """One decoder step of ``rows`` decoder rows (windows x beams)."""

    kernels: int
    seconds: float  # the step: every kernel at max(floor, its bytes, its flops)
    floor_s: float  # kernels x the floor: what the step would take if no kernel exceeded it
    work_s: float  # the kernels' bytes and flops alone (each at max(bytes, flops)), no floor
    bytes: float  # read and written
    bound: str  # "overhead" (most of the step is floors), "memory" or "compute"


def step(
    *,
    d: int,
    layers: int,
    ffn: int,
    vocab: int,
    frames: int,
    windows: int,
    beams: int,
    self_len: int,
    weight_bytes: float,
    act_bytes: float,
    int8: bool,
    bandwidth: float,
    flops_rate: float,
) -> Ct2Step:
    """A CTranslate2 decoder step over ``windows`` windows of ``beams`` beams each, ``self_len`` tokens in
    each row's self-attention cache; ``bandwidth`` in bytes/s and ``flops_rate`` in FLOP/s as achieved."""
    floor = CT2_KERNEL_FLOOR_S  # read at each call: benchmarks/accuracy_speech.py --fit varies it
    rows = windows * beams
    # (count per step, bytes each, flops each)
    groups: list[tuple[int, float, float]] = []

    def linear(n: int, d_in: int, d_out: int) -> None:
        gemm_bytes = d_in * d_out * weight_bytes + rows * (d_in + d_out) * act_bytes
        groups.append((n, gemm_bytes, 2.0 * rows * d_in * d_out))
        # the bias kernel (fp16) or the quantise and dequantise kernels (int8): a row's activations each
        extra = KERNELS_PER_LINEAR["int8" if int8 else "other"] - 1
        groups.append((n * extra, 2.0 * rows * d_out * act_bytes, 0.0))

    for d_in, d_out in ((d, 3 * d), (d, d), (d, d), (d, d), (d, ffn), (ffn, d)):
        linear(layers, d_in, d_out)
    self_cache = rows * self_len * d * act_bytes  # one layer's keys (or values), every row
    cross_cache = windows * frames * d * act_bytes  # one layer's encoder keys (or values), shared by beams
    groups += [
        (layers * SMALL_LAYER_KERNELS, 2.0 * rows * d * act_bytes, 0.0),
        (layers * 2, 2.0 * self_cache, 0.0),  # concatenate the new key / value to the cache (a copy)
        (layers * 2, self_cache, 2.0 * rows * self_len * d),  # Q.K^T and .V over the cache
        (layers * 2, cross_cache, 2.0 * rows * frames * d),  # Q.K^T and .V over the encoder frames
    ]
    if beams > 1:
        groups.append((layers * 2, 2.0 * self_cache, 0.0))  # gather keys / values to surviving beams
    linear(1, d, vocab)  # output projection (embedding tied)
    # around the layers: LOGITS_PASSES kernels read and write every row's fp32 logits, the rest are small
    step_kernels = STEP_KERNELS + (BEAM_STEP_KERNELS if beams > 1 else 0)
    groups.append((LOGITS_PASSES, 2.0 * rows * vocab * 4.0, 0.0))
    groups.append((step_kernels - LOGITS_PASSES, 2.0 * rows * d * act_bytes, 0.0))

    kernels = sum(n for n, _, _ in groups)
    assert kernels == kernel_count(layers, beams, int8)  # the list above is the count documented
    seconds = floor_total = work = moved = 0.0
    over_memory = over_compute = 0.0  # time of the kernels above the floor, by what bounds them
    for n, nbytes, flops in groups:
        read_s, compute_s = nbytes / bandwidth, flops / flops_rate
        t = max(read_s, compute_s)
        seconds += n * max(floor, t)
        floor_total += n * floor
        work += n * t
        moved += n * nbytes
        if t > floor:
            if read_s >= compute_s:
                over_memory += n * t
            else:
                over_compute += n * t
    above = over_memory + over_compute  # the kernels' time above the floor; the rest is floors
    work_bound = "memory" if over_memory >= over_compute else "compute"
    bound = "overhead" if seconds - above >= above else work_bound
    return Ct2Step(kernels, seconds, floor_total, work, moved, bound)
