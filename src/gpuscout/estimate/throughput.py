"""Speed: decode step time (roofline), prefill time, TTFT, serving throughput.

Decode step (all sequences of the batch advance one token):
  bytes   = weights read once (MoE: the distinct experts the batch routes to) + each sequence's KV
  flops   = 2 * active params * batch + attention (4 * layers * heads * head_dim * context * batch)
  step    = blend(bytes / (eff_bw * BW), flops / (eff_c * peak)) + fixed costs
The blend is a smooth maximum (p-norm, p=4): near the ridge point both limits cost a little.
Fixed costs: per-layer kernel overhead, per-step overhead, tensor-parallel all-reduces, layer-split
hand-offs. Prefill is compute bound: linear FLOPs + causal attention FLOPs, with a weight-read floor
per micro-batch for tiny prompts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuscout.estimate.engines import EngineProfile
from gpuscout.estimate.kv_cache import kv_read_bytes_per_step, kv_shape
from gpuscout.estimate.memory import model_consts
from gpuscout.estimate.parallel import tp_step_comm_seconds
from gpuscout.estimate.precision import KvDtype, WeightFormat, compute_rate, weight_bytes
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

BLEND_P = 4.0
DECODE_SAMPLES = 8


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything fixed for one estimate except batch and context."""

    spec: ModelSpec
    acc: Accelerator
    fmt: WeightFormat
    kv: KvDtype
    engine: EngineProfile
    gpus: int = 1
    parallel: str = "tensor"

    @property
    def tp(self) -> int:
        return self.gpus if self.parallel == "tensor" else 1

    @property
    def bandwidth_eff(self) -> float:
        return self.engine.bandwidth_eff(self.fmt.compute_class)

    @property
    def compute_eff(self) -> float:
        return self.engine.compute_eff(self.fmt.compute_class)

    @property
    def peak_tflops(self) -> float:
        """Datasheet dense rate for this format (GeForce fp16-accumulate doubling when the engine uses it)."""
        rate = compute_rate(self.fmt, self.acc)
        if self.engine.fp16_accumulate and rate.rate_name in ("bf16", "fp16") and self.acc.kind == "consumer":
            return rate.tflops * 2.0
        return rate.tflops

    @property
    def achieved_flops(self) -> float:
        """FLOP/s large GEMMs reach (engine efficiency and ceiling applied)."""
        return self.engine.achieved_tflops(self.fmt.compute_class, self.peak_tflops) * 1e12

    @property
    def achieved_bandwidth(self) -> float:
        """Bytes/s a weight-streaming step reaches on one GPU (engine efficiency and ceiling applied)."""
        return self.engine.achieved_bandwidth_gbps(self.fmt.compute_class, self.acc.bandwidth_gbps) * 1e9


@dataclass(frozen=True, slots=True)
class StepTime:
    """One decode step, seconds."""

    total: float
    memory: float
    compute: float
    fixed: float
    comm: float

    @property
    def bound(self) -> str:
        return "memory" if self.memory >= self.compute else "compute"


def _blend(a: float, b: float) -> float:
    if a <= 0.0 or b <= 0.0:
        return max(a, b)
    return float((a**BLEND_P + b**BLEND_P) ** (1.0 / BLEND_P))


def _gqa_group(spec: ModelSpec) -> float:
    s = kv_shape(spec)
    if s.mla or not s.kv_heads:
        return 1.0
    return max(1.0, spec.num_attention_heads / s.kv_heads)


def _attn_flops_per_token(spec: ModelSpec, context: float) -> float:
    """Attention score + value FLOPs of one new token against ``context`` cached tokens (all layers)."""
    s = kv_shape(spec)
    dim = spec.kv_lora_rank * 2 + spec.qk_rope_head_dim if s.mla else 2 * s.head_dim
    slide = min(context, s.window) if s.sliding_layers else 0.0
    return 2.0 * spec.num_attention_heads * dim * (s.full_layers * context + s.sliding_layers * slide)


def _head_params(spec: ModelSpec) -> float:
    c = model_consts(spec)
    return c.lm_head if c.lm_head else c.embedding


def decode_step(st: Setup, batch: int, context: float) -> StepTime:
    """Time of one decode step for ``batch`` sequences each holding ``context`` tokens."""
    spec, eng = st.spec, st.engine
    c = model_consts(spec)
    tp = st.tp
    head = _head_params(spec)
    # weights: body (MoE: experts the batch touches) + output head; layer split reads every GPU's share
    # one after the other, so the whole model goes through one GPU's bandwidth.
    w_bytes = weight_bytes(st.fmt, c.body_read(batch) / tp, 0.0, 0.0)
    w_bytes += (
        weight_bytes(st.fmt, 0.0, 0.0, head / tp) if c.lm_head else weight_bytes(st.fmt, 0.0, head / tp, 0.0)
    )
    kv_bytes = kv_read_bytes_per_step(spec, st.kv, context, tp=tp) * batch
    kv_bytes *= 1.0 + eng.gqa_kv_reread * (_gqa_group(spec) - 1.0)
    # sampling: each sequence's logits (vocab, fp32) are written and read back (top-k/p, penalties)
    logits_bytes = batch * spec.vocab_size * eng.logits_bytes_per_vocab / tp
    bw = st.achieved_bandwidth
    flops_peak = st.achieved_flops
    # weight GEMMs and attention are separate kernels: each is its own roofline, and they add up
    gemm_mem = (w_bytes + logits_bytes) / bw
    gemm_comp = 2.0 * (c.active_body + head) * batch / tp / flops_peak
    attn_mem = kv_bytes / bw
    attn_comp = _attn_flops_per_token(spec, context) * batch / tp / flops_peak
    mem = gemm_mem + attn_mem
    comp = gemm_comp + attn_comp
    fixed = spec.num_hidden_layers * eng.layer_overhead_us * 1e-6 + eng.step_overhead_us * 1e-6
    comm = tp_step_comm_seconds(st.acc, tp, spec.num_hidden_layers, spec.hidden_size, batch)
    if st.parallel == "layer" and st.gpus > 1:
        comm += (st.gpus - 1) * eng.pipeline_hop_us * 1e-6
    total = _blend(gemm_mem, gemm_comp) + _blend(attn_mem, attn_comp) + fixed + comm
    return StepTime(total, mem, comp, fixed, comm)


def mean_decode_step(st: Setup, batch: int, context_in: int, context_out: int) -> StepTime:
    """Average step while generating ``context_out`` tokens after a ``context_in`` prompt.

    This is what "tg N" in llama-bench reports (tokens / total time), sampled at the midpoints of
    ``DECODE_SAMPLES`` equal slices of the generation.
    """
    n = max(1, min(DECODE_SAMPLES, context_out))
    steps = [decode_step(st, batch, context_in + (i + 0.5) * max(context_out, 1) / n) for i in range(n)]
    k = float(len(steps))
    return StepTime(
        sum(s.total for s in steps) / k,
        sum(s.memory for s in steps) / k,
        sum(s.compute for s in steps) / k,
        sum(s.fixed for s in steps) / k,
        sum(s.comm for s in steps) / k,
    )


def _prefill_single_gpu_seconds(st: Setup, tokens: int, batch: int) -> float:
    """Prefill of ``batch`` prompts of ``tokens`` tokens on the model's GPUs, no layer pipelining."""
    spec, eng = st.spec, st.engine
    c = model_consts(spec)
    tp = st.tp
    total_tokens = tokens * batch
    s = kv_shape(spec)
    # causal attention: sum over positions of the context each token attends to
    if s.sliding_layers and tokens > s.window:
        slide_ctx = s.window * (tokens - s.window / 2.0)
    else:
        slide_ctx = tokens * tokens / 2.0
    full_ctx = tokens * tokens / 2.0
    s_dim = (spec.kv_lora_rank * 2 + spec.qk_rope_head_dim) if s.mla else 2 * s.head_dim
    attn_flops = (
        2.0 * spec.num_attention_heads * s_dim * (s.full_layers * full_ctx + s.sliding_layers * slide_ctx)
    )
    head = _head_params(spec)
    linear_flops = 2.0 * c.active_body * total_tokens + 2.0 * head * batch
    compute = (linear_flops + attn_flops * batch) / tp / st.achieved_flops
    chunk = max(1, min(eng.prefill_chunk_tokens, total_tokens))
    chunks = math.ceil(total_tokens / chunk)
    w_chunk = weight_bytes(st.fmt, c.body_read(chunk) / tp, 0.0, 0.0)
    memory = chunks * w_chunk / st.achieved_bandwidth
    scores = 0.0
    if eng.attn_score_bytes:
        score_elems = (
            spec.num_attention_heads / tp * (s.full_layers * full_ctx + s.sliding_layers * slide_ctx)
        )
        scores = score_elems * batch * eng.attn_score_bytes / st.achieved_bandwidth
    fixed = chunks * spec.num_hidden_layers * eng.layer_overhead_us * 1e-6
    comm = chunks * tp_step_comm_seconds(st.acc, tp, spec.num_hidden_layers, spec.hidden_size, chunk)
    return _blend(compute, memory) + scores + fixed + comm


def prefill_seconds(st: Setup, tokens: int, batch: int = 1) -> float:
    """Time to process ``batch`` prompts of ``tokens`` tokens (time to first token, less one step).

    Layer split with a pipelining engine (llama.cpp splits each ``n_batch`` into ``n_ubatch``
    micro-batches that flow through the GPUs): a batch of ``u`` micro-batches over ``G`` GPUs takes
    ``(u + G - 1) / G`` single-GPU micro-batch times, plus a hand-off per micro-batch and boundary.
    """
    if tokens <= 0:
        return 0.0
    eng = st.engine
    single = _prefill_single_gpu_seconds(st, tokens, batch)
    g = st.gpus
    if st.parallel != "layer" or g <= 1:
        return single
    hops = (g - 1) * eng.pipeline_hop_us * 1e-6
    total_tokens = tokens * batch
    ubatch = max(1, eng.prefill_chunk_tokens)
    if not eng.prefill_pipelined:
        return single + math.ceil(total_tokens / ubatch) * hops
    nbatch = max(ubatch, eng.prefill_batch_tokens)
    batches = math.ceil(total_tokens / nbatch)
    u = math.ceil(min(total_tokens, nbatch) / ubatch)
    per_ubatch = single / max(1, math.ceil(total_tokens / ubatch))
    return batches * ((u + g - 1) / g * per_ubatch + u * hops)


@dataclass(frozen=True, slots=True)
class Speed:
    decode_tokens_per_s: float  # per sequence
    output_tokens_per_s_total: float
    prefill_tokens_per_s: float
    ttft_s: float
    bound: str
    step: StepTime


def speed(st: Setup, batch: int, context_in: int, context_out: int) -> Speed:
    """All speed figures for ``batch`` concurrent sequences of ``context_in`` + ``context_out`` tokens.

    Serving (continuous or static batching): a wave of ``batch`` requests is prefilled, then decoded
    together; aggregate output = batch * out / (prefill time + out * mean step).
    """
    out = max(context_out, 1)
    step = mean_decode_step(st, batch, context_in, out)
    prompt = max(context_in, 1)
    pre_1 = prefill_seconds(st, prompt, 1)
    prefill_tps = prompt / pre_1 if pre_1 > 0 else 0.0
    first_step = decode_step(st, 1, prompt)
    ttft = pre_1 + first_step.total
    pre_b = prefill_seconds(st, context_in, batch) if context_in > 0 else 0.0
    total = pre_b + out * step.total
    aggregate = batch * out / total
    return Speed(1.0 / step.total, aggregate, prefill_tps, ttft, step.bound, step)
