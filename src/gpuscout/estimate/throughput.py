"""Speed physics of one engine step: decode step time (roofline + fixed costs) and prefill time.

Decode step (every running sequence advances one token), per GPU:
  bytes   = dense weights + the experts the batch touches (MoE) + output head + each sequence's KV
            + the fp32 logits sampling writes and reads
  flops   = 2 * dense params * max(batch, tile) + 2 * expert params * max(batch * k, touched * tile)
            + attention (2 * heads * (K+V dim) * context * batch); ``tile`` = the rows a tensor-core
            GEMM computes at least (:func:`gemm_tile_rows`: 64 on Hopper+, 16 before; weight-only
            mma.sync kernels such as Marlin 16 everywhere, at :func:`legacy_mma_share` of the rate on
            Hopper; GEMV kernels 1); each touched expert pads to :meth:`Setup.moe_tile` rows (the
            Triton fused-MoE kernel: 16 at small batch)
  step    = blend(weight bytes / BW, GEMM flops / F) + blend(KV bytes / BW, attention flops / F)
            + fixed costs + tensor-parallel all-reduces
``BW`` and ``F`` are the engine's achieved bandwidth and tensor rate for the format's compute class;
routed-expert bytes go at ``moe_stream_share`` of the bandwidth and their FLOPs at ``moe_compute_efficiency``
of the tensor rate (grouped-GEMM kernels). Each part of the FLOPs runs at its own rate: the GEMMs a format
leaves in 16 bits at the engine's 16-bit rate (:attr:`Setup.dense_flops`: in gpt-oss's experts-only MXFP4
all those outside the experts, in Meta's FP8 checkpoints the attention projections and the first and last
layers), and the attention over the KV cache, prefill and decode, at the rate of the cache's dtype
(:attr:`Setup.attn_flops`: 16-bit unless cache and weights are both FP8 and the model is not MLA).
Old int4 kernels of the exllama v1 family (TGI 1.0-1.1, AutoGPTQ 0.4) dequantise the weights again for
every row below 8 rows (CUDA-core time per row) and rebuild fp16 matrices for cuBLAS from 8 rows on
(:func:`int4_kernel_seconds`). The blend is a smooth maximum (p-norm, p=4): near the ridge point both
limits cost a little. Fixed costs: per-layer kernel overhead, per-step overhead, per-sequence CPU
overhead, an eager per-expert loop (HF transformers), layer-split hand-offs.

Prefill is compute bound: linear FLOPs + causal attention FLOPs, with a weight-read floor per chunk
for short prompts. ``prefill_compute_seconds`` is the marginal cost of a prompt's tokens when they ride
in decode steps (chunked prefill): their FLOPs and all-reduce bytes only, the weights being read anyway.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpuscout.estimate.engines import EngineProfile
from gpuscout.estimate.kv_cache import kv_read_bytes_per_step, kv_shape, linear_state_step_bytes
from gpuscout.estimate.memory import ModelConsts, attention_bytes, dense_body_bytes, model_consts
from gpuscout.estimate.parallel import handoff_staging_seconds, tp_step_comm_seconds
from gpuscout.estimate.precision import (
    CLASS_16BIT,
    CLASS_FP4,
    CLASS_FP8,
    CLASS_FP32,
    CLASS_GGUF_F16,
    CLASS_INT8,
    KERNEL_FP8_BLOCK,
    ComputeRate,
    KvDtype,
    WeightFormat,
    compute_rate,
    resolve_precision,
    weight_bytes,
)
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.model_types import ModelSpec

BLEND_P = 4.0
# compute classes whose weight GEMMs already run 16-bit (or wider) math at the engine's rate for it: their
# attention runs at the same rate (:attr:`Setup.attn_flops`)
_16BIT_MATH = (CLASS_16BIT, CLASS_GGUF_F16, CLASS_FP32)
# compute classes whose weight GEMMs run at a narrower type's tensor rate (FP8, INT8 W8A8, FP4): the
# attention over a 16-bit KV cache does not (:func:`decode_step`, :attr:`Setup.attn_flops`)
_NARROW_MATH = (CLASS_FP8, KERNEL_FP8_BLOCK, CLASS_INT8, CLASS_FP4)
# Host launches of an eager MoE layer's extra kernels (router GEMM, softmax/top-k, permute, two grouped
# GEMMs and the activation, un-permute/finalize, shared expert: ~10 launches) relative to a dense decoder
# layer's (~15-20 launches of norms, projections, rotary, attention, MLP, residuals)
EAGER_MOE_LAUNCH_FRACTION = 0.5
DECODE_SAMPLES = 8


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything fixed for one estimate except batch and context.

    ``eff_class`` is the compute class whose engine efficiencies apply (default: the format's;
    "weight-only" when the engine runs a native-class format weight-only on this GPU, e.g. FP8 through
    Marlin on an A100)."""

    spec: ModelSpec
    acc: Accelerator
    fmt: WeightFormat
    kv: KvDtype
    engine: EngineProfile
    gpus: int = 1
    parallel: str = "tensor"
    eff_class: str = ""
    rate_fmt: WeightFormat | None = (
        None  # the format whose tensor rate the math runs at (weight-only: 16-bit)
    )
    # the format the weight reads and GEMMs are timed as, where not ``fmt`` (None: ``fmt``; memory is
    # sized by ``fmt`` all the same): a weight-only format whose kernels on this GPU's vendor no calibration
    # row runs, and for which the engine has no efficiency of its own, is timed as its 16-bit checkpoint
    # (bytes, tile, efficiencies and rate): its byte saving is not credited (``api._timed_as``)
    timed_as: WeightFormat | None = None
    rate: ComputeRate = field(init=False, repr=False, compare=False)
    peak_tflops: float = field(init=False, repr=False, compare=False)
    achieved_flops: float = field(init=False, repr=False, compare=False)
    achieved_bandwidth: float = field(init=False, repr=False, compare=False)
    # rows a weight GEMM computes at least (tile padding, see :func:`gemm_tile_rows`); 1 for the
    # GEMV-style kernels of GGUF formats, or an engine's own small-batch kernels; weight-only
    # mma.sync kernels (Marlin, AWQ GEMM) 16-row tiles even where wgmma would pad to 64
    gemm_tile: float = field(init=False, repr=False, compare=False)
    # rows each touched expert computes at least in a small pass (see :meth:`moe_tile`)
    small_moe_tile: float = field(init=False, repr=False, compare=False)
    # FLOP/s of a prompt's attention (scores and their weighted sum): a 16-bit kernel whatever the weights
    # (FlashAttention / FlashInfer / llama.cpp's FA multiply bf16 or fp16 queries and keys), at the
    # engine's 16-bit efficiency: an int8 model's attention does not run at the int8 rate, nor a Marlin
    # model's at mma.sync's share, nor an FP8 model's at the FP8 rate unless its KV cache is FP8 too
    # (TensorRT-LLM's FP8 context FMHA, FlashAttention-3's FP8 path: queries, keys and values in FP8) and
    # the model is not MLA (whose attention multiplies 16-bit keys and values up-projected from the latent).
    # Decode attention of an FP8 / INT8 / FP4 model runs at it too (:func:`decode_step`)
    attn_flops: float = field(init=False, repr=False, compare=False)
    # FLOP/s of the weight GEMMs a narrower format leaves in 16 bits (:func:`wide_body_params`): gpt-oss's
    # bf16 attention projections, router and lm_head (``dense_bits``), the bf16 attention projections and
    # first and last layers of Meta's FP8 checkpoints (``attn_bits``, ``wide_layers``). They are plain
    # bf16 GEMMs (cuBLAS), at the engine's 16-bit rate and efficiency on every GPU, while the format's
    # own GEMMs run at :attr:`achieved_flops`; the format's rate where it leaves none
    dense_flops: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cls = self.eff_class or self.timed_fmt.efficiency_class
        object.__setattr__(self, "eff_class", cls)
        rate = compute_rate(self.rate_fmt or self.timed_fmt, self.acc)
        object.__setattr__(self, "rate", rate)
        peak = self._engine_peak(rate)
        object.__setattr__(self, "peak_tflops", peak)
        achieved = self.engine.achieved_tflops(cls, peak) * 1e12 * self.mma_sync_share
        object.__setattr__(self, "achieved_flops", achieved)
        # MLA runs its attention on keys and values up-projected from the latent (prefill, :func:`_attn_dims`)
        # or on the latent dequantised in the kernel: 16-bit math whatever the cache stores
        fp8_attention = self.kv.name == "fp8" and self.rate.rate_name == "fp8" and not kv_shape(self.spec).mla
        same_rate = cls in _16BIT_MATH or fp8_attention
        object.__setattr__(self, "attn_flops", achieved if same_rate else self._attn_rate())
        object.__setattr__(self, "dense_flops", self._attn_rate() if self.wide_gemms else achieved)
        bw = self.engine.achieved_bandwidth_gbps(cls, self.acc.bandwidth_gbps) * 1e9
        object.__setattr__(self, "achieved_bandwidth", bw)
        dense = gemm_tile_rows(self.acc)
        if cls == "gguf-quant":
            tile = 1.0
        elif self.engine.gemm_min_rows:
            tile = float(self.engine.gemm_min_rows)
        elif cls == "weight-only":
            tile = float(max(1, min(self.engine.weight_only_tile_rows, dense)))
        else:
            tile = float(dense)
        object.__setattr__(self, "gemm_tile", tile)
        rows = self.engine.moe_tile_rows
        if not rows or tile <= 1.0:
            small = tile
        elif cls == "weight-only":  # the mma.sync share is already in the weight-only rate
            small = float(min(tile, rows))
        else:
            small = float(min(dense, rows / legacy_mma_share(self.acc)))
        object.__setattr__(self, "small_moe_tile", small)

    @property
    def timed_fmt(self) -> WeightFormat:
        """The format the weight reads and GEMMs are timed as (:attr:`timed_as`, else :attr:`fmt`)."""
        return self.timed_as or self.fmt

    def _engine_peak(self, rate: ComputeRate) -> float:
        """TFLOPS the engine's kernels can reach at ``rate``: on GeForce parts, engines that accumulate
        16-bit GEMMs in fp16 (llama.cpp) get twice the fp32-accumulate rate the datasheet quotes."""
        fp16_acc = self.engine.fp16_accumulate and rate.rate_name in ("bf16", "fp16")
        return rate.tflops * (2.0 if fp16_acc and self.acc.kind == "consumer" else 1.0)

    @property
    def split_dense(self) -> bool:
        """Whether the GEMMs outside the routed experts run at their own (16-bit) rate, not the format's:
        an experts-only format whose other weights are 16-bit (:attr:`dense_flops`)."""
        bits = self.timed_fmt.dense_bits
        return bits is not None and bits >= 16.0 and self.eff_class not in _16BIT_MATH

    @property
    def wide_attention(self) -> bool:
        """Whether the attention projections are 16-bit GEMMs in a narrower format: an experts-only one
        (:attr:`split_dense`), or one that leaves them unconverted (``attn_bits``: Meta's FP8)."""
        bits = self.timed_fmt.attn_bits
        return self.split_dense or (bits is not None and bits >= 16.0 and self.eff_class not in _16BIT_MATH)

    @property
    def wide_gemms(self) -> bool:
        """Whether some weight GEMMs run at the 16-bit rate, not the format's (:func:`wide_body_params`)."""
        return self.wide_attention or (bool(self.timed_fmt.wide_layers) and self.eff_class not in _16BIT_MATH)

    @property
    def mma_sync_share(self) -> float:
        """Share of the engine's weight-only efficiency its weight GEMMs keep here: the weight-only
        kernels written for Ampere's ``mma.sync`` (Marlin, the AWQ GEMM, exllama v2: 16-row tiles,
        ``weight_only_tile_rows`` > 1) keep :func:`legacy_mma_share` of it where the full rate needs the
        warpgroup MMA; 1 for other classes, GEMV kernels, and the warpgroup-MMA kernels that replace them
        (:attr:`wgmma_weight_only`, :attr:`wgmma_experts`)."""
        cls = self.eff_class or self.timed_fmt.efficiency_class
        if cls != "weight-only" or self.engine.weight_only_tile_rows <= 1:
            return 1.0
        if self.wgmma_weight_only or self.wgmma_experts:
            return 1.0
        return legacy_mma_share(self.acc)

    @property
    def wgmma_experts(self) -> bool:
        """Whether the routed experts of a W4A16 MXFP4 experts-only format (gpt-oss's MXFP4 x bf16,
        ``expert_activations``; int4 experts, ``int4-moe``, run in Marlin's MoE kernels everywhere) run in a
        warpgroup-MMA grouped GEMM on this GPU, not in Marlin's
        ``mma.sync``: on Hopper (cc 9.x) vLLM, SGLang and transformers run them through OpenAI's Triton
        ``matmul_ogs`` (wgmma), TensorRT-LLM through its CUTLASS W4A16 MoE GEMM; on the SM100 family
        (cc 10.x) through FlashInfer's TRT-LLM-gen / CUTLASS MoE (tcgen05) (engine_support.csv, the mxfp4
        rows). Marlin runs them on Ampere and Ada and, in vLLM, on cc 11.x/12.x (the FlashInfer kernels are
        SM100-only); of these only cc 11.x would need the warpgroup MMA for the full rate.

        Their tiles stay the weight-only ones (:attr:`gemm_tile`, 16 rows): these kernels size their token
        tile by the tokens each expert gets (``matmul_ogs``: 16 up to 128 rows, a Triton dot under 64 rows
        running as mma.sync on Hopper; TRT-LLM-gen: tokens as the MMA's N, 8 to 64), not the 64 rows a
        dense wgmma GEMM pads to, so a decode step's touched experts are not padded to 64 rows each."""
        cc = self.acc.nvidia_cc
        fp4_experts = bool(self.timed_fmt.expert_activations) and self.timed_fmt.native == "fp4"
        return fp4_experts and cc is not None and (9, 0) <= cc < (11, 0)

    def _attn_rate(self) -> float:
        """The engine's 16-bit GEMM rate on this GPU (see :attr:`attn_flops`, :attr:`dense_flops`)."""
        peak = self._engine_peak(compute_rate(resolve_precision("bf16"), self.acc))
        return self.engine.achieved_tflops(CLASS_16BIT, peak) * 1e12

    @property
    def wgmma_weight_only(self) -> bool:
        """Whether the dense weight-only GEMMs (int4 AWQ / GPTQ, 8-bit GPTQ) run as the engine's
        warpgroup-MMA kernel on this GPU (:attr:`EngineProfile.weight_only_wgmma_cc`: vLLM's Machete on
        sm_90, which takes uint4 / uint4b8 and uint8 / uint8b128 weights), not as mma.sync."""
        cc = self.acc.nvidia_cc
        return (
            self.timed_fmt.name in ("int4", "int8")
            and self.spec.num_experts == 0
            and cc is not None
            and cc == self.engine.weight_only_wgmma_cc
        )

    @property
    def tp(self) -> int:
        return self.gpus if self.parallel == "tensor" else 1

    def moe_tile(self, tokens: float) -> float:
        """Rows each touched expert's GEMM computes at least in a pass over ``tokens`` tokens, counted at
        the dense tensor rate. Engines with a small-batch MoE kernel tile (``moe_tile_rows``: the Triton
        fused-MoE kernel's BLOCK_SIZE_M of 16, chosen while the tokens are no more than the experts,
        ``get_default_config``'s ``M <= E``) pad to it, divided by the share of the rate its
        ``mma.sync`` code keeps (:func:`legacy_mma_share`: half on Hopper, so 32 rows' worth where a
        wgmma tile pads to 64), never more than the GPU's own tile; larger passes, and engines without
        such a tile, pad to the dense tile (:attr:`gemm_tile`)."""
        return self.gemm_tile if tokens > self.spec.num_experts else self.small_moe_tile

    @property
    def bandwidth_eff(self) -> float:
        return self.engine.bandwidth_eff(self.eff_class)

    @property
    def compute_eff(self) -> float:
        return self.engine.compute_eff(self.eff_class)


@dataclass(frozen=True, slots=True)
class StepTime:
    """One decode step, seconds, with the parts it is made of."""

    total: float
    memory: float  # streaming time (weights + KV + logits) at the achieved bandwidth
    compute: float  # FLOP time at the achieved tensor rate
    fixed: float  # per-step + per-sequence + per-layer overheads
    comm: float  # tensor-parallel all-reduces and layer-split hand-offs
    host: float = 0.0  # the CPU's part of ``fixed`` (launches, scheduling, bookkeeping); the rest is GPU gaps

    @property
    def bound(self) -> str:
        return "memory" if self.memory >= self.compute else "compute"


def gemm_tile_rows(acc: Accelerator) -> int:
    """Minimum rows (the M of an M x N x K tile) a tensor-core GEMM kernel computes on ``acc``.

    A decode step multiplies ``batch`` rows, but a tensor-core kernel pads them to whole tiles: on Hopper
    and datacenter Blackwell (compute capability 9.0-11.x, :func:`has_warpgroup_mma`; not the sm_120
    GeForce/workstation parts) the warpgroup MMA (wgmma / tcgen05) has M = 64, so any cuBLAS,
    CUTLASS or Triton GEMM computes 64 rows however few tokens there are; Volta to Ada (mma.sync
    m16n8k16) and AMD CDNA (MFMA 16x16) pad to 16. Harmless where tensor math is fast against the
    bandwidth (H100: 64 padded rows of an 8B model take ~2 ms of compute against ~7 ms of weight reads),
    it binds on a part whose tensor rate was cut but whose bandwidth was not (H20: 148 dense BF16 TFLOPS
    against 4 TB/s, so batch-1 BF16 decode is compute-bound: Qwen3 speed benchmark, SGLang and
    transformers on the H20, ~1.4 TB/s of effective weight bandwidth at every model size).
    """
    cc = acc.nvidia_cc
    if cc is not None:
        return 64 if has_warpgroup_mma(acc) else 16 if cc >= (7, 0) else 1
    return 16 if acc.vendor == "AMD" else 1


def has_warpgroup_mma(acc: Accelerator) -> bool:
    """Whether ``acc``'s full tensor rate needs the asynchronous warpgroup MMA: ``wgmma`` (sm_90a,
    Hopper) or ``tcgen05`` (sm_100a/sm_101a/sm_110a, datacenter Blackwell and Thor), compute capability
    9.0 to 11.x (PTX ISA: both instruction families are arch-specific to those targets). GeForce and
    workstation Blackwell (sm_120, RTX 50xx, RTX PRO 6000) have neither: their tensor cores run
    ``mma.sync`` at the full rate, with 16-row tiles, as Ampere and Ada do."""
    cc = acc.nvidia_cc
    return cc is not None and (9, 0) <= cc < (12, 0)


# Share of the dense tensor peak that Ampere-style ``mma.sync`` kernels keep on Hopper and later, where
# the full rate needs the asynchronous warpgroup MMA (wgmma / tcgen05): the same FlashAttention-2 code
# reaches 50-73 % of an A100's peak and 35 % of an H100's (FlashAttention-3 paper, Shah et al. 2024),
# about half the share. Weight-only kernels written for Ampere (Marlin, the AWQ GEMM, exllama v2) are
# such kernels.
LEGACY_MMA_SHARE_HOPPER = 0.5


def legacy_mma_share(acc: Accelerator) -> float:
    """Share of the engine's usual tensor efficiency an ``mma.sync`` (Ampere-style) kernel keeps on
    ``acc``: :data:`LEGACY_MMA_SHARE_HOPPER` where the full rate needs the warpgroup MMA
    (:func:`has_warpgroup_mma`: Hopper, datacenter Blackwell), 1 elsewhere (Volta-Ada, sm_120
    Blackwell, AMD)."""
    return LEGACY_MMA_SHARE_HOPPER if has_warpgroup_mma(acc) else 1.0


def cuda_core_int_tops(acc: Accelerator) -> float:
    """INT32 instructions per second (tera) of the CUDA cores, from the FP32 rate of the datasheet.

    Volta, Turing and GA100 (cc 7.x, 8.0) have as many INT32 as FP32 lanes; GA10x, Ada, Hopper and
    Blackwell (cc 8.6+) doubled the FP32 lanes (Ampere GA102 and Hopper whitepapers: 16 INT32 + 32 FP32
    lanes per SM partition), so integer work runs at half the quoted FP32 rate. AMD / others: the FP32
    rate."""
    fp32 = acc.fp32_tflops or 0.0
    cc = acc.nvidia_cc
    if cc is not None and cc >= (8, 6):
        return fp32 / 2.0
    return fp32


def int4_recons(st: Setup, rows: float) -> bool:
    """Whether the engine's int4 kernel rebuilds fp16 weights for cuBLAS at ``rows`` rows (exllama v1's
    ``matmul_recons_thd``): the GEMM then runs at the 16-bit efficiency, not the weight-only one."""
    eng = st.engine
    return (
        st.timed_fmt.name == "int4"
        and eng.int4_row_dequant_ops > 0.0
        and eng.int4_recons_rows > 0
        and rows >= eng.int4_recons_rows
    )


def gemm_flops(st: Setup, rows: float) -> float:
    """Achieved FLOP/s of the weight GEMMs of a pass over ``rows`` rows (16-bit cuBLAS after a rebuild)."""
    if int4_recons(st, rows):
        return st.engine.achieved_tflops("16bit", st.peak_tflops) * 1e12
    return st.achieved_flops


def dense_gemm_flops(st: Setup, gemm_rate: float) -> float:
    """Achieved FLOP/s of the output head's GEMM when the format's own GEMMs run at ``gemm_rate``:
    :attr:`Setup.dense_flops` in an experts-only format (gpt-oss's bf16 lm_head), else ``gemm_rate``."""
    return st.dense_flops if st.split_dense else gemm_rate


def attention_gemm_flops(st: Setup, gemm_rate: float) -> float:
    """Achieved FLOP/s of the attention projections (q, k, v, o) when the format's own GEMMs run at
    ``gemm_rate``: :attr:`Setup.dense_flops` where the format leaves them in 16 bits
    (:attr:`Setup.wide_attention`), else ``gemm_rate``."""
    return st.dense_flops if st.wide_attention else gemm_rate


def wide_body_params(st: Setup) -> float:
    """Weights of the always-active body (``ModelConsts.dense_body``) that a narrower format leaves in 16
    bits, whose GEMMs run at :attr:`Setup.dense_flops`: all of them in an experts-only format (gpt-oss);
    the attention projections (``attn_bits``) and the rest of the first and last decoder layers
    (``wide_layers``) in Meta's FP8 checkpoints, the split :func:`memory.dense_body_bytes` stores them
    by; none where the format's GEMMs are 16-bit math already."""
    c = model_consts(st.spec)
    if st.split_dense:
        return c.dense_body
    if not st.wide_gemms:
        return 0.0
    attention = c.attn_per_layer * c.layers
    wide = attention if st.wide_attention else 0.0
    if st.timed_fmt.wide_layers and c.layers:
        rest_per_layer = max(0.0, c.dense_body - attention) / c.layers
        wide += min(st.timed_fmt.wide_layers, c.layers) * rest_per_layer
    return wide


def _body_gemm_seconds(st: Setup, rows: float, head_rows: float, gemm_rate: float) -> float:
    """FLOP time, whole model, of the always-active weight GEMMs over ``rows`` rows and the output head
    over ``head_rows``, each part at its own rate: the format's at ``gemm_rate``, those it leaves in 16
    bits (:func:`wide_body_params`) at :attr:`Setup.dense_flops`, the head at :func:`dense_gemm_flops`."""
    c = model_consts(st.spec)
    wide = wide_body_params(st)
    seconds = 2.0 * (c.dense_body - wide) * rows / gemm_rate if c.dense_body > wide else 0.0
    if wide:
        seconds += 2.0 * wide * rows / st.dense_flops
    return seconds + 2.0 * _head_params(st.spec) * head_rows / dense_gemm_flops(st, gemm_rate)


def int4_kernel_seconds(st: Setup, rows: float, tokens: float) -> tuple[float, float]:
    """(extra bytes, extra CUDA-core seconds) an exllama-v1-style int4 kernel adds to a forward pass over
    ``rows`` rows, per GPU (0, 0 for any other kernel or format). ``tokens`` sets the experts read.

    Below the engine's ``int4_recons_rows`` every row but the first unpacks the 4-bit weights again
    (``int4_row_dequant_ops`` integer ops per weight, at :func:`cuda_core_int_tops`); from there on the
    kernel rebuilds each fp16 matrix and cuBLAS reads it: 2 B written and 2 B read per weight."""
    eng = st.engine
    if st.timed_fmt.name != "int4" or not eng.int4_row_dequant_ops or rows <= 1.0:
        return 0.0, 0.0
    c = model_consts(st.spec)
    weights = (c.dense_body + c.expert_params * c.expected_experts_read(tokens) * c.moe_layers) / st.tp
    if int4_recons(st, rows):
        return 4.0 * weights, 0.0
    tops = cuda_core_int_tops(st.acc)
    if tops <= 0.0:
        return 0.0, 0.0
    return 0.0, (rows - 1.0) * weights * eng.int4_row_dequant_ops / (tops * 1e12)


def _blend(a: float, b: float) -> float:
    if a <= 0.0 or b <= 0.0:
        return max(a, b)
    return float((a**BLEND_P + b**BLEND_P) ** (1.0 / BLEND_P))


def _gqa_group(spec: ModelSpec) -> float:
    s = kv_shape(spec)
    if s.mla or not s.kv_heads:
        return 1.0
    return max(1.0, spec.num_attention_heads / s.kv_heads)


def _attn_dims(spec: ModelSpec, *, prefill: bool = False) -> int:
    """Per head, the query-key plus value dimensions an attention step multiplies over.

    MLA decodes in the absorbed form (scores against the cached latent and its rope part, values as
    the latent: 2 x kv_lora_rank + rope, 1088 for DeepSeek-V3), but prefills as ordinary multi-head
    attention over keys and values up-projected from the latent (qk_nope + rope for the keys, v_head_dim
    for the values: 192 + 128 = 320): vLLM 0.7.3 ``MLACommonImpl._forward_prefill_flash``, SGLang
    0.4.3 ``DeepseekV2AttentionMLA.forward_normal``."""
    s = kv_shape(spec)
    if not s.mla:
        return 2 * s.head_dim
    if prefill and spec.qk_nope_head_dim and spec.v_head_dim:
        return spec.qk_nope_head_dim + spec.qk_rope_head_dim + spec.v_head_dim
    return spec.kv_lora_rank * 2 + spec.qk_rope_head_dim


def _scores_per_token(spec: ModelSpec, context: float, *, square: bool = False) -> float:
    """Attention scores one new token computes against ``context`` cached tokens (all layers and heads;
    sliding-window layers see at most their window, sparse attention its top-k; ``square``: an eager
    attention, which scores every key in every layer and masks afterwards)."""
    s = kv_shape(spec)
    if square:
        return spec.num_attention_heads * s.layers * context
    slide = min(context, s.window) if s.sliding_layers else 0.0
    full = min(context, s.topk) if s.topk else context
    return spec.num_attention_heads * (s.full_layers * full + s.sliding_layers * slide)


def _indexer_flops(spec: ModelSpec, pairs: float) -> float:
    """16-bit-equivalent FLOPs of a sparse-attention indexer scoring ``pairs`` (query, cached token)
    pairs in every layer: ``index_n_heads`` dot products of ``index_head_dim``, in FP8 (half the time
    per FLOP of the 16-bit attention it is counted with)."""
    if not kv_shape(spec).topk:
        return 0.0
    return 2.0 * spec.index_n_heads * spec.index_head_dim * pairs * spec.num_hidden_layers / 2.0


#: Tokens per chunk of the chunked gated delta rule (transformers' ``torch_chunk_gated_delta_rule``
#: chunk_size 64; the fla kernels vLLM and SGLang call use 64 too)
_DELTA_RULE_CHUNK = 64


def _linear_attn_flops_per_token(spec: ModelSpec, *, prefill: bool = False) -> float:
    """FLOPs of one token in every linear-attention (Gated DeltaNet) layer, whatever the context: per value
    head, the state read by the query, the key's prediction from it and its update (three ``dk x dv``
    products: 6 x dk x dv FLOPs); a prompt token, chunked, also meets the ``_DELTA_RULE_CHUNK`` tokens of
    its chunk (scores over the key width and values: 2 x chunk x (2 dk + dv)). Qwen3-Next: 4.7 MFLOP a layer
    in prefill, against 68 MFLOP of the layer's projections."""
    layers = kv_shape(spec).linear_layers  # cached: this runs in every step
    if not layers:
        return 0.0
    dk, dv = spec.linear_key_head_dim, spec.linear_value_head_dim
    per_head = 6.0 * dk * dv + (2.0 * _DELTA_RULE_CHUNK * (2 * dk + dv) if prefill else 0.0)
    return layers * spec.linear_num_value_heads * per_head


def _attn_flops_per_token(spec: ModelSpec, context: float, *, prefill: bool = False) -> float:
    """Attention score + value FLOPs of one new token against ``context`` cached tokens (all layers);
    ``prefill``: a prompt token (MLA's unabsorbed form). A sparse-attention indexer scores them all; a
    linear-attention layer costs the same at any context."""
    scores = 2.0 * _attn_dims(spec, prefill=prefill) * _scores_per_token(spec, context)
    return scores + _indexer_flops(spec, context) + _linear_attn_flops_per_token(spec, prefill=prefill)


def _head_params(spec: ModelSpec) -> float:
    c = model_consts(spec)
    return c.lm_head if c.lm_head else c.embedding


def _head_bytes(st: Setup, c: ModelConsts, head: float) -> float:
    fmt = st.timed_fmt
    return weight_bytes(fmt, 0.0, 0.0, head) if c.lm_head else weight_bytes(fmt, 0.0, head, 0.0)


def _expert_loop_seconds(st: Setup, c: ModelConsts) -> float:
    """Eager per-expert loops (HF transformers) visit every expert of every MoE layer each forward."""
    return c.moe_layers * c.num_experts * st.engine.expert_loop_us * 1e-6


def _expert_tile_padding(st: Setup, tokens: float) -> float:
    """How many more expert-GEMM rows than token-expert pairs a pass over ``tokens`` tokens computes
    (tile padding, ``ModelConsts.expert_gemm_rows``): ~1 for a prefill chunk."""
    c = model_consts(st.spec)
    pairs = tokens * c.experts_per_token
    return c.expert_gemm_rows(tokens, st.moe_tile(tokens)) / pairs if pairs > 0 else 1.0


def attention_dp(st: Setup) -> int:
    """Ranks of data-parallel attention (``EngineProfile.dp_attention`` over TP > 1), else 1: each rank
    runs the whole attention for its own ceil(batch / ranks) sequences and reads the whole attention
    and lm_head; the MLP / MoE layers stay split over the TP group."""
    return st.tp if st.engine.dp_attention and st.tp > 1 else 1


def _dense_weight_bytes(st: Setup, c: ModelConsts) -> float:
    """Always-read weight bytes per GPU: the dense body and the output head, split over TP (with
    data-parallel attention the attention projections and the head are whole on every rank)."""
    head = _head_bytes(st, c, _head_params(st.spec))
    dense = (dense_body_bytes(st.timed_fmt, c) + head) / st.tp
    if attention_dp(st) > 1:
        dense += (attention_bytes(st.timed_fmt, c) + head) * (1.0 - 1.0 / st.tp)
    return dense


def step_weight_bytes(st: Setup, tokens: float) -> tuple[float, float]:
    """(always-read weight bytes, routed-expert bytes) one forward pass over ``tokens`` tokens reads,
    per GPU. An MoE layer reads only the experts its tokens route to: ``k`` of ``E`` for one token,
    E * (1 - (1 - k/E)**tokens) expected for many (uniform routing), all of them at large batch."""
    c = model_consts(st.spec)
    fmt = st.timed_fmt
    dense = _dense_weight_bytes(st, c)
    experts = (
        c.expert_params * c.expected_experts_read(tokens) * c.moe_layers * fmt.body_bits(True) / 8.0 / st.tp
    )
    return dense, experts


def decode_step(
    st: Setup, batch: float, context: float, *, prefill_tokens: float = 0.0, prefill_context: float = 0.0
) -> StepTime:
    """Time of one decode step for ``batch`` sequences each holding ``context`` tokens.

    ``prefill_tokens``: prompt tokens riding in the same step (chunked prefill), attending on average to
    ``prefill_context`` tokens: their FLOPs, the experts they touch and their all-reduce bytes are added.
    """
    spec, eng = st.spec, st.engine
    c = model_consts(spec)
    tp = st.tp
    head = _head_params(spec)
    q = max(0.0, prefill_tokens)
    # layer split reads every GPU's share one after the other: the whole model through one GPU's bandwidth
    dense_bytes, expert_bytes = step_weight_bytes(st, batch + q)
    dp = attention_dp(st)
    # sequences whose attention the busiest GPU runs: all of them split by heads (TP), or its own share
    # at full width (data-parallel attention; a prompt chunk riding in the step sits on one rank)
    own = batch if dp == 1 else math.ceil(batch / dp)
    kv_plain = kv_read_bytes_per_step(spec, st.kv, context, tp=tp // dp) * own
    group = _gqa_group(spec)
    kv_bytes = kv_plain * (1.0 + eng.gqa_kv_reread * (group - 1.0))
    # eager copies of the GQA-expanded cache (HF transformers: repeat_kv, unpadding), every step
    kv_bytes += kv_plain * group * eng.kv_copies_per_step
    # appending by concatenation (HF's DynamicCache): the whole cache read and written again
    kv_bytes += kv_plain * eng.kv_append_copies
    # linear-attention layers: each sequence's fixed-size state read and written whole
    kv_bytes += linear_state_step_bytes(spec, st.kv, eng.name, tp=tp // dp) * own
    # sampling: each sequence's logits (vocab, fp32) are written and read back (top-k/p, penalties)
    logits_bytes = own * spec.vocab_size * eng.logits_bytes_per_vocab / (tp // dp)
    bw = st.achieved_bandwidth
    moe = eng.moe_stream_share(st.eff_class)
    moe_c = eng.moe_compute_efficiency
    expert_rows = c.expert_gemm_rows(batch + q, st.moe_tile(batch + q))
    # exllama v1 int4 kernels: every row dequantises again below the recons threshold (CUDA-core time
    # added to the step), from there on an fp16 copy of each matrix is written and read
    wo_bytes, wo_seconds = int4_kernel_seconds(st, batch + q, batch + q)
    # weight GEMMs and attention are separate kernels: each is its own roofline, and they add up
    gemm_mem = (dense_bytes + logits_bytes + wo_bytes) / bw + expert_bytes / (bw * moe)
    # an iteration of more tokens than a micro-batch runs as several, each reading the weights again
    gemm_mem *= _micro_batches(st, batch + q)
    # tensor-core GEMMs compute whole tiles: a step multiplies at least ``st.gemm_tile`` rows, and each
    # expert an MoE layer's tokens touch computes a tile of its own
    rows = max(batch + q, st.gemm_tile)
    wflops = gemm_flops(st, batch + q)
    gemm_comp = (
        _body_gemm_seconds(st, rows, max(batch, 1), wflops)
        + 2.0 * c.expert_params * c.moe_layers * expert_rows / (wflops * moe_c)
    ) / tp
    if dp > 1:
        # the attention projections and the head run whole on each rank, for its own rows only
        attn_params = c.attn_per_layer * c.layers
        attn_rows = max(own + q, st.gemm_tile)
        gemm_comp += 2.0 * attn_params * (attn_rows - rows / tp) / attention_gemm_flops(st, wflops)
        gemm_comp += 2.0 * head * (max(own, 1) - max(batch, 1) / tp) / dense_gemm_flops(st, wflops)
    attn_mem = kv_bytes / bw
    if q and eng.attn_score_bytes:
        # prompt tokens without flash attention: their score matrix goes through memory, as in
        # :func:`prefill_seconds`
        scores = _scores_per_token(spec, prefill_context, square=eng.scores_whole_square)
        attn_mem += scores * q / (tp // dp) * eng.attn_score_bytes / bw
    heads_split = tp // dp  # ranks a sequence's attention heads are split over
    # decode attention multiplies queries by the cached keys and values in the cache's dtype, whatever the
    # weights (FlashAttention / FlashInfer decode: bf16 unless the KV cache is FP8): where the weight GEMMs
    # run at a narrower type's rate (:data:`_NARROW_MATH`), at the rate of a prompt's attention
    # (:attr:`Setup.attn_flops`): an FP8 or W8A8 model's with a 16-bit cache at the 16-bit rate, not the
    # FP8 / INT8 one, no format's at an FP4 rate; 16-bit-math classes keep their own
    narrow = st.eff_class in _NARROW_MATH
    attn_rate = (st.attn_flops if narrow else st.achieved_flops) * eng.attn_decode_efficiency
    attn_comp = _attn_flops_per_token(spec, context) * own / heads_split / attn_rate
    if q:
        attn_comp += (
            _attn_flops_per_token(spec, prefill_context, prefill=True) * q / heads_split / st.attn_flops
        )
    graphs = eng.graphs_cover(batch, q)
    gpu_fixed, launches, cpu = _fixed_costs(st, c, batch, graphs=graphs)
    book = _bookkeeping_seconds(st, batch) if eng.cpu_overlap and eng.serial_bookkeeping else 0.0
    cpu -= book
    comm = tp_step_comm_seconds(
        st.acc,
        tp,
        spec.num_hidden_layers,
        spec.hidden_size,
        batch + q,
        custom=eng.custom_allreduce_in(graphs),
    )
    if st.parallel == "layer" and st.gpus > 1:
        # a hand-off per boundary and micro-batch (its bytes those of all the step's tokens), as
        # :func:`prefill_seconds` counts them; not overlapped with the pipelined compute
        hop = eng.pipeline_hop_us * 1e-6 * _micro_batches(st, batch + q) + handoff_staging_seconds(
            st.acc, st.gpus, batch + q, spec.hidden_size
        )
        comm += (st.gpus - 1) * hop
    attn = _blend(attn_mem, attn_comp)
    gpu = _iteration_gpu_seconds(st, batch + q, gemm_mem, gemm_comp, wo_seconds + attn + gpu_fixed)
    gpu += comm
    if eng.cpu_overlap and eng.attn_host_sync:
        # the host waits for every layer's attention: that part of the GPU's time is not overlapped
        total = _blend(gpu - attn, cpu + launches) + attn
    else:
        total = _host_and_gpu(eng, gpu, launches, cpu)
    total += book
    fixed = gpu_fixed + launches + cpu + book
    return StepTime(total, gemm_mem + attn_mem, gemm_comp + attn_comp, fixed, comm, launches + cpu + book)


def _iteration_gpu_seconds(st: Setup, tokens: float, reads: float, math_s: float, rest: float) -> float:
    """GPU time of an iteration of ``tokens`` tokens whose weight reads take ``reads`` (every micro-batch's
    together), its GEMMs ``math_s`` and the rest of it ``rest``. One micro-batch: the reads and the math
    overlap (:func:`_blend`), then the rest. An iteration of several micro-batches (llama.cpp's n_ubatch
    within n_batch) runs them one after the other, each reading the weights and doing its tokens' share
    of the math and the rest; on a layer split whose engine pipelines them they flow through the GPUs
    one behind the other (:func:`pipeline_makespan`), so a one-token leftover adds a weight read's stage,
    not a whole micro-batch's (a prompt one token past n_ubatch came out faster)."""
    sizes = _micro_batch_sizes(st, tokens)
    if len(sizes) == 1:
        return _blend(reads, math_s) + rest
    read = reads / len(sizes)
    times = [_blend(read, math_s * size / tokens) + rest * size / tokens for size in sizes]
    if st.parallel != "layer" or st.gpus <= 1 or not st.engine.prefill_pipelined:
        return sum(times)
    return pipeline_makespan(times, st.gpus)


def pipeline_makespan(times: Sequence[float], gpus: int) -> float:
    """Time for micro-batches that each take ``times[i]`` through all ``gpus`` stages of a layer split
    (1 / ``gpus`` of it on each), one behind the other: the sum of their stage times, plus the largest's
    for the ``gpus - 1`` stages the pipeline takes to fill (a flow shop whose stages are equally fast). A
    one-token leftover micro-batch adds its own stage time, not a whole micro-batch's."""
    if not times:
        return 0.0
    return (sum(times) + (gpus - 1) * max(times)) / gpus


def _micro_batch_sizes(st: Setup, tokens: float) -> list[float]:
    """The micro-batches an iteration of ``tokens`` tokens runs as (``iteration_fills_batch``): full
    ``prefill_chunk_tokens`` ones and the leftover; one of all the tokens else."""
    eng = st.engine
    if not eng.iteration_fills_batch or tokens <= 0:
        return [tokens]
    return _split(tokens, max(1, eng.prefill_chunk_tokens))


def _micro_batches(st: Setup, tokens: float) -> int:
    """How many micro-batches an iteration of ``tokens`` tokens runs as (:func:`_micro_batch_sizes`)."""
    return len(_micro_batch_sizes(st, tokens))


def _host_and_gpu(eng: EngineProfile, gpu: float, launches: float, cpu: float) -> float:
    """A step's time from its GPU time, its eager kernel launches and its other host work.

    An engine that overlaps its host work runs it alongside the GPU's. One that does not adds it,
    launches included when it never uses graphs (its calibrated constants are defined that way); a
    graph engine's step outside its graphs still launches asynchronously (the GPU runs each kernel as
    the next is launched), while its scheduling waits for the step as it always does."""
    if eng.cpu_overlap:
        return _blend(gpu, cpu + launches)
    if not eng.cuda_graphs:
        return gpu + cpu + launches
    return _blend(gpu, launches) + cpu


def tp_workers_factor(tp: int) -> float:
    """How many units of ``tp_step_overhead_us`` a step pays with ``tp`` tensor-parallel workers.

    Each step the driver hands its inputs to the other workers (vLLM: one write to a shared-memory
    queue that every worker reads, tensors by NCCL broadcast; SGLang: a broadcast from rank 0; TGI's
    router: the same call to every shard at once), and the workers prepare their own inputs in
    parallel. What the step waits for is the fan-out and the slowest worker, which grow with the depth
    of a broadcast tree, not with the number of workers: log2(TP), 1 at TP=2 as one unit per extra
    worker was, 3 at TP=8 instead of 7."""
    return math.log2(tp) if tp > 1 else 0.0


def _bookkeeping_seconds(st: Setup, batch: float) -> float:
    """CPU time of a step's scheduling and per-sequence bookkeeping: per step, per extra TP worker, per
    running sequence (the launch-independent part of :func:`_fixed_costs`)."""
    eng = st.engine
    workers = eng.tp_step_overhead_us * tp_workers_factor(st.tp)
    return (eng.step_overhead_us + workers + eng.seq_overhead_us * batch) * 1e-6


def _fixed_costs(
    st: Setup, c: ModelConsts, batch: float, *, graphs: bool = True
) -> tuple[float, float, float]:
    """(GPU-side fixed time, host launch time, other CPU time) of one forward pass over ``batch``
    sequences; ``graphs``: whether the step replays a CUDA graph (:meth:`EngineProfile.graphs_cover`).

    With CUDA graphs the per-layer costs are gaps between kernels on the GPU; eager steps pay them as
    Python launch time on the CPU: the engine's own per-layer cost when it never uses graphs, the eager
    launch constant when a graph engine's step falls outside its graphs. Scheduling, sampling and
    per-sequence bookkeeping are CPU time."""
    eng = st.engine
    eager = not (graphs and eng.cuda_graphs)
    per_layer = eng.eager_layer_overhead_us if eager and eng.cuda_graphs else eng.layer_overhead_us
    layers = st.spec.num_hidden_layers * per_layer * 1e-6 + c.moe_layers * eng.moe_layer_overhead_us * 1e-6
    layers += st.spec.num_hidden_layers * eng.activation_quant_layer_us(st.eff_class) * 1e-6
    # each weight GEMM's own time besides its bytes (measured kernels, CUDA-graph engines): on the GPU
    # either way, hidden behind the host's launches in an eager step
    layers += 0.0 if eager else c.weight_gemms * eng.gemm_fixed_us(st.eff_class) * 1e-6
    if eager:
        # eager: an MoE layer launches its router, top-k, token permutation, grouped-GEMM, un-permute and
        # shared-expert kernels from Python too: about half a dense layer's launches again
        layers += c.moe_layers * EAGER_MOE_LAUNCH_FRACTION * per_layer * 1e-6
    cpu = (
        eng.step_overhead_us * 1e-6
        + eng.tp_step_overhead_us * 1e-6 * tp_workers_factor(st.tp)
        + eng.seq_overhead_us * 1e-6 * batch
        + _expert_loop_seconds(st, c)
    )
    return (0.0, layers, cpu) if eager else (layers, 0.0, cpu)


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
        sum(s.host for s in steps) / k,
    )


def _capped_causal(tokens: float, cap: int) -> float:
    """Sum over a prompt's positions of the tokens each attends to when it sees at most ``cap``."""
    if cap and tokens > cap:
        return cap * (tokens - cap / 2.0)
    return tokens * tokens / 2.0


def _causal_context(spec: ModelSpec, tokens: float) -> tuple[float, float]:
    """(full-layer, sliding-layer) sum over positions of the context each prompt token attends to
    (a sliding layer sees its window, a sparse-attention layer its top-k)."""
    s = kv_shape(spec)
    return _capped_causal(tokens, s.topk), _capped_causal(tokens, s.window if s.sliding_layers else 0)


def _prefill_attention_flops(spec: ModelSpec, tokens: float) -> float:
    """Causal attention (scores and values) FLOPs of one prompt of ``tokens`` tokens, whole model (a
    sparse-attention indexer scores every earlier token of the prompt; linear-attention layers grow with
    the prompt, not its square)."""
    s = kv_shape(spec)
    full_ctx, slide_ctx = _causal_context(spec, tokens)
    s_dim = _attn_dims(spec, prefill=True)
    attn = 2.0 * spec.num_attention_heads * s_dim * (s.full_layers * full_ctx + s.sliding_layers * slide_ctx)
    linear = _linear_attn_flops_per_token(spec, prefill=True) * tokens
    return attn + _indexer_flops(spec, tokens * tokens / 2.0) + linear


def _prefill_flops(spec: ModelSpec, tokens: float, batch: int) -> tuple[float, float, float]:
    """(dense linear FLOPs, routed-expert FLOPs, causal attention FLOPs) of ``batch`` prompts of
    ``tokens`` tokens, whole model."""
    c = model_consts(spec)
    head = _head_params(spec)
    dense = 2.0 * c.dense_body * tokens * batch + 2.0 * head * batch
    experts = 2.0 * c.expert_params * c.experts_per_token * c.moe_layers * tokens * batch
    return dense, experts, _prefill_attention_flops(spec, tokens) * batch


def _dense_prefill_excess(st: Setup, tokens: float, batch: int) -> tuple[float, float]:
    """(projection FLOPs, score FLOPs) the busiest GPU computes beyond its ``1 / tp`` share for ``batch``
    prompts under data-parallel attention: each rank runs the attention (projections and scores) of its
    own ceil(batch / ranks) prompts at full width, where TP splits every prompt's over all GPUs (0, 0
    without it)."""
    dp = attention_dp(st)
    if dp == 1:
        return 0.0, 0.0
    c = model_consts(st.spec)
    share = math.ceil(batch / dp) - batch / st.tp
    projections = 2.0 * c.attn_per_layer * c.layers * tokens
    return projections * share, _prefill_attention_flops(st.spec, tokens) * share


def _prefill_flop_seconds(st: Setup, tokens: float, batch: int, rows: float, gemm_rate: float) -> float:
    """FLOP time of ``batch`` prompts of ``tokens`` tokens passed ``rows`` at a time: the routed experts'
    GEMMs at ``gemm_rate`` (padded to their tiles, at the MoE share), the other weight GEMMs at
    ``gemm_rate`` but those the format leaves in 16 bits (:func:`_body_gemm_seconds`), the causal
    attention at :attr:`Setup.attn_flops`, and what data-parallel attention adds to the busiest GPU. Each
    part at its own rate: one rate for all would time gpt-oss's bf16 attention at the rate of its MXFP4
    experts, and a Meta FP8 checkpoint's bf16 attention projections at the FP8 rate."""
    _, experts, attn = _prefill_flops(st.spec, tokens, batch)
    experts *= _expert_tile_padding(st, rows)
    # the body's GEMMs over every prompt token, the head's over each prompt's last one
    compute = _body_gemm_seconds(st, tokens * batch, batch, gemm_rate) / st.tp
    compute += experts / st.engine.moe_compute_efficiency / st.tp / gemm_rate
    compute += attn / st.tp / st.attn_flops
    projections, scores = _dense_prefill_excess(st, tokens, batch)
    compute += projections / attention_gemm_flops(st, gemm_rate) + scores / st.attn_flops
    return compute


def prefill_compute_seconds(st: Setup, tokens: float, batch: int = 1) -> float:
    """FLOP time (+ all-reduce bytes) of ``batch`` prompts of ``tokens`` tokens: the cost of prompt tokens
    that ride in decode steps whose weights are read anyway (chunked prefill)."""
    if tokens <= 0:
        return 0.0
    compute = _prefill_flop_seconds(st, tokens, batch, tokens * batch, st.achieved_flops)
    comm = 0.0
    if st.tp > 1:
        comm = tp_step_comm_seconds(
            st.acc, st.tp, st.spec.num_hidden_layers, st.spec.hidden_size, tokens * batch, latency=False
        )
    return compute + comm


def _prefill_single_gpu_seconds(st: Setup, tokens: int, batch: int) -> float:
    """Prefill of ``batch`` prompts of ``tokens`` tokens on the model's GPUs, no layer pipelining."""
    spec, eng = st.spec, st.engine
    c = model_consts(spec)
    tp = st.tp
    total_tokens = tokens * batch
    s = kv_shape(spec)
    full_ctx, slide_ctx = _causal_context(spec, tokens)
    chunk = max(1, min(eng.prefill_chunk_tokens, total_tokens))
    compute = _prefill_flop_seconds(st, tokens, batch, chunk, gemm_flops(st, chunk))
    chunks = math.ceil(total_tokens / chunk)
    w_chunk = (
        _dense_weight_bytes(st, c)
        + c.expert_params
        * c.expected_experts_read(chunk)
        * c.moe_layers
        * st.timed_fmt.body_bits(True)
        / 8.0
        / eng.moe_stream_share(st.eff_class)
        / tp
    )
    wo_bytes, wo_seconds = int4_kernel_seconds(st, chunk, chunk)  # exllama v1: fp16 rebuild per chunk
    step_memory = (w_chunk + wo_bytes) / st.achieved_bandwidth + wo_seconds
    full, rest = divmod(total_tokens, chunk)  # full chunks, and the tokens of the last partial one
    scores = 0.0
    if eng.attn_score_bytes:
        pairs = s.full_layers * full_ctx + s.sliding_layers * slide_ctx
        if eng.scores_whole_square:  # every query against every key of the prompt, in every layer
            pairs = s.layers * float(tokens) * tokens
        score_elems = spec.num_attention_heads / tp * pairs
        scores = score_elems * batch * eng.attn_score_bytes / st.achieved_bandwidth
    graphs = eng.graphs_cover(0, chunk)
    gpu_fixed, launches, cpu = _fixed_costs(st, c, 0.0, graphs=graphs)
    custom = eng.custom_allreduce_in(graphs)
    layers, hidden = spec.num_hidden_layers, spec.hidden_size
    comm = full * tp_step_comm_seconds(st.acc, tp, layers, hidden, chunk, custom=custom)
    gpu = full * _blend(compute * chunk / total_tokens, step_memory)
    if rest:
        comm += tp_step_comm_seconds(st.acc, tp, layers, hidden, rest, custom=custom)
        gpu += _blend(compute * rest / total_tokens, step_memory)
    gpu += scores + chunks * gpu_fixed + comm
    per_step = (eng.step_overhead_us + eng.tp_step_overhead_us * tp_workers_factor(tp)) * 1e-6
    cpu_total = chunks * (cpu - per_step) + per_step
    return _host_and_gpu(eng, gpu, chunks * launches, cpu_total)


def prefill_seconds(st: Setup, tokens: int, batch: int = 1) -> float:
    """Time to process ``batch`` prompts of ``tokens`` tokens on their own (no decode alongside).

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
    total_tokens = tokens * batch
    ubatch = max(1, eng.prefill_chunk_tokens)
    # a hand-off per boundary and micro-batch (host-staged on GPUs without peer access)
    staging = handoff_staging_seconds(st.acc, g, min(ubatch, total_tokens), st.spec.hidden_size)
    hops = (g - 1) * (eng.pipeline_hop_us * 1e-6 + staging)
    if not eng.prefill_pipelined:
        return single + math.ceil(total_tokens / ubatch) * hops
    nbatch = max(ubatch, eng.prefill_batch_tokens)
    # iterations of n_batch tokens (the last one shorter), each of n_ubatch micro-batches (the last one
    # shorter): each micro-batch timed alone, a leftover of a few tokens as little more than a weight read
    full, rest = divmod(total_tokens, nbatch)
    iterations = [(full, _split(nbatch, ubatch))] if full else []
    if rest:
        iterations.append((1, _split(rest, ubatch)))
    # (whole tokens: a prompt's micro-batches split an integer count)
    alone = {size: _prefill_single_gpu_seconds(st, int(size), 1) for _, sizes in iterations for size in sizes}
    scale = single / sum(n * alone[size] for n, sizes in iterations for size in sizes)
    return sum(
        n * (pipeline_makespan([alone[size] * scale for size in sizes], g) + len(sizes) * hops)
        for n, sizes in iterations
    )


def _split(tokens: float, size: int) -> list[float]:
    """``tokens`` as micro-batches of ``size``: the full ones and the leftover (none where it divides)."""
    full, rest = divmod(tokens, size)
    return [float(size)] * int(full) + ([rest] if rest > 0 else [])
