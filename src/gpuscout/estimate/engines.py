"""Inference engine profiles: what each engine really does on a GPU, calibrated per engine and class.

A profile carries (per *engine* and *compute class*, never per GPU or per model: the estimator must carry
over to GPUs and models it has never seen, from their datasheet figures; the one exception is a GPU
*generation* whose kernel times were measured, ``generation_kernels``, not fitted):

* achieved fractions of peak: ``bandwidth_efficiency`` (weight/KV streaming) and ``compute_efficiency``
  (large GEMMs) by compute class (see ``precision.CLASS_*``), and ``moe_efficiency``, how much of the
  dense efficiency the routed-expert (grouped GEMM) kernels keep (``moe_stream_share``: times
  ``moe_weight_only_share`` for 4-bit experts);
* fixed costs: ``step_overhead_us`` per engine step (CPU scheduling, sampling, launch of the step's
  CUDA graph), ``seq_overhead_us`` per running sequence and step (per-request bookkeeping on the CPU:
  scheduler, sampler, detokeniser), ``layer_overhead_us`` per layer and forward pass (with CUDA graphs:
  the GPU-side gaps and tails between a layer's kernels, a few us; eager: the Python launch cost,
  ~0.5 ms per layer), ``moe_layer_overhead_us`` per MoE layer (router, top-k, token permutation),
  ``block_fp8_quant_layer_us`` per layer of a block-scaled FP8 model (activation quantisation);
  CPU work overlaps the GPU's when the launches are asynchronous (eager PyTorch) or the scheduler runs
  ahead (SGLang's overlap scheduler): a step is then the larger of the two, not their sum;
* batching: continuous batching or not, chunked prefill with a token budget per step
  (``prefill_chunk_tokens`` = vLLM ``max_num_batched_tokens`` / SGLang ``chunked_prefill_size`` /
  TensorRT-LLM ``max_num_tokens``), the scheduler cap on running sequences (``max_num_seqs``);
* memory: the default budget (vLLM ``gpu_memory_utilization`` 0.9, SGLang ``mem_fraction_static``,
  TensorRT-LLM ``kv_cache_free_gpu_mem_fraction`` of what is free after the weights), CUDA context and
  engine reserve (CUDA graphs, workspaces), KV block size, and the KV dtype it picks by default
  (TensorRT-LLM quantizes the KV cache to FP8 with an FP8 checkpoint).

Version matters: 2023-24 engines were slower than today's. ``estimate()`` predicts *today's* engine
(the profile); a version in the engine name ("vLLM 0.6.3", "TGI 1.0.3", "TensorRT-LLM v0.5") selects an
``EngineEra``: the same engine with the fixed costs / batching / efficiency scales of that era, fitted on
the rows of that era (benchmarks/accuracy.py). The advisor never asks for an era.

Time model the numbers plug into: ``throughput.py`` (decode step, prefill) and ``serving.py`` (load).
``CALIBRATION`` records, per engine, which rows of the calibration CSV fixed which numbers.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from gpuscout.errors import GpuscoutError, InvalidInputError, UnknownNameError, closest, fold_name
from gpuscout.estimate.launch_flags import profile_settings, read_flags, split_flags
from gpuscout.estimate.precision import (
    CLASS_16BIT,
    CLASS_FP4,
    CLASS_FP8,
    CLASS_WEIGHT_ONLY,
    KERNEL_FP8_BLOCK,
    SPARSE_MLA_FP8,
    resolve_precision,
)
from gpuscout.estimate.runtime import CUDA_RUNTIME, DeviceRuntime, device_runtime, on_runtime, runs_on_vendor
from gpuscout.knowledge.engine_support import release_number

# exllama v1's q4_matmul (turboderp/exllama, vendored by AutoGPTQ 0.4 and TGI 1.0-1.1) dot_product_8: per
# 4-bit weight a shift, a mask, a zero-point subtraction and an int->half conversion (I2F runs at a quarter
# of the INT32 rate on sm80/sm86: 4 op-equivalents), half of a half2 pack and of a half2 FMA: ~8 integer-op
# equivalents per weight, repeated for every input row. Not fitted: on an A10G (15.8 INT32 TOPS) it gives
# 3.4 ms per extra row for Llama-2-7B (TGI 1.0.3, 1 -> 5 users: +3.4 ms per user and step), on an A100
# (19.5 TOPS) 5.3 ms for the 13B (optimum benchmark, batch 1 -> 4: +3.6 to +6.8 ms per row).
EXLLAMA_V1_ROW_OPS = 8.0
EXLLAMA_V1_RECONS_ROWS = 8  # matmul_recons_thd: from 8 rows on, rebuild the fp16 matrix and call cuBLAS
# Host time of launching one decoder layer's kernels from Python when no CUDA graph replays them (eager
# PyTorch: ~40-60 kernels, each a Python call and a launch at ~7-11 us on the cloud VMs measured here --
# benchmarks/gpu_measure.py times one eager op per run), whichever server wraps it: HF transformers'
# generate, TGI 1.x, trtllm-serve 0.17-0.19, vLLM --enforce-eager, and the steps a graph engine's graphs
# do not cover. One constant fitted on the rows of all of them (``eager_layer_launch_us`` in
# benchmarks/accuracy.py). It depends on the host's single-thread speed, which no row's source states:
# one launch took 9.2 us on one H200 VM and 7.1, then 11.1 us minutes apart on another, and
# Llama-3.1-8B's eager batch-1 decode ran 22.9 and 15.3 tokens/s on two such VMs (the calibration set
# keeps both).
EAGER_LAYER_LAUNCH_US = 576.0
# HF transformers' FlashAttention-2 decode path (every transformers row but this project's H200 ones runs
# it): the GQA-expanded K/V written (repeat_kv) and gathered again to unpad it, ``kv_copies_per_step``
# passes over the expanded cache (fitted; the DynamicCache's concatenation is inside that figure), and a
# host sync per layer (``.max().item()`` on the attention mask)
_HF_FA2_PATH: dict[str, object] = {
    "kv_copies_per_step": 3.3,
    "attn_host_sync": True,
    "kv_append_copies": 0.0,
}


@dataclass(frozen=True, slots=True)
class EngineEra:
    """A past version range of an engine and what it did differently, or a variant of it.

    ``versions`` is a regex on the version found in the engine name: the ``major.minor`` ("0.6", "1.0")
    or, for an era that began or ended within a minor release, the ``major.minor.patch`` ("0.4.3"),
    matched whole against that version only (never against a flag's value: "tgi --cuda-memory-fraction
    0.8" is today's TGI). A ``variant`` (``variant=True``) is instead a regex searched in the whole
    engine text, name and flags: a flag ("--enforce-eager"), a word ("fused", "gemv") or a year
    ("llama.cpp 2024"); its flags are read by the profile, not reported as ignored.
    ``overrides`` replaces profile attributes (fixed costs, batching); ``efficiency_scale`` multiplies
    every bandwidth and compute efficiency (older kernels); ``kernel_scales`` multiplies those of one
    efficiency key (a kernel family the era ran differently: SGLang's block-FP8 GEMMs before DeepGEMM)."""

    name: str
    label: str
    versions: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    efficiency_scale: float = 1.0
    compute_scale: float = 1.0  # multiplies the compute efficiencies only (kernels slow at GEMMs)
    kernel_scales: Mapping[str, float] = field(default_factory=dict)
    # the vendors ("amd", "nvidia") on whose GPUs every row behind the scales above was measured; on other
    # GPUs the era runs at the profile's own efficiencies and the estimate says the era's kernels are not
    # calibrated there (empty: the scales hold on every GPU)
    scales_measured_on: tuple[str, ...] = ()
    variant: bool = False  # ``versions`` is searched in the engine's whole text, not matched to its version
    # the release the architecture rules (``architecture_support.csv``) judge a variant as, for an engine
    # that numbers builds, not releases: llama.cpp's 2023-2024 builds are its release "2024", which
    # predates DeepSeek-V3 (first run in January 2025 builds); "" = the era names no release
    release: str = ""

    def matches(self, version: str) -> bool:
        minor = ".".join(version.split(".")[:2])
        return any(re.fullmatch(self.versions, v) is not None for v in {version, minor})


@dataclass(frozen=True, slots=True)
class GenerationKernels:
    """What an engine's kernels do differently on one GPU generation, from their measured times on it, not
    from calibration rows (the calibration set has no inference row on these GPUs). aiconfigurator-core
    0.12.0's tables time each engine's own GEMM and MoE kernels on H100, H200 and the datacenter Blackwell
    systems (``benchmarks/data/moe_kernels_measured.csv``); ``benchmarks/moe_kernels.py`` prints the
    figures below from them. Each is a ratio between two kernels *on the same GPUs*, so it does not depend
    on which GPUs the profile's own streaming shares were fitted on.

    ``class_stream``: a compute class's decode GEMMs (1-32 rows) stream at this multiple of the 16-bit
    GEMMs' share of the bandwidth (SGLang's NVFP4 GEMMs: 0.73x on B200, GB200, B300 and GB300);
    ``class_compute``: a compute class's large GEMMs (2,048-8,192 rows, compute-bound) reach this multiple
    of the 16-bit GEMMs' share of their own peak (vLLM's per-tensor FP8 on H100, H200 and L40S: 0.78x, so
    1.56x the bf16 rate where the datasheet doubles it); ``moe_weight_only_share`` replaces the profile's
    (4-bit experts against the same GPU's dense GEMV rate); None: the profile's."""

    label: str  # "datacenter Blackwell (sm_100 / sm_103)"
    capabilities: tuple[tuple[int, int], ...]  # the NVIDIA compute capabilities it covers
    class_stream: Mapping[str, float] = field(default_factory=dict)
    moe_weight_only_share: float | None = None
    class_compute: Mapping[str, float] = field(default_factory=dict)

    def covers(self, cc: tuple[int, int] | None) -> bool:
        return cc is not None and cc in self.capabilities

    def parts(self, hopper_moe_share: float) -> tuple[tuple[str, str], ...]:
        """The figures in words, each with the efficiency key it concerns (a compute class, or
        ``MOE_WEIGHT_ONLY_NOTE`` for the 4-bit experts); ``hopper_moe_share``: the profile's own 4-bit
        expert share, measured on Hopper."""
        out = [
            (cls, f"{cls} GEMMs stream at {scale:.2f}x the 16-bit GEMMs' share of the bandwidth")
            for cls, scale in self.class_stream.items()
        ]
        out += [
            (cls, f"large {cls} GEMMs reach {scale:.2f}x the 16-bit GEMMs' share of their peak")
            for cls, scale in self.class_compute.items()
        ]
        if self.moe_weight_only_share is not None:
            out.append(
                (
                    MOE_WEIGHT_ONLY_NOTE,
                    f"4-bit experts stream at {self.moe_weight_only_share:.2f} of the dense GEMV rate "
                    f"({hopper_moe_share:.2f} on Hopper)",
                )
            )
        return tuple(out)


# the key of a generation's note on 4-bit MoE experts (:meth:`GenerationKernels.parts`)
MOE_WEIGHT_ONLY_NOTE = "moe-weight-only"


@dataclass(frozen=True, slots=True)
class DeviceDefaults:
    """The cap on running sequences and the token budget per step an engine picks from the GPU it starts
    on: ``small`` / ``small_tokens`` below a memory threshold (or on a GPU whose name holds one of
    ``excluded``), ``large`` / ``large_tokens`` at or above it, ``largest_tokens`` from
    ``largest_memory_gib`` on. The profile carries the ``small`` cap; :meth:`EngineProfile.for_gpu`
    swaps in the others while a launch flag did not set them (``EngineProfile.stated_flags``), so a
    stated value stands; pass ``large_gpu=None`` to pin a profile's own figures."""

    min_memory_gib: float
    excluded: tuple[str, ...]  # lower-case substrings of a GPU name the rule leaves out
    small: int  # max running sequences below the threshold
    large: int  # the same on a GPU the rule applies to
    small_tokens: int = 0  # tokens per step below the threshold (0: the profile's own)
    large_tokens: int = 0
    largest_memory_gib: float = 0.0  # a third tier from this memory on (0: none)
    largest_tokens: int = 0

    def applies(self, memory_gib: float, gpu_name: str) -> bool:
        name = gpu_name.lower()
        return memory_gib >= self.min_memory_gib and not any(x in name for x in self.excluded)

    def tokens(self, memory_gib: float, gpu_name: str) -> int:
        """The step's token budget on this GPU (0: the profile's own)."""
        if self.largest_memory_gib and memory_gib >= self.largest_memory_gib:
            return self.largest_tokens
        return self.large_tokens if self.applies(memory_gib, gpu_name) else self.small_tokens


# vLLM V1's OpenAI server (vllm/engine/arg_utils.py ``EngineArgs.get_batch_defaults``, read in the
# published 0.34.0 wheel): on a GPU of >= 160 GiB (B200, B300, MI300X) 16384 tokens per step and 1024
# sequences; from 70 GiB on, unless the name holds "a100" (a larger budget lowered A100 throughput, vLLM PR
# #17885), 8192 and 1024; elsewhere 2048 and 256 (the offline LLM class: 16384 / 8192 there). Tried in
# stop 29 from memory, the 2048-token step had moved the held-out TTFT under load 42.9% -> 44.1%: an L4
# row of vLLM 0.23 (ai.wmx.dev, 32 clients x 256 prompt tokens, median TTFT 135 ms) looked like one
# ~8192-token step; the code says 2048, and the engine is modelled as its code starts it.
VLLM_V1_DEVICE_DEFAULTS = DeviceDefaults(
    70.0,
    ("a100",),
    small=256,
    large=1024,
    small_tokens=2048,
    large_tokens=8192,
    largest_memory_gib=160.0,
    largest_tokens=16384,
)


@dataclass(frozen=True, slots=True)
class EngineProfile:
    """How one inference engine uses a GPU."""

    name: (
        str  # canonical: "vllm", "sglang", "tensorrt-llm", "tgi", "hf-transformers", "llama.cpp", "gpt-fast"
    )
    label: str
    bandwidth_efficiency: Mapping[str, float]  # by compute class; key "default" for the rest
    compute_efficiency: Mapping[str, float]  # by compute class; key "default" for the rest
    stream_ceiling_gbps: Mapping[str, float] = field(default_factory=dict)  # by class; absent = none
    compute_ceiling_tflops: Mapping[str, float] = field(default_factory=dict)  # by class; absent = none
    # how the engine spreads one model over several GPUs when not told otherwise: "tensor" (TP), or
    # "layer" (whole layers per GPU, run in turn: llama.cpp's --split-mode layer, accelerate's
    # device_map="auto" under HF transformers)
    default_parallel: str = "tensor"
    moe_efficiency: float = 0.6  # share of the dense bandwidth efficiency routed-expert weight reads reach
    # the part of ``moe_efficiency`` 4-bit weight-only expert kernels keep (Marlin INT4, MXFP4 W4A16):
    # :meth:`moe_stream_share`
    moe_weight_only_share: float = 1.0
    # where the MoE streaming figures come from when not fitted on the calibration rows ("" = fitted, or
    # priors where ``uncalibrated`` says so)
    moe_source: str = ""
    moe_compute_efficiency: float = 0.5  # share of the dense compute efficiency grouped expert GEMMs reach
    fp16_accumulate: bool = False  # 16-bit GEMMs accumulate in fp16 (2x rate on GeForce parts)
    layer_overhead_us: float = 0.0
    step_overhead_us: float = 0.0
    seq_overhead_us: float = 0.0
    # CPU per step and doubling of the TP workers (the step's inputs fanned out to them; log2(TP) units:
    # throughput.tp_workers_factor)
    tp_step_overhead_us: float = 0.0
    # tensor-parallel all-reduces through the engine's own one-shot kernel when a step replays a CUDA graph
    # on NVLink (or 2 PCIe GPUs with peer access): ~4.5 us at any TP where NCCL takes 8-20
    # (parallel.allreduce_latency_us); False: NCCL through torch.distributed (TGI, transformers, gpt-fast)
    custom_allreduce: bool = False
    moe_layer_overhead_us: float = (
        0.0  # extra fixed cost of an MoE layer (router, top-k, permute, grouped GEMMs)
    )
    # per decoder layer, block-scaled FP8 only: the per-token-group activation quantisation kernels run
    # before each block-FP8 GEMM (qkv, o, gate/up, down), unfused with the norms in front of them
    block_fp8_quant_layer_us: float = 0.0
    # GPU time a decode GEMM kernel takes besides streaming its weights: the intercept of latency against
    # weight bytes of the engine's own small-batch GEMMs (1-32 rows, measured: aiconfigurator-core 0.12.0's
    # bf16 GEMM tables, benchmarks/moe_kernels.py). Each weight GEMM of a CUDA-graph step pays it once
    # (``ModelConsts.weight_gemms``): it is what a thin tensor-parallel shard of a big model or a small
    # model's small matrices cost beyond their bytes. 0: not measured for the engine (folded into its
    # fitted streaming share and per-layer cost)
    gemm_kernel_us: float = 0.0
    # the same for per-tensor FP8 (W8A8) GEMMs, whose kernel call also quantises its input to FP8 (vLLM's
    # CUTLASS scaled-mm, SGLang's sgl-kernel fp8_scaled_mm: the same tables' fp8 lane). 0: as bf16
    fp8_gemm_kernel_us: float = 0.0
    # the same for NVFP4 GEMMs (the call quantises its input to FP4), measured on datacenter Blackwell
    # (B200, GB200, B300, GB300), the one generation that runs them in the tables; the RTX Blackwell parts
    # (sm_120) pay it too. 0: as bf16
    fp4_gemm_kernel_us: float = 0.0
    # the engine's measured kernel shares on GPU generations (:class:`GenerationKernels`), applied by
    # :meth:`for_gpu`; ``generation_parts`` (key, words) and ``generation_label`` say which applied
    generation_kernels: tuple[GenerationKernels, ...] = ()
    generation_parts: tuple[tuple[str, str], ...] = ()
    generation_label: str = ""
    expert_loop_us: float = 0.0  # eager MoE: cost of visiting one expert of one layer, every forward pass
    request_overhead_us: float = 0.0  # per request, on its TTFT: tokenisation, API server, admission
    attn_decode_efficiency: float = (
        1.0  # decode attention FLOPs at this share of the GEMM rate (HF eager: low)
    )
    gemm_min_rows: int = 0  # rows a weight GEMM computes at least; 0: the GPU's tensor-core tile
    # (throughput.gemm_tile_rows: 64 on Hopper+, 16 before); 1: GEMV-style small-batch kernels
    # rows the engine's weight-only (int4/int8 weights, 16-bit math) kernels compute at least: Marlin
    # (vLLM/SGLang gptq_marlin, awq_marlin), the AWQ GEMM kernel and exllama v2 dequantise a weight tile
    # into registers and multiply it with Ampere-style mma.sync m16n8k16, whose M = 16 rows are the
    # tokens: 16 on every GPU with tensor cores, Hopper included; 1: GEMV kernels (AutoAWQ GEMV,
    # exllama v1's q4_matmul, CUDA-core dot products)
    weight_only_tile_rows: int = 16
    # the compute capability on which the engine's dense int4 (AWQ / GPTQ) GEMMs are a warpgroup-MMA kernel
    # instead of Marlin's mma.sync: vLLM tries Machete before Marlin and Machete takes exactly sm_90
    # (``_POSSIBLE_KERNELS`` and ``MacheteLinearKernel.can_implement``, read in the 0.34 wheel; AWQ's
    # uint4 + zero points and GPTQ's uint4b8 and 8-bit uint8b128 (``query_machete_supported_quant_types``
    # in the 0.34 sdist), groups of 64 / 128 or per channel). It upconverts the
    # weights in registers as wgmma's A operand, so the tokens ride in N (down to 8): the same small
    # tiles as Marlin, without the share of the rate mma.sync loses on Hopper. MoE experts keep the
    # fused Marlin MoE kernel. None: Marlin (or the engine's own kernel) everywhere.
    weight_only_wgmma_cc: tuple[int, int] | None = None
    # rows each touched expert's GEMM computes at least in a small decode step (0: the GPU's tile, as
    # for dense GEMMs): the Triton fused-MoE kernel of vLLM and SGLang pads every expert's tokens to
    # BLOCK_SIZE_M, 16 in the default config for a batch up to the expert count and in the tuned
    # configs of small batches, and a 16-row Triton dot runs as mma.sync (MMAv2), not wgmma, on Hopper
    moe_tile_rows: int = 0
    # int4 (GPTQ) kernel of the exllama v1 family (TGI 1.x, AutoGPTQ 0.4 "exllama"): its q4_matmul grid has
    # one block row per input row, so every row unpacks and converts the 4-bit weights again on the CUDA
    # cores: ``int4_row_dequant_ops`` integer-op equivalents per weight and extra row (0: kernels that
    # dequantise a weight tile once for all rows: Marlin, exllama v2, AWQ GEMM). From
    # ``int4_recons_rows`` rows on (exllama's ``matmul_recons_thd``) the kernel instead rebuilds the
    # fp16 matrix in a scratch buffer and calls cuBLAS: 2 B written + 2 B read per weight (0: never)
    int4_row_dequant_ops: float = 0.0
    int4_recons_rows: int = 0
    pipeline_hop_us: float = 0.0
    logits_bytes_per_vocab: float = 8.0  # per sequence and step: fp32 logits written then read by sampling
    gqa_kv_reread: float = 0.0
    # passes over the GQA-expanded KV cache (``heads / kv_heads`` times the cache) a decode step makes
    # besides the attention's own read: HF transformers' FA2 path writes the expanded K/V (repeat_kv) and
    # gathers it again to unpad it (read + write) in every layer, every step
    kv_copies_per_step: float = 0.0
    # passes over the (unexpanded) KV cache a decode step makes to append its token, besides the
    # attention's read: HF transformers' DynamicCache concatenates (torch.cat) every layer's cache with the
    # new token's K/V, reading and writing it whole (2); a paged or preallocated cache writes the token only
    kv_append_copies: float = 0.0
    # the decode attention waits for the host in every layer (HF FA2 unpadding: ``.max().item()`` on the
    # attention mask), so its GPU time adds to the CPU's launch time instead of hiding behind it
    attn_host_sync: bool = False
    # bytes of memory traffic per attention score of a prompt (no flash attention: the score matrix is
    # written, softmaxed and read back); 0 with flash attention, which keeps the scores on chip
    attn_score_bytes: float = 0.0
    # bytes per attention score held at once at the peak of such a prompt's attention (llama.cpp: its F32
    # scores; HF transformers' eager attention: the bf16 scores and their fp32 softmax, 6)
    attn_score_held_bytes: float = 4.0
    # why the attention runs without a fused kernel for this model ("" where the profile says it does);
    # such an eager attention scores every query of a prompt against every key, in every layer (the causal
    # and sliding-window masks are applied to the whole square afterwards)
    eager_attention_note: str = ""
    prefill_pipelined: bool = False  # layer split overlaps micro-batches across GPUs during prefill
    # a layer split (pipeline parallelism) keeps one batch in flight per GPU, each stepping through the GPUs
    # in turn, so every GPU works at once (vLLM's virtual engines, V1's batch queue of
    # pipeline_parallel_size batches; SGLang's and TensorRT-LLM's pipeline micro-batches); without it the
    # one batch visits the GPUs in turn and the others idle (llama.cpp's decode, accelerate's
    # device_map): :func:`serving.serve_pipelined`
    pipeline_microbatches: bool = False
    # the launch flag that sets that pipeline's depth, as the advisor tells a renter to start it
    pipeline_flag: str = ""
    # the first release with that pipeline (a named older ``version`` has none); "" = every release
    pipeline_since: str = ""
    pipeline_source: str = ""  # where ``pipeline_since`` is read
    prefill_batch_tokens: int = 2048  # logical batch split in micro-batches (llama.cpp n_batch)
    # one scheduler iteration takes up to ``prefill_batch_tokens`` tokens (decodes first, then prompt
    # tokens) and runs them as micro-batches of ``prefill_chunk_tokens``, each reading the weights again:
    # llama-server's update_slots fills n_batch (2048) and llama_decode splits it into n_ubatch (512)
    iteration_fills_batch: bool = False
    prefill_chunk_tokens: int = 2048  # token budget per step (chunked prefill) / micro-batch size
    chunked_prefill: bool = True  # prefill chunks ride in decode steps (else prefills stall decoding)
    # the step's token budget counts the decoding sequences' tokens too, not only prompt chunks: vLLM's
    # scheduler (V1 ``token_budget``; V0 chunked prefill's ``budget``) charges each running decode one
    # token of ``max_num_batched_tokens`` before it admits prompt chunks, and TensorRT-LLM's
    # ``max_num_tokens`` bounds context plus generation tokens per iteration. SGLang's
    # ``chunked_prefill_size`` and TGI's ``max_batch_prefill_tokens`` bound prefill tokens alone
    decodes_in_token_budget: bool = False
    # MLA models (DeepSeek-V2/V3) run without chunked prefill, the step budget being the whole context
    # (max_model_len): vLLM 0.7 forced chunked prefill and prefix caching off for MLA
    mla_unchunked_prefill: bool = False
    # launch flags as the engine was started (0 / None: its defaults): --max-model-len (0: the model's
    # own context), --max-num-batched-tokens / TensorRT-LLM max_num_tokens, --enable-chunked-prefill
    max_model_len: int = 0
    max_num_batched_tokens: int = 0
    enable_chunked_prefill: bool | None = None
    # --kv-cache-dtype / llama.cpp -ctk -ctv, as gpuscout names the dtype ("auto": the engine's default; "":
    # not stated): the cache the estimate sizes, as a ``kv_dtype`` would (``estimate.api._asked_kv``)
    kv_cache_dtype: str = ""
    # vLLM V0's scheduler sizes its step budget from max_model_len when chunked prefill is off
    # (max_num_batched_tokens = max(max_model_len, 2048)), and switches chunked prefill on by itself
    # for a context above ``auto_chunk_above_len`` tokens, with ``auto_chunk_tokens`` per step
    # (vLLM 0.5-0.7 EngineArgs: "Chunked prefill is enabled by default for models with max_model_len >
    # 32K"; SchedulerConfig's default max_num_batched_tokens with chunked prefill: 512)
    prefill_budget_from_model_len: bool = False
    auto_chunk_above_len: int = 0
    auto_chunk_tokens: int = 512
    memory_utilization: float = 1.0  # share of capacity the engine lets itself use (vLLM 0.9)
    memory_fraction_of_free: bool = False  # the share applies to memory left after weights (TRT-LLM)
    cuda_context_gb: float = 0.5  # CUDA context + libraries, per GPU
    engine_reserve_gb: float = 0.0  # CUDA graphs, workspaces, per GPU
    kv_block_tokens: int = 1  # paged KV allocation granularity
    kv_allocates_full_context: bool = False  # llama.cpp reserves n_ctx for every slot up front
    # In a model that mixes sliding-window and full layers (Gemma 2/3, gpt-oss), whether the cache keeps a
    # sliding layer's last window only: per-layer cache groups (vLLM's hybrid KV cache manager, llama.cpp's
    # SWA cache, HF transformers' HybridCache). False: one block table (or one equal KV tensor) for every
    # layer sizes each at the whole context, the window applied by the attention alone (memory only: the
    # decode reads stay the window's, see ``kv_cache``). From ``kv_layer_windows_since`` on ("" = every
    # release of this profile); where that is read (or "recalled"), ``kv_layer_windows_source``. Models
    # whose every layer is windowed (Mistral 7B v0.1) are not concerned.
    kv_layer_windows: bool = True
    kv_layer_windows_since: str = ""
    kv_layer_windows_source: str = ""
    # KV blocks allocated as a sequence grows (vLLM's block manager, SGLang's token pool: a request is
    # admitted for its prompt, and a full cache preempts or retracts one): a steady flow of staggered
    # requests holds prompt + output / 2 tokens each on average, so more run than fit at full length.
    # False: the engine reserves a request's whole length on admission (TensorRT-LLM's default
    # GUARANTEED_NO_EVICT, TGI's max_batch_total_tokens budget, llama.cpp's slots) or batches statically
    kv_grows_on_demand: bool = False
    kv_fp8_with_fp8_weights: bool = False  # a per-tensor FP8 checkpoint gets an FP8 KV cache by default
    # the cache a sparse-attention MLA model (DeepSeek-V3.2) gets by default and for "fp8" ("": the
    # engine's usual default): vLLM's DeepseekV32ForCausalLM.verify_and_update_config turns "auto" and
    # any fp8 cache dtype into "fp8_ds_mla" (vllm/model_executor/models/config.py)
    sparse_mla_kv: str = ""
    max_num_seqs: int = 256  # scheduler cap on concurrent sequences
    # step budget and sequence cap chosen by the GPU's memory (vLLM V1), applied by ``for_gpu``
    large_gpu: DeviceDefaults | None = None
    # "sglang": today's SGLang sizes its prefill chunk, decode CUDA graphs and memory share by the GPU it
    # starts on (:mod:`gpuscout.estimate.sglang_start`); "" = the profile's own figures stand
    device_rule: str = ""
    # the memory share holds the weights and the KV cache only (SGLang's mem_fraction_static: activations
    # and graph buffers live in the rest); otherwise it holds the activations too (vLLM's
    # gpu_memory_utilization)
    pool_excludes_activations: bool = False
    # launch flags written after the engine's name (gpuscout.estimate.launch_flags): those read, as
    # "max_num_seqs 512", and those gpuscout does not model, which the estimate names as ignored
    stated_flags: tuple[str, ...] = ()
    ignored_flags: tuple[str, ...] = ()
    # what the version in the engine's name leaves unsaid, which the estimate carries as a warning: a
    # release newer than the newest the profile describes (:data:`NEWEST_RELEASES`), or a version that
    # does not read as one ("vllm 0.x"); "" = nothing to say (set by :func:`profile_for`)
    version_note: str = ""
    multi_step: int = 1  # decode steps per scheduler pass (vLLM 0.6 --num-scheduler-steps): admission waits
    # TGI's router (router/src/infer.rs batching_task, 1.x-3.x): waiting requests join the running batch
    # only once ``max_waiting_tokens`` (default 20) decode steps have passed since the last admission,
    # unless they number ``waiting_served_ratio`` (1.2) x the running batch; an empty batch admits at once
    max_waiting_steps: int = 0
    continuous_batching: bool = True
    cuda_graphs: bool = True  # False: per-layer launch costs are CPU time (eager PyTorch)
    # A CUDA graph replays only the steps it was captured for; any other step of a graph engine runs
    # eager and launches every layer's kernels from Python (``eager_layer_overhead_us`` per layer, the
    # host time of :data:`EAGER_LAYER_LAUNCH_US`). TGI 2-3 (server/.../flash_causal_lm.py) replays graphs
    # for decode batches of its ``--cuda-graphs`` sizes, default 1,2,4,8,16,32: a step carrying a prompt
    # or a larger batch runs eager. ``graph_max_batch`` 0: graphs for any batch.
    graph_max_batch: int = 0
    graphs_in_prefill: bool = True
    eager_layer_overhead_us: float = EAGER_LAYER_LAUNCH_US
    cpu_overlap: bool = False  # CPU work (scheduling, eager launches) overlaps the GPU's (async)
    # with ``cpu_overlap``: only the eager launches run ahead of the GPU; the step's bookkeeping (per-step
    # and per-worker costs, per-sequence detokenisation and stop checks) waits for the sampled tokens and
    # adds to the step (TGI 1.x: the Rust router sends each Decode RPC only after the shards returned
    # the previous step's generations, which each shard builds after a ``.tolist()`` of the tokens)
    serial_bookkeeping: bool = False
    embeddings_on_host: bool = False  # llama.cpp keeps token_embd in host RAM
    # how a whole-layer split gives each GPU its layers (``memory.split_layers``): llama.cpp's own rule
    # (split points at the GPUs' shares, the output layer counted as one more layer), or the pipeline
    # ranks' of vLLM / SGLang (``get_pp_indices``), which accelerate's byte balancing is costed as
    layer_split_rule: Literal["llama.cpp", "pipeline"] = "pipeline"
    # data-parallel attention (SGLang ``--enable-dp-attention``, DeepSeek MLA models): every GPU holds
    # the whole attention (and embedding and lm_head) and runs it for its own share of the sequences,
    # whose cache only it keeps; the MLP / MoE layers stay split over all GPUs, the tokens gathered from
    # every rank before them (sglang 0.4.3.post2 models/deepseek_v2.py: ReplicatedLinear attention and
    # lm_head, embedding ``enable_tp=False``, ``all_gather`` before ``self.mlp``)
    dp_attention: bool = False
    # constants left at their physics priors because no calibration row of this engine (and era) exercises
    # them: the estimate says so where they matter (the MoE ones for an MoE model)
    uncalibrated: tuple[str, ...] = ()
    # efficiency keys (compute classes, kernel families) whose figures no calibration row fits: priors, or
    # the engine's fallback figure (a block-FP8 kernel taking the FP8 one)
    uncalibrated_classes: tuple[str, ...] = ()
    # efficiency keys whose kernels on one vendor's GPUs are other code than the rows that fitted the key
    # ran, and that no calibration row runs there: vendor (lower case) -> key -> what runs there. The
    # estimate times them at the fitted figure and says the speed is not calibrated
    # (``Estimate.speed_calibrated`` False, a warning): :meth:`foreign_kernels`
    vendor_uncalibrated: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # fitted figures that rest on a narrow set of rows (one GPU, one past release): the estimate says so
    # where they apply (key: an efficiency key such as "fp8-block", or "moe" for an MoE model's constants)
    calibration_basis: Mapping[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    eras: tuple[EngineEra, ...] = ()
    era: str = ""  # set on a profile derived for a past version ("" = today's engine)
    # the name a past release is labelled under where ``label`` describes today's only ("vLLM" of "vLLM (V1
    # engine)", "HF TGI" of "HF TGI 3.x"); "" = ``label``
    past_label: str = ""
    # the release written after the engine's name ("0.6.3" of "vLLM 0.6.3"), which the support rules
    # read (a rule may hold for a range of releases: vLLM ran Volta through 0.19); "" = today's
    version: str = ""
    # the release a named era stands for where the engine numbers no releases (``EngineEra.release``: "2024"
    # of "llama.cpp 2024"); read by the architecture rules only (:func:`support.release_refusal`)
    era_release: str = ""
    # eras whose efficiency scales hold only on some vendors' GPUs (``EngineEra.scales_measured_on``):
    # applied by :meth:`for_gpu`, which knows the GPU
    vendor_scoped_eras: tuple[EngineEra, ...] = ()
    # the GPU runtime it runs on (set by :meth:`for_gpu` from the GPU's vendor): what its words name
    runtime: DeviceRuntime = CUDA_RUNTIME
    notes: str = ""

    def bandwidth_eff(self, compute_class: str) -> float:
        return _by_class(self.bandwidth_efficiency, compute_class) or self.bandwidth_efficiency["default"]

    def compute_eff(self, compute_class: str) -> float:
        return _by_class(self.compute_efficiency, compute_class) or self.compute_efficiency["default"]

    def achieved_tflops(self, compute_class: str, peak_tflops: float) -> float:
        """Dense rate reached in large GEMMs: eff x peak, softly capped by the kernels' ceiling.

        Kernels written for one generation (llama.cpp's mma.sync MMQ kernels, no Hopper wgmma) stop
        scaling on the biggest parts; the ceiling is per engine and class, never per GPU.
        """
        base = self.compute_eff(compute_class) * peak_tflops
        ceiling = self.compute_ceiling(compute_class)
        if not ceiling:
            return base
        return float((base**-3 + ceiling**-3) ** (-1.0 / 3.0))

    def has_pipeline(self) -> bool:
        """Whether this engine (at its named ``version``) keeps a batch in flight per GPU of a layer split:
        ``pipeline_microbatches``, from ``pipeline_since`` on."""
        if not self.pipeline_microbatches:
            return False
        if not (self.version and self.pipeline_since):
            return True
        return _at_or_after(self.version, self.pipeline_since)

    def foreign_kernels(self, vendor: str, key: str) -> str:
        """What runs efficiency key ``key`` on ``vendor``'s GPUs where no calibration row covers it (see
        ``vendor_uncalibrated``); "" where the fitted figure's own kernels run, or a row covers them."""
        return self.vendor_uncalibrated.get(vendor.lower(), {}).get(key, "")

    def keeps_layer_windows(self) -> bool:
        """Whether this engine (at its named ``version``) keeps only the window in the sliding layers of a
        model mixing sliding and full layers: ``kv_layer_windows``, from ``kv_layer_windows_since`` on."""
        if not self.kv_layer_windows:
            return False
        if not (self.version and self.kv_layer_windows_since):
            return True
        return _at_or_after(self.version, self.kv_layer_windows_since)

    @property
    def step_token_budget(self) -> int:
        """Tokens one scheduler step (llama.cpp: one iteration of micro-batches) takes at most."""
        return self.prefill_batch_tokens if self.iteration_fills_batch else self.prefill_chunk_tokens

    def graphs_cover(self, batch: float, prefill_tokens: float = 0.0) -> bool:
        """Whether a step of ``batch`` decoding sequences (and ``prefill_tokens`` prompt tokens riding
        along) replays a CUDA graph."""
        if not self.cuda_graphs:
            return False
        if prefill_tokens > 0 and not self.graphs_in_prefill:
            return False
        return not (self.graph_max_batch and batch > self.graph_max_batch)

    def custom_allreduce_in(self, graphs: bool) -> bool:
        """Whether a step's tensor-parallel all-reduces go through the engine's own kernel: only in a step
        that replays a CUDA graph (``graphs``; :meth:`graphs_cover`), and only for engines that have one.
        The link decides the rest (``parallel.Link.custom_allreduce``: NVLink, or two PCIe peers)."""
        return graphs and self.custom_allreduce

    def moe_stream_share(self, compute_class: str) -> float:
        """Share of the dense bandwidth efficiency of ``compute_class`` at which the routed experts' weights
        stream: ``moe_efficiency``, times ``moe_weight_only_share`` for weight-only (4-bit) experts."""
        share = self.moe_efficiency
        return share * self.moe_weight_only_share if compute_class == CLASS_WEIGHT_ONLY else share

    def gemm_fixed_us(self, compute_class: str) -> float:
        """GPU time of one decode weight GEMM besides its bytes, for ``compute_class``'s kernels."""
        if compute_class == CLASS_FP8 and self.fp8_gemm_kernel_us:
            return self.fp8_gemm_kernel_us
        if compute_class == CLASS_FP4 and self.fp4_gemm_kernel_us:
            return self.fp4_gemm_kernel_us
        return self.gemm_kernel_us

    def activation_quant_layer_us(self, compute_class: str) -> float:
        """Per-layer GPU time of quantising activations for ``compute_class``'s GEMMs (block-FP8 only)."""
        return self.block_fp8_quant_layer_us if compute_class == KERNEL_FP8_BLOCK else 0.0

    def compute_ceiling(self, compute_class: str) -> float | None:
        """TFLOPS the engine's GEMM kernels reach at most, whatever the GPU (None: no ceiling)."""
        return _by_class(self.compute_ceiling_tflops, compute_class) or None

    def stream_ceiling(self, compute_class: str) -> float | None:
        """GB/s the engine's batch-1 kernels can keep in flight, whatever the GPU (None: no ceiling)."""
        return _by_class(self.stream_ceiling_gbps, compute_class) or None

    def achieved_bandwidth_gbps(self, compute_class: str, peak_gbps: float) -> float:
        """Bandwidth a weight-streaming step reaches: eff x peak, softly capped by the stream ceiling.

        Little's law: bytes in flight / memory latency bounds what a kernel streams. Batch-1 GEMV
        kernels launch few thread blocks, so on very wide memory (HBM) they hit a ceiling set by
        the kernel, not by the memory. Blended as a p-norm (p=3) so the transition is smooth.
        """
        base = self.bandwidth_eff(compute_class) * peak_gbps
        ceiling = self.stream_ceiling(compute_class)
        if not ceiling:
            return base
        return float((base**-3 + ceiling**-3) ** (-1.0 / 3.0))

    @property
    def scores_whole_square(self) -> bool:
        """Whether a prompt's attention scores every query against every key in every layer, masking
        afterwards (an eager attention, :attr:`eager_attention_note`), not only its causal and windowed
        share."""
        return bool(self.eager_attention_note)

    def at_era(self, era: EngineEra) -> EngineProfile:
        """This engine as it was in ``era`` (or with the variant ``era`` describes); scales measured on
        some vendors' GPUs only wait for :meth:`for_gpu`."""
        scoped = bool(era.scales_measured_on)
        # a past release is named under the product's name, not today's ("vLLM (V1 engine)" was not 0.6's)
        named = self.label if era.variant or not self.past_label else self.past_label
        return replace(
            self if scoped else self._scaled(era),
            label=f"{named} ({era.label})",
            era="+".join(filter(None, (self.era, era.name))),
            era_release=era.release or self.era_release,
            vendor_scoped_eras=(*self.vendor_scoped_eras, era) if scoped else self.vendor_scoped_eras,
            **dict(era.overrides),
        )

    def _scaled(self, era: EngineEra) -> EngineProfile:
        """The efficiencies as ``era``'s kernels reached them."""
        s, c = era.efficiency_scale, era.compute_scale
        bw = {k: min(0.98, v * s) for k, v in self.bandwidth_efficiency.items()}
        comp = {k: min(0.95, v * s * c) for k, v in self.compute_efficiency.items()}
        for key, k_scale in era.kernel_scales.items():
            bw[key] = min(0.98, self.bandwidth_eff(key) * s * k_scale)
            comp[key] = min(0.95, self.compute_eff(key) * s * c * k_scale)
        return replace(self, bandwidth_efficiency=bw, compute_efficiency=comp)

    def on_vendor(self, vendor: str) -> EngineProfile:
        """The vendor-scoped eras' scales where they were measured; elsewhere today's efficiencies, said
        uncalibrated."""
        prof = replace(self, vendor_scoped_eras=())
        for era in self.vendor_scoped_eras:
            if vendor.lower() in era.scales_measured_on:
                prof = prof._scaled(era)
                continue
            where = "/".join(v.upper() for v in era.scales_measured_on)
            note = (
                f"the {era.name} era's kernel efficiencies off {where} GPUs (its rows all ran on {where}; "
                "today's figures used)"
            )
            prof = replace(prof, uncalibrated=(*prof.uncalibrated, note))
        return prof

    def generation_for(self, capability: tuple[int, int] | None) -> GenerationKernels | None:
        """The :attr:`generation_kernels` entry covering compute capability ``capability`` (None: none)."""
        return next((g for g in self.generation_kernels if g.covers(capability)), None)

    def on_generation(self, capability: tuple[int, int] | None) -> EngineProfile:
        """This engine on a GPU of compute capability ``capability``: its classes' streaming and compute
        shares and its 4-bit experts' share as :attr:`generation_kernels` measured them on that
        generation, each a multiple of the profile's own 16-bit figure; elsewhere unchanged."""
        gen = self.generation_for(capability)
        if gen is None:
            return self
        bw = dict(self.bandwidth_efficiency)
        for cls, scale in gen.class_stream.items():
            bw[cls] = self.bandwidth_eff(CLASS_16BIT) * scale
        comp = dict(self.compute_efficiency)
        for cls, scale in gen.class_compute.items():
            comp[cls] = self.compute_eff(CLASS_16BIT) * scale
        moe = self.moe_weight_only_share if gen.moe_weight_only_share is None else gen.moe_weight_only_share
        return replace(
            self,
            bandwidth_efficiency=bw,
            compute_efficiency=comp,
            moe_weight_only_share=moe,
            generation_parts=gen.parts(self.moe_weight_only_share),
            generation_label=gen.label,
        )

    @property
    def generation_note(self) -> str:
        """Every figure :meth:`on_generation` applied, in words ("": none)."""
        return self.generation_note_for(None)

    def generation_note_for(self, keys: Collection[str] | None) -> str:
        """The figures :meth:`on_generation` applied that concern ``keys`` (compute classes, or
        ``MOE_WEIGHT_ONLY_NOTE``; None: all), in words for the estimate's assumptions ("": none)."""
        parts = [text for key, text in self.generation_parts if keys is None or key in keys]
        if not parts:
            return ""
        return (
            f"on {self.generation_label} its {'; '.join(parts)}: its kernels' measured times "
            "(aiconfigurator-core 0.12.0's tables), no calibration row"
        )

    def era_for(self, version: str) -> EngineEra | None:
        """The era a ``major.minor[.patch]`` version falls in (None: today's engine)."""
        return next((e for e in self.eras if not e.variant and e.matches(version)), None)

    def states(self, attr: str) -> bool:
        """Whether a launch flag written with the engine's name set ``attr``."""
        return any(f.split(" ", 1)[0] == attr for f in self.stated_flags)

    def for_gpu(
        self,
        memory_gib: float,
        gpu_name: str,
        *,
        tp: int = 1,
        mla: bool = False,
        vendor: str = "",
        capability: tuple[int, int] | None = None,
    ) -> EngineProfile:
        """This engine as it starts on a GPU of ``memory_gib`` named ``gpu_name`` from ``vendor`` with ``tp``
        tensor-parallel ranks (``mla``: the model uses multi-head latent attention): the sequence cap of its
        :class:`DeviceDefaults` where it applies (only while still at its small-GPU value and not set by a
        launch flag, so a stated value stands), its ``device_rule``'s figures (a stated flag stands), and
        a vendor-scoped era's scales (:meth:`on_vendor`), and the vendor's runtime (:class:`DeviceRuntime`:
        its label names the backend that runs there, "llama.cpp (HIP/ROCm, layer split)" on an AMD card),
        and its measured kernel shares on the GPU's generation (``capability``: the NVIDIA compute
        capability; :meth:`on_generation`)."""
        prof = self.on_vendor(vendor).on_generation(capability)
        runtime = device_runtime(vendor)
        if vendor and runtime != prof.runtime:
            if runs_on_vendor(self.name, vendor):
                prof = replace(prof, runtime=runtime, label=on_runtime(prof.label, runtime))
            else:  # it never runs there (TensorRT-LLM on AMD): its own words, but no backend it lacks
                prof = replace(prof, label=on_runtime(prof.label, replace(CUDA_RUNTIME, backend="")))
        d = self.large_gpu
        if d is not None:
            changes: dict[str, Any] = {}
            if (
                self.max_num_seqs == d.small
                and not self.states("max_num_seqs")
                and d.applies(memory_gib, gpu_name)
            ):
                changes["max_num_seqs"] = d.large
            tokens = d.tokens(memory_gib, gpu_name)
            if tokens:  # a stated --max-num-batched-tokens still wins (``max_num_batched_tokens``)
                changes["prefill_chunk_tokens"] = tokens
            prof = replace(prof, **changes)
        if self.device_rule == "sglang":
            from gpuscout.estimate.sglang_start import sglang_start

            stated_chunk = self.states("max_num_batched_tokens")  # --chunked-prefill-size
            start = sglang_start(
                memory_gib * 1024.0, tp, mla=mla, chunk=self.max_num_batched_tokens if stated_chunk else None
            )
            rule: dict[str, Any] = {
                "graph_max_batch": start.decode_graph_max_bs,
                "pool_excludes_activations": True,
            }
            if not stated_chunk and not self.dp_attention:  # the variant keeps its own per-rank chunk
                rule["prefill_chunk_tokens"] = start.chunked_prefill_size
            if not self.states("memory_utilization"):
                rule["memory_utilization"] = start.mem_fraction_static
            prof = replace(prof, **rule)
        return prof


# A kernel family falls back to its compute class where a profile has no figure of its own (a block-scaled
# FP8 GEMM is an FP8 GEMM), then to "default"
_CLASS_PARENT = {KERNEL_FP8_BLOCK: CLASS_FP8}


def _by_class(values: Mapping[str, float], compute_class: str) -> float | None:
    """The profile's figure for ``compute_class`` (None: neither it, its parent class nor "default")."""
    key = class_key(values, compute_class)
    return values[key] if key is not None else None


def class_key(values: Mapping[str, float], compute_class: str) -> str | None:
    """The key of ``values`` (a profile's efficiencies by class) that ``compute_class`` reads: its own, its
    parent class's ("fp8-block" -> "fp8") or "default" (None: none of them)."""
    for key in (compute_class, _CLASS_PARENT.get(compute_class), "default"):
        if key is not None and key in values:
            return key
    return None


def _eff(**values: float) -> dict[str, float]:
    return {k.replace("_", "-"): v for k, v in values.items()}


# llama-server's slots when --parallel is not given (-1 = auto: 4 slots over one unified KV cache; read in
# llama.cpp tools/server/server.cpp, as vendored by llama-cpp-python 0.3.36)
LLAMA_SERVER_DEFAULT_SLOTS = 4

# Share of peak bandwidth a 16-bit weight stream reaches in vLLM (V1, fitted) and SGLang, whose linear layers
# are the same cuBLAS GEMMs under CUDA graphs (benchmarks/accuracy.py TIED_PARAMS)
_CUBLAS_16BIT_STREAM = 0.6901
# The same for weight-only (AWQ/GPTQ int4, FP8 below sm_89) weights: both engines run them through the Marlin
# GEMM (vLLM's gptq_marlin / awq_marlin; SGLang 0.5's marlin_utils.apply_awq_marlin_linear ->
# gptq_marlin_gemm). Fitted on vLLM's rows: SGLang's own (AWQ on the H20) are compute-bound and left it
# unconstrained at 0.83, which made SGLang's AWQ on an A100 30 % faster than vLLM's through the same kernel.
_MARLIN_WEIGHT_ONLY_STREAM = 0.7184


# Compute classes spelled as keys: "16bit", "fp8", "int8", "fp4", "weight-only", "gguf-quant", "gguf-f16";
# kernel families within a class too ("fp8-block": falls back to "fp8", then "default").
# The fitted numbers come from benchmarks/accuracy.py --fit ENGINE on the calibration CSV (see
# CALIBRATION); the rest are physics defaults stated in ``notes``.
def _measured_moe_kernel(kernel: str, *, compute: bool = False) -> str:
    """``moe_source`` of a profile whose MoE streaming share and per-layer cost (``compute``: and grouped-GEMM
    compute share) are ``kernel``'s measured times (benchmarks/data/moe_kernels_measured.csv, fitted by
    benchmarks/moe_kernels.py)."""
    what = "expert reads, expert GEMMs and per-layer cost" if compute else "expert reads and per-layer cost"
    return f"{what} measured: {kernel} kernel times on H100 and H200 (aiconfigurator-core 0.12.0's tables)"


def _datacenter_blackwell(
    class_stream: Mapping[str, float] | None = None,
    moe_weight_only_share: float | None = None,
    class_compute: Mapping[str, float] | None = None,
) -> GenerationKernels:
    """An engine's measured kernel figures on B200 / GB200 (sm_100) and B300 / GB300 (sm_103)."""
    return GenerationKernels(
        "datacenter Blackwell (sm_100 / sm_103)",
        ((10, 0), (10, 3)),
        class_stream or {},
        moe_weight_only_share,
        class_compute or {},
    )


def _ada_hopper(class_compute: Mapping[str, float]) -> GenerationKernels:
    """An engine's measured kernel figures on Ada (sm_89: L40S, RTX 4090, L4) and Hopper (sm_90: H100,
    H200, H20), measured on the L40S, H100 SXM and H200 SXM."""
    return GenerationKernels("Ada / Hopper (sm_89 / sm_90)", ((8, 9), (9, 0)), class_compute=class_compute)


def _rtx_blackwell(class_compute: Mapping[str, float]) -> GenerationKernels:
    """An engine's measured kernel figures on the GB202/GB203-class Blackwell parts (sm_120: RTX PRO 6000,
    RTX 5090), measured on the RTX PRO 6000 Server Edition."""
    return GenerationKernels("RTX Blackwell (sm_120)", ((12, 0),), class_compute=class_compute)


_PROFILES: tuple[EngineProfile, ...] = (
    EngineProfile(
        name="llama.cpp",
        label="llama.cpp (CUDA, layer split)",
        # --split-mode layer is its default (tools/server/README.md)
        default_parallel="layer",
        bandwidth_efficiency=_eff(default=0.9524, gguf_quant=0.9524, gguf_f16=0.9579),
        compute_efficiency=_eff(default=0.3339, gguf_quant=0.3339, gguf_f16=0.47),
        stream_ceiling_gbps=_eff(default=1211.0, gguf_quant=1211.0, gguf_f16=1260.0),
        compute_ceiling_tflops=_eff(default=166.3, gguf_quant=166.3, gguf_f16=166.3),
        moe_efficiency=0.6,
        # per MoE layer, the small kernels around the expert matmuls (router matmul, top-k, weights
        # gather and normalise, the experts' weighted sum): no MoE row, so the physics prior that vLLM
        # and TensorRT-LLM carry too (SGLang fits 55 us on Qwen3 MoE rows for its fused-MoE neighbours)
        moe_layer_overhead_us=50.0,
        fp16_accumulate=True,
        gemm_min_rows=1,  # its own mul_mat_vec / MMVQ kernels below 8 tokens (no tile padding)
        layer_overhead_us=18.44,
        step_overhead_us=468.7,
        pipeline_hop_us=276.4,
        gqa_kv_reread=0.4456,
        # today's builds: flash attention on by default (llama-server --flash-attn auto picks it on CUDA)
        attn_score_bytes=0.0,
        prefill_pipelined=True,
        prefill_batch_tokens=2048,
        prefill_chunk_tokens=512,
        iteration_fills_batch=True,
        memory_utilization=1.0,
        cuda_context_gb=0.4,
        engine_reserve_gb=0.0,
        kv_block_tokens=256,
        kv_allocates_full_context=True,
        # today's builds keep a separate cache of the window for the sliding layers (--swa-full keeps the
        # whole context); the 2023-2024 builds sized every layer at n_ctx
        kv_layer_windows_source="recalled: the SWA KV cache of the May 2025 builds; --swa-full keeps the "
        "whole context",
        # llama-server: slots (-np) decode together with continuous batching (--cont-batching, on by
        # default) and each slot reserves its context up front; an operator sets -np for the load (its
        # default, -1 = auto, starts LLAMA_SERVER_DEFAULT_SLOTS: the estimate says so past them).
        # 64 slots is the most assumed: beyond that its MMQ kernels are far from a serving engine's.
        max_num_seqs=64,
        continuous_batching=True,
        chunked_prefill=True,  # a prompt is fed n_batch tokens at a time beside the other slots' decode
        cuda_graphs=True,
        embeddings_on_host=True,
        layer_split_rule="llama.cpp",
        # no MoE row (llama-bench tables of dense models)
        uncalibrated=("moe_efficiency", "moe_layer_overhead_us"),
        aliases=(
            "llamacpp",
            "llama-cpp",
            "llama.cpp",
            "llama-bench",
            "llama-server",
            "ollama",
            "gguf",
            "lm-studio",
            "lmstudio",
        ),
        eras=(
            # the llama-bench tables of January-May 2024 (PRs #4766 / #4812, XiongjieDai's GPU benchmark):
            # no flash attention (the score matrix goes through memory) and ~2.6 ms of fixed cost per
            # token of an 8B model (1.1 ms per token + 49 us per layer)
            EngineEra(
                "2024",
                "2023-2024 builds",
                r"(?<![\w.])(?:2023|2024)(?![\w.])",
                {
                    "step_overhead_us": 1143.0,
                    "layer_overhead_us": 49.49,
                    "attn_score_bytes": 24.28,
                    "kv_layer_windows": False,  # before the SWA cache (May 2025, recalled)
                },
                variant=True,
                release="2024",
            ),
        ),
        notes="n_batch 2048 / n_ubatch 512 (llama-bench defaults), flash attention on (llama-server "
        "--flash-attn auto); llama-server with -np slots for the load (at most 64 assumed), continuous "
        "batching",
    ),
    EngineProfile(
        name="vllm",
        custom_allreduce=True,  # vllm/distributed/device_communicators/custom_all_reduce.py
        pipeline_microbatches=True,
        pipeline_since="0.5.1",  # vLLM 0.5.1 release notes: pipeline parallelism for online serving
        pipeline_source="https://github.com/vllm-project/vllm/releases/tag/v0.5.1",
        pipeline_flag="--pipeline-parallel-size",  # docs.vllm.ai serving/parallelism_scaling
        label="vLLM (V1 engine)",
        past_label="vLLM",
        sparse_mla_kv=SPARSE_MLA_FP8,
        bandwidth_efficiency=_eff(
            default=_CUBLAS_16BIT_STREAM,
            weight_only=_MARLIN_WEIGHT_ONLY_STREAM,
            **{"16bit": _CUBLAS_16BIT_STREAM},
        ),
        compute_efficiency=_eff(default=0.4647, fp8=0.48, weight_only=0.45, fp4=0.40, **{"16bit": 0.4647}),
        # today's fused-MoE kernel streams the experts it touches as fast as a dense layer's GEMV reads its
        # weights, and costs ~25 us per layer besides (its align, activation and sum kernels): vLLM
        # 0.24.0's kernel times on H100 and H200 (bf16, aiconfigurator-core 0.12.0's tables in
        # benchmarks/data/moe_kernels_measured.csv; benchmarks/moe_kernels.py fits 1.02-1.03x the dense
        # GEMV rate, capped at it here, and 24.3-24.8 us; the B200's other kernels, held out: 0.92 /
        # 1.04x). Not fitted on the calibration rows: no V1 MoE row but DeepSeek-V3.2 on 8x H20, whose
        # TPOT miss is its batch (an FP8 sparse-MLA cache the row does not state). The V0 era keeps its
        # own figures, fitted on its rows (the early fused-MoE paths: untuned configs, Triton block-FP8).
        moe_efficiency=1.0,
        # 4-bit experts (Marlin INT4, the MXFP4 W4A16 Triton kernel) stream at 0.64-0.97x, 0.82 on average,
        # of the dense GEMV rate on the same Hopper tables (0.52-0.63 on datacenter Blackwell: its
        # ``generation_kernels``)
        moe_weight_only_share=0.82,
        moe_source=_measured_moe_kernel("vLLM 0.24.0's fused-MoE", compute=True),
        # grouped GEMMs, share of the dense compute rate once tiles are counted: its bf16 fused-MoE layers
        # at 512+ tokens per expert compute at 0.62 / 0.73 of its dense bf16 GEMMs' rate on H100 / H200
        # (benchmarks/moe_kernels.py, moe_compute_shares). Was fitted (0.642) on its one V1 MoE row
        # (DeepSeek-V3.2, FP8, on the H20), which then also set how fast every bf16 MoE prefill ran
        moe_compute_efficiency=0.674,
        moe_tile_rows=16,  # fused_moe Triton kernel, BLOCK_SIZE_M 16 at small batch
        moe_layer_overhead_us=24.6,
        # the per-token-group FP8 quantisation of the activations before each block-FP8 GEMM, the kernel
        # SGLang runs too: one constant fitted on both engines' rows (SHARED_PARAMS in the benchmark)
        block_fp8_quant_layer_us=15.46,
        layer_overhead_us=3.0,
        step_overhead_us=384.9,
        gemm_kernel_us=3.64,  # its bf16 GEMMs' fixed part on H100 / H200 (benchmarks/moe_kernels.py)
        fp8_gemm_kernel_us=5.71,  # its per-tensor FP8 GEMMs' (CUTLASS scaled-mm + input quantisation)
        # its NVFP4 GEMMs' (FlashInfer CuTe-DSL, the call quantising its input to FP4) on B200, GB200, B300
        # and GB300, the generation that runs them in the tables; they stream at 0.93-1.03x its bf16
        # GEMMs' share there: as bf16
        fp4_gemm_kernel_us=7.85,
        # on datacenter Blackwell its 4-bit experts (FlashInfer TRT-LLM-gen MXFP4, Marlin INT4 and MXFP4)
        # stream at 0.52-0.63, 0.60 on average, of the same GPU's dense GEMV rate (B200, GB200, B300,
        # GB300), against 0.82 on Hopper
        # per-tensor FP8 GEMMs of 2,048-8,192 rows (CUTLASS scaled-mm) reach 0.78x its bf16 GEMMs' share of
        # their peak on the L40S, H100 and H200 (1.46-1.62x the bf16 rate, not the datasheet's 2x), 0.66x
        # on datacenter Blackwell, 0.93x on the RTX PRO 6000 (benchmarks/moe_kernels.py, compute_shares):
        # its FP8 compute figure on NVIDIA GPUs (no calibration row fits it; AMD keeps the prior above)
        generation_kernels=(
            _ada_hopper({"fp8": 0.778}),
            _datacenter_blackwell(moe_weight_only_share=0.599, class_compute={"fp8": 0.657}),
            _rtx_blackwell({"fp8": 0.927}),
        ),
        seq_overhead_us=5.289,
        tp_step_overhead_us=200.0,
        request_overhead_us=32230.0,
        memory_utilization=0.90,
        cuda_context_gb=0.6,
        engine_reserve_gb=1.0,
        kv_block_tokens=16,
        # V0 (0.4-0.7) had one block table for every layer, and V1 before its hybrid KV cache manager
        # turned a mixed model's sliding layers into full ones for the cache (read in the sdists: 0.9.0's
        # get_kv_cache_config always calls unify_hybrid_kv_cache_specs; 0.9.1 only under
        # disable_hybrid_kv_cache_manager, which it sets off CUDA/ROCm or with KV transfer / KV events)
        kv_layer_windows_since="0.9.1",
        kv_layer_windows_source=(
            "read in vLLM's sdists: 0.9.1 vllm/v1/core/kv_cache_utils.py get_kv_cache_config keeps "
            "SlidingWindowSpec layers (the hybrid KV cache manager, on by default on CUDA / ROCm: "
            "SchedulerConfig.disable_hybrid_kv_cache_manager False); 0.9.0's unify_hybrid_kv_cache_specs "
            "turned them into FullAttentionSpec"
        ),
        kv_grows_on_demand=True,
        prefill_chunk_tokens=8192,
        chunked_prefill=True,
        decodes_in_token_budget=True,
        max_num_seqs=VLLM_V1_DEVICE_DEFAULTS.small,  # below 70 GiB and on A100s; 1024 on larger GPUs
        large_gpu=VLLM_V1_DEVICE_DEFAULTS,
        weight_only_wgmma_cc=(9, 0),  # Machete (no calibration row runs it: its weight-only rows are A100s)
        uncalibrated_classes=("fp8", "fp8-block", "fp4"),
        # its weight-only figures are fitted on Marlin rows (CUDA); no AMD row runs AWQ or GPTQ
        vendor_uncalibrated={
            "amd": {
                "weight-only": "its weight-only formats run ROCm's own kernels there (AWQ: the Triton "
                "fallback ROCm selects, VLLM_USE_TRITON_AWQ; GPTQ and int8: HIP or Triton kernels), not "
                "Marlin, whose rows fitted the weight-only efficiency"
            }
        },
        aliases=("vllm", "v-llm"),
        eras=(
            EngineEra(
                "v0",
                "V0 engine, 0.4-0.7",
                r"0\.[0-7]",
                {
                    "step_overhead_us": 2500.0,
                    "seq_overhead_us": 245.7,
                    "tp_step_overhead_us": 1834.0,
                    # Qwen2-57B-A14B under 0.4.2 and DeepSeek-R1 under 0.7.3-0.7.4: the early fused-MoE
                    # paths (untuned configs, block-FP8 Triton GEMMs before DeepGEMM)
                    "moe_efficiency": 0.5213,
                    "moe_weight_only_share": 1.0,  # one share for every format, as fitted
                    "moe_source": "",
                    "moe_compute_efficiency": 0.5497,
                    "moe_layer_overhead_us": 256.1,
                    "chunked_prefill": False,
                    "prefill_chunk_tokens": 8192,
                    "max_num_seqs": 256,
                    "large_gpu": None,  # V0's defaults did not depend on the GPU
                    "prefill_budget_from_model_len": True,
                    "auto_chunk_above_len": 32768,
                    # 0.7.x (MLA arrived in 0.7.1): "MLA is enabled; forcing chunked prefill and prefix
                    # caching to be disabled", max_num_batched_tokens = max(max_model_len, 2048)
                    "mla_unchunked_prefill": True,
                    "uncalibrated": (),
                },
                # no efficiency scale: V0 and V1 call the same GPU kernels (FlashAttention, cuBLAS,
                # Marlin); the rewrite changed the CPU side (scheduler, per-step and per-worker costs)
            ),
            EngineEra(
                "eager",
                "--enforce-eager (no CUDA graphs)",
                r"enforce[-_ ]eager",
                # eager PyTorch launches every layer's kernels from Python: the host time of the
                # eager-layer constant shared with HF transformers, TGI 1.x and trtllm-serve 0.17
                {"layer_overhead_us": EAGER_LAYER_LAUNCH_US, "cuda_graphs": False, "cpu_overlap": True},
                variant=True,
            ),
        ),
        notes="V1 engine (0.8+; only engine since 0.11): CUDA graphs, chunked prefill; the OpenAI server's "
        "max_num_batched_tokens / max_num_seqs by GPU: 16384 / 1024 from 160 GiB, 8192 / 1024 from 70 GiB "
        "(A100s excepted), 2048 / 256 on the rest; gpu_memory_utilization 0.9, 16-token KV blocks",
    ),
    EngineProfile(
        name="sglang",
        custom_allreduce=True,  # on unless --disable-custom-all-reduce
        pipeline_microbatches=True,
        pipeline_since="0.5",  # --pp-size in the 0.5 server arguments; 0.4.x not assumed to have it
        pipeline_source="https://docs.sglang.ai/advanced_features/server_arguments.html",
        pipeline_flag="--pp-size",  # docs.sglang.ai server arguments (--pp-size / --pipeline-parallel-size)
        label="SGLang",
        cpu_overlap=True,
        kv_grows_on_demand=True,
        # 16-bit and weight-only weights stream at vLLM's rates (the same cuBLAS and Marlin GEMMs under
        # CUDA graphs: TIED_PARAMS in benchmarks/accuracy.py); block-scaled FP8 (Qwen3 FP8 on the H20,
        # DeepSeek-R1: its only FP8 rows) streams at ~0.7 of it, with a fixed cost per layer besides
        # (block_fp8_quant_layer_us); per-tensor FP8 has no row and keeps the 16-bit figures
        bandwidth_efficiency=_eff(
            default=_CUBLAS_16BIT_STREAM,
            weight_only=_MARLIN_WEIGHT_ONLY_STREAM,
            fp8_block=0.5076,
            **{"16bit": _CUBLAS_16BIT_STREAM},
        ),
        compute_efficiency=_eff(
            default=0.5127, fp8_block=0.6261, weight_only=0.45, fp4=0.40, **{"16bit": 0.5127}
        ),
        # today's fused-MoE kernel, measured: SGLang 0.5.14's kernel times on H100 and H200 (bf16,
        # aiconfigurator-core 0.12.0's tables in benchmarks/data/moe_kernels_measured.csv;
        # benchmarks/moe_kernels.py) stream the experts at 0.92-0.96x its dense GEMV rate, with 14-17 us
        # fixed per layer (the B200, held out: 0.89x). The 0.4.4-0.4.x era keeps the figures its Qwen3 MoE
        # rows fit (0.4.6 on an H20)
        moe_efficiency=0.94,
        moe_source=_measured_moe_kernel("SGLang 0.5.14's fused-MoE"),
        moe_compute_efficiency=0.6198,
        moe_tile_rows=16,  # fused_moe Triton kernel (vLLM's, vendored), BLOCK_SIZE_M 16 at small batch
        moe_layer_overhead_us=15.4,
        block_fp8_quant_layer_us=15.46,  # shared with vLLM (the same quantisation kernel)
        gemm_kernel_us=3.88,  # its bf16 GEMMs' fixed part on H100 / H200 (benchmarks/moe_kernels.py)
        fp8_gemm_kernel_us=5.42,  # its per-tensor FP8 GEMMs' (sgl-kernel fp8_scaled_mm + quantisation)
        # its NVFP4 GEMMs' (FlashInfer CuTe-DSL + FP4 quantisation) on the four Blackwell systems, where
        # they stream at 0.70-0.76x its bf16 GEMMs' share (vLLM's build of the same kernel: as bf16)
        fp4_gemm_kernel_us=4.88,
        # its per-tensor FP8 GEMMs (sgl-kernel fp8_scaled_mm) of 2,048-8,192 rows: 0.79x its bf16 GEMMs'
        # share of their peak on the L40S, H100 and H200, 0.73x on datacenter Blackwell, 0.88x on the RTX
        # PRO 6000 (its block-FP8 figures stay the fitted ones)
        generation_kernels=(
            _ada_hopper({"fp8": 0.789}),
            _datacenter_blackwell({"fp4": 0.730}, class_compute={"fp8": 0.728}),
            _rtx_blackwell({"fp8": 0.881}),
        ),
        layer_overhead_us=3.0,
        step_overhead_us=2500.0,
        seq_overhead_us=3.0,
        tp_step_overhead_us=224.6,
        request_overhead_us=5791.0,
        memory_utilization=0.88,
        cuda_context_gb=0.6,
        engine_reserve_gb=1.0,
        kv_block_tokens=1,
        prefill_chunk_tokens=8192,
        chunked_prefill=True,
        max_num_seqs=1024,
        # today's release sizes its chunk, decode graphs and memory share by the GPU (sglang_start: 0.5.23's
        # rules); the figures above are those of the releases of the calibration rows (0.3-0.4.6)
        device_rule="sglang",
        # the hybrid SWA pool: before 0.4.9.post3 one token pool for every layer (0.4.9's SWAKVPool served
        # Llama 4's chunked attention alone, behind --hybrid-kvcache-ratio); a named post release is its own
        # release ("0.4.9.post5" keeps the windows, "0.4.9.post2" does not)
        kv_layer_windows_since="0.4.9.post3",
        kv_layer_windows_source=(
            "read in SGLang's wheels: 0.4.9.post3 sglang/srt/model_executor/model_runner.py makes a model "
            "with a sliding window (get_attention_sliding_window_size: Gemma 2 / 3) hybrid unless "
            "--disable-hybrid-swa-memory, its sliding layers in a SWAKVPool (mem_cache/memory_pool.py) "
            "whose tokens outside the window are freed (evict_swa); 0.4.9.post2 and older had one pool "
            "for every layer"
        ),
        uncalibrated_classes=("fp8", "fp4"),  # its FP8 rows are all block-scaled
        vendor_uncalibrated={
            "amd": {
                "weight-only": "its weight-only formats run Triton kernels on ROCm (assumed, as its support "
                "rule says), not Marlin, whose rows fitted the weight-only efficiency"
            }
        },
        # the block-FP8 streaming figure stays below the 16-bit one; tied to it, the H20's FP8 rows pulled
        # the 16-bit figure down (0.45) and the held-out 0.3 rows (A100/H100) were then timed too slow
        calibration_basis={
            "fp8-block": "SGLang's block-FP8 weight streaming and per-layer cost are fitted on Qwen3 FP8 "
            "runs on the H20 (0.4.6; its DeepSeek-R1 runs of early 2025, 0.4.2-0.4.3, set that era's own "
            "scale): today's releases on other GPUs are likely faster than estimated",
            "moe": "SGLang's MoE constants: the expert reads and per-layer cost are its fused-MoE kernel's "
            "measured times (0.5.14 on H100 and H200), the grouped-GEMM compute share is fitted on Qwen3 MoE "
            "runs on the H20 (0.4.6); its DeepSeek-R1 runs of early 2025 (0.4.2-0.4.3) set the constants "
            "of those releases only",
            # the step cost is the Python scheduler constant shared with vLLM's V0 engine; SGLang's own
            # small-model rows are the Qwen3 speed benchmark's offline-engine runs (0.6B at 414 tok/s)
            "host": "SGLang's host time per step (its scheduler's, run alongside the GPU's) is fitted on "
            "0.4.6's offline-engine runs on one H20 host and on vLLM V0's rows; where it binds (small models "
            "at small batch) it sets the speed on every GPU, and today's releases on other hosts may be "
            "faster",
        },
        aliases=("sglang", "sg-lang"),
        eras=(
            EngineEra(
                "0.3",
                "0.3, before the overlap scheduler",
                r"0\.[0-3]",
                {
                    "step_overhead_us": 1272.0,
                    "seq_overhead_us": 10.0,
                    "cpu_overlap": False,
                    "device_rule": "",
                },
                efficiency_scale=0.95,
            ),
            # The first releases to run DeepSeek-V3/R1 (Dec 2024 - Feb 2025). Their only MoE rows (dstack's
            # DeepSeek-R1 runs, H200 and MI300X) pay ~4x the per-MoE-layer cost of 0.4.6's Qwen3 MoE runs;
            # fitted together, that cost set today's engine too. The era's constants hold whatever was
            # particular to those releases' DeepSeek path as well (256 experts, block-FP8 MoE, MLA).
            EngineEra(
                "0.4.0-0.4.3",
                "0.4.0-0.4.3, the first DeepSeek-V3/R1 releases",
                r"0\.4\.[0-3]",
                {
                    "moe_efficiency": 0.6461,
                    "moe_compute_efficiency": 0.4854,
                    "moe_layer_overhead_us": 194.4,
                    "moe_source": "",
                    "device_rule": "",
                },
                # block-FP8 GEMMs through Triton before DeepGEMM (0.4.4+): that kernel family ran at ~0.6
                # of today's (fitted on the same rows; a 16-bit model runs today's cuBLAS GEMMs)
                kernel_scales={KERNEL_FP8_BLOCK: 0.5655},
            ),
            # 0.4.4 onwards in 0.4 (DeepGEMM's block-FP8 GEMMs): the MoE figures its Qwen3 MoE rows fit
            # (0.4.6 on an H20: experts read at 0.52 of the dense rate, 55 us a layer); today's release
            # takes its kernel tables' (above)
            EngineEra(
                "0.4.4-0.4.x",
                "0.4.4 and later 0.4 releases",
                r"0\.4\.(?:[4-9]|[1-9]\d)",
                {"moe_efficiency": 0.5304, "moe_layer_overhead_us": 58.4, "moe_source": ""},
            ),
            # --enable-dp-attention (server_args.py: dp_size = tp_size, chunked_prefill_size halved)
            EngineEra(
                "dp-attention",
                "data-parallel attention",
                r"enable[-_ ]dp[-_ ]attention",
                {"dp_attention": True, "prefill_chunk_tokens": 4096},
                variant=True,
            ),
        ),
        notes="today's release sizes chunked_prefill_size (2k-16k), its decode CUDA graphs (8-512 sequences; "
        "larger decode batches run eager) and mem_fraction_static (weights + KV pool; ~0.68 on a 24 GB card, "
        "~0.83 on an H100) by the GPU (sglang_start); 0.3-0.4.3: 0.88 and 8192; token-granular radix KV "
        "cache; the overlap scheduler (0.4+) hides most of the CPU step",
    ),
    EngineProfile(
        name="tensorrt-llm",
        custom_allreduce=True,  # AllReduceStrategy AUTO: its one-shot / two-shot kernels below NCCL's sizes
        pipeline_microbatches=True,
        pipeline_flag="--pp_size",  # trtllm-serve / trtllm-build --pp_size
        label="TensorRT-LLM",
        cpu_overlap=True,
        bandwidth_efficiency=_eff(default=0.7321),
        compute_efficiency=_eff(default=0.5139, fp8=0.5131, **{"16bit": 0.5139}),
        # today's MoE path (CUTLASS grouped GEMMs under CUDA graphs) has no calibration row; its kernel is
        # measured: TensorRT-LLM 1.3.0rc20's CUTLASS MoE (PyTorch flow) on H100 and H200 streams the
        # experts at 1.07-1.08x its dense GEMV rate (capped at it here), with 24.8-26.6 us fixed per layer
        # (bf16, aiconfigurator-core 0.12.0's tables in benchmarks/data/moe_kernels_measured.csv;
        # benchmarks/moe_kernels.py; the B200, held out: 1.13x), and its grouped GEMMs at 512+ tokens per
        # expert compute at 0.97-0.99x its dense bf16 GEMMs' rate there (moe_compute_shares; was a prior,
        # 0.6). The only MoE rows are DeepSeek-R1 under trtllm-serve 0.17 (first PyTorch-backend
        # releases, run eagerly); their constants are the era's
        moe_efficiency=1.0,
        moe_source=_measured_moe_kernel("TensorRT-LLM 1.3.0rc20's CUTLASS MoE", compute=True),
        moe_compute_efficiency=0.980,
        moe_layer_overhead_us=25.7,
        gemm_kernel_us=3.53,  # its bf16 GEMMs' fixed part on H100 / H200 (benchmarks/moe_kernels.py)
        # its per-tensor FP8 lane in the same tables (1.3.0rc20's PyTorch-flow linear) fits 12.9-13.1 us
        # fixed, 3.5x the bf16 figure and over twice vLLM's and SGLang's FP8 kernels: not taken until what
        # that call includes besides its GEMM is known (its FP8 rows keep the bf16 figure)
        # (its NVFP4 lane on the Blackwell systems is the same PyTorch-flow call, 8.6-9.0 us fixed, streaming
        # at 0.59-0.64x its bf16 GEMMs' share: not taken either)
        # weight-only (int4/int8 AWQ/GPTQ) below 5 rows: the WeightOnlyQuantMatmul plugin's batched GEMV
        # kernel on the CUDA cores (SMALL_M_FAST_PATH), not the fpA_intB tensor-core GEMM: no tile
        weight_only_tile_rows=1,
        layer_overhead_us=2.0,
        step_overhead_us=522.2,
        seq_overhead_us=2.0,
        request_overhead_us=6634.0,
        memory_utilization=0.90,
        memory_fraction_of_free=True,
        cuda_context_gb=0.6,
        engine_reserve_gb=1.0,
        kv_block_tokens=32,
        kv_fp8_with_fp8_weights=True,
        prefill_chunk_tokens=8192,
        chunked_prefill=True,
        decodes_in_token_budget=True,
        max_num_seqs=2048,
        uncalibrated_classes=("weight-only", "fp4"),
        aliases=(
            "tensorrt-llm",
            "tensorrt",
            "trtllm",
            "trt-llm",
            "trt",
            "trtllm-bench",
            "trtllm-serve",
            "triton",
            "nim",
            "nvidia-nim",
        ),
        eras=(
            EngineEra(
                "0.5",
                "v0.5-0.6, static batching",
                r"0\.[0-9]",
                # the static batches of the C++ session benchmark (gptSessionBenchmark) that these releases'
                # performance tables were measured with: no server between the prompt and the engine
                {
                    "continuous_batching": False,
                    "chunked_prefill": False,
                    "step_overhead_us": 400.0,
                    "request_overhead_us": 0.0,
                    # the custom all-reduce plugin was an opt-in build flag then (--use_custom_all_reduce;
                    # recalled, not read), and these tables do not say they set it: NCCL
                    "custom_allreduce": False,
                    # its MoE plugin: no row, no table: the physics priors of benchmarks/accuracy.py
                    "moe_efficiency": 0.5,
                    "moe_layer_overhead_us": 50.0,
                    "moe_source": "",
                    "uncalibrated": ("moe_efficiency", "moe_compute_efficiency", "moe_layer_overhead_us"),
                },
                efficiency_scale=1.3,
            ),
            EngineEra(
                "pt-2025",
                "0.17-0.19 PyTorch backend, CUDA graphs off by default (early 2025)",
                r"0\.1[7-9]",
                # the PyTorch backend's first releases ran the model eagerly unless
                # ``use_cuda_graph`` was set in the extra LLM API options: every layer's kernels are
                # launched from Python each step (the engine's scheduler still runs ahead: overlap)
                # and its MoE layers: DeepSeek-R1's block-FP8 experts through that release's fused-MoE
                # path, fitted on dstack's 14 trtllm-serve rows (the only TensorRT-LLM MoE rows)
                {
                    "cuda_graphs": False,
                    "layer_overhead_us": EAGER_LAYER_LAUNCH_US,
                    "moe_efficiency": 0.2437,
                    "moe_compute_efficiency": 0.5716,
                    "moe_layer_overhead_us": 67.4,
                    "moe_source": "",
                    "uncalibrated": (),
                },
            ),
        ),
        notes="kv_cache_free_gpu_mem_fraction 0.9, 32-token KV blocks, inflight batching up to 2048, "
        "max_num_tokens 8192; FP8 checkpoints (ModelOpt) run an FP8 KV cache. NVIDIA NIM LLM containers "
        "are read as TensorRT-LLM (their optimised profiles are TensorRT-LLM engines; vLLM profiles "
        "exist for other models)",
    ),
    EngineProfile(
        name="tgi",
        label="HF TGI 3.x",
        past_label="HF TGI",
        bandwidth_efficiency=_eff(default=0.78, weight_only=0.62),
        compute_efficiency=_eff(default=0.55, fp8=0.45, weight_only=0.40),
        moe_efficiency=0.5,
        # no MoE row: the physics prior every CUDA-graph engine starts from (router, top-k, token
        # alignment and the activation / sum kernels around the grouped GEMMs)
        moe_layer_overhead_us=50.0,
        layer_overhead_us=5.0,
        step_overhead_us=1000.0,
        seq_overhead_us=10.0,
        tp_step_overhead_us=200.0,
        request_overhead_us=6458.0,
        memory_utilization=0.95,
        cuda_context_gb=0.6,
        engine_reserve_gb=1.0,
        kv_block_tokens=1,
        # one KV tensor of the same size per layer and one block table per request for all of them: a
        # sliding layer's window is applied by the attention kernel only (recalled, not read in the code)
        kv_layer_windows=False,
        kv_layer_windows_source="recalled: TGI's paged KV cache, one equal tensor per layer, one block "
        "table per request",
        prefill_chunk_tokens=4096,
        chunked_prefill=True,
        max_num_seqs=1024,
        max_waiting_steps=20,
        graph_max_batch=32,  # --cuda-graphs default 1,2,4,8,16,32 (2.x-3.x); prefill steps run eager
        graphs_in_prefill=False,
        # TGI 3: no row on NVIDIA calibrates its kernels or step cost (only the per-request cost is fitted)
        uncalibrated=(
            "bandwidth_efficiency",
            "compute_efficiency",
            "step_overhead_us",
            "seq_overhead_us",
            *("moe_efficiency", "moe_compute_efficiency", "moe_layer_overhead_us"),
        ),
        vendor_uncalibrated={
            "amd": {
                "weight-only": "its weight-only formats run TGI's ROCm kernels (GPTQ: its "
                "ROCm build of Exllama)"
            }
        },
        aliases=("tgi", "text-generation-inference", "hf-tgi", "text-generation-launcher"),
        eras=(
            EngineEra(
                "1.x",
                "1.x, no CUDA graphs",
                r"[01]\.[0-9]+",
                {
                    "layer_overhead_us": EAGER_LAYER_LAUNCH_US,
                    "step_overhead_us": 1436.0,
                    "seq_overhead_us": 1240.0,
                    "tp_step_overhead_us": 193.6,
                    "chunked_prefill": False,
                    "cuda_graphs": False,
                    "cpu_overlap": True,
                    "serial_bookkeeping": True,
                    # GPTQ through the vendored exllama v1 kernels (server/exllama_kernels, TGI
                    # 1.0-1.1; 1.2 added exllama v2): utils/gptq/exllama.py sets matmul_recons_thd 8
                    "int4_row_dequant_ops": EXLLAMA_V1_ROW_OPS,
                    "int4_recons_rows": EXLLAMA_V1_RECONS_ROWS,
                    "weight_only_tile_rows": 1,  # CUDA-core half2 dot products, no tensor cores
                    "uncalibrated": ("moe_efficiency", "moe_compute_efficiency", "moe_layer_overhead_us"),
                    "uncalibrated_classes": ("fp8", "fp8-block", "fp4"),
                },
                efficiency_scale=0.8529,
                # its rows: philschmid's SageMaker runs of TGI 1.0.3 on A10G / A100
                scales_measured_on=("nvidia",),
            ),
            EngineEra(
                "2.x",
                "2.x, CUDA graphs, no chunked prefill",
                r"2\.[0-9]+",
                {
                    "chunked_prefill": False,
                    "step_overhead_us": 959.1,
                    "tp_step_overhead_us": 195.0,
                    "uncalibrated": ("moe_efficiency", "moe_compute_efficiency", "moe_layer_overhead_us"),
                    "uncalibrated_classes": ("fp8", "fp8-block", "fp4"),
                },
                efficiency_scale=0.5209,
                # every 2.x row runs on ROCm (MI300X: dstack's TGI-vs-vLLM runs, vLLM's AMD blog); TGI 2.x
                # on CUDA ran the flash / paged attention and cuBLAS GEMMs under CUDA graphs that TGI 3 runs
                scales_measured_on=("amd",),
            ),
        ),
        notes="TGI 3 (maintenance mode since 2025): CUDA graphs for small batches, chunked prefill and "
        "prefix caching, max_batch_total_tokens derived from free memory",
    ),
    EngineProfile(
        name="hf-transformers",
        label="HF transformers (generate, eager)",
        # from_pretrained(device_map="auto"): accelerate places whole layers per GPU, run in turn
        default_parallel="layer",
        bandwidth_efficiency=_eff(default=0.7068, weight_only=0.7752, **{"16bit": 0.7068}),
        compute_efficiency=_eff(default=0.45, weight_only=0.25),
        moe_efficiency=0.5,
        moe_compute_efficiency=0.3441,  # 5.x's grouped-GEMM experts: see ``uncalibrated`` below
        # transformers 5.x runs an MoE layer's experts as grouped GEMMs (torch grouped_mm, the default
        # experts_implementation on CUDA SM80+: modeling_utils.get_correct_experts_implementation and
        # integrations/moe.py grouped_mm_experts_forward, v5.24.0): no Python loop over the experts; the
        # routing, sort and grouped GEMMs are launched from Python like the rest of the layer. 4.x (the
        # "4.x" era) looped over the experts in Python.
        expert_loop_us=0.0,
        attn_decode_efficiency=0.08303,
        # transformers' default attention, SDPA: 5.x hands the GQA heads to the kernel
        # (integrations/sdpa_attention.py use_gqa_in_sdpa: no attention mask, as in decoding without
        # padding) and waits for no host value per layer; its DynamicCache appends by torch.cat
        # (cache_utils.DynamicLayer.update, v5.17). The FlashAttention-2 path is the variant below.
        kv_copies_per_step=0.0,
        attn_host_sync=False,
        kv_append_copies=2.0,
        layer_overhead_us=EAGER_LAYER_LAUNCH_US,
        step_overhead_us=17230.0,
        seq_overhead_us=0.0,
        memory_utilization=1.0,
        cuda_context_gb=0.6,
        engine_reserve_gb=0.3,
        kv_block_tokens=1,
        prefill_chunk_tokens=1 << 20,
        chunked_prefill=False,
        max_num_seqs=64,
        continuous_batching=False,
        cuda_graphs=False,
        cpu_overlap=True,
        # transformers 5.x's grouped-GEMM experts: their compute share is fitted on the Qwen3-30B-A3B
        # prefill rows of benchmarks/gpu_measure.py (2048 / 8192 tokens, 5.17 on an H200); their streaming
        # share stays the prior: decode there is host-bound (the Python launches), so no row pins the
        # experts' weight reads
        uncalibrated=("moe_efficiency",),
        uncalibrated_classes=("fp8", "fp8-block", "fp4"),
        vendor_uncalibrated={
            "amd": {
                "weight-only": "its weight-only formats run ROCm kernels (AWQ / GPTQ: gptqmodel's; NF4 "
                "and int8: bitsandbytes' ROCm build)"
            }
        },
        aliases=(
            "hf-transformers",
            "transformers",
            "hf",
            "huggingface",
            "hugging-face",
            "accelerate",
            "autoawq",
            "autogptq",
            "litgpt",
            "optimum",
        ),
        eras=(
            # transformers 4.x: an MoE block visits its experts one by one in a Python loop; the cost per
            # expert and layer is fitted on the Qwen2-57B-A14B (4.38.2) and Qwen3-30B-A3B (4.51.3) rows,
            # which pay it for every expert (the latter decodes at 1.9 tokens/s on an H20)
            EngineEra(
                "4.x",
                "4.x, MoE experts looped in Python",
                r"4\.[0-9]+",
                # its rows ran FlashAttention-2 (the Qwen speed benchmarks, 4.38-4.51) and 4.x's SDPA
                # path expanded GQA too (repeat_kv): timed as that path
                {"expert_loop_us": 80.28, "uncalibrated": ("moe_efficiency",), **_HF_FA2_PATH},
            ),
            EngineEra(
                "flash-attention-2",
                "FlashAttention-2 attention (attn_implementation='flash_attention_2')",
                r"flash[-_ ]?(?:attention|attn)|\bfa2\b",
                _HF_FA2_PATH,
                variant=True,
            ),
            EngineEra(
                "fused",
                "AutoAWQ fused modules",
                r"fused",
                # its own attention kernel over a static cache: no expanded copies, no host sync
                {
                    "layer_overhead_us": 61.76,
                    "kv_copies_per_step": 0.0,
                    "attn_host_sync": False,
                    "kv_append_copies": 0.0,
                },
                efficiency_scale=0.9805,
                variant=True,
            ),
            EngineEra(
                "exllama",
                "AutoGPTQ exllama v1 kernel",
                r"exllama(?![\s_-]*v?2)",
                # AutoGPTQ 0.4 (auto_gptq/modeling/_utils.py autogptq_post_init) sets matmul_recons_thd 8
                {
                    "int4_row_dequant_ops": EXLLAMA_V1_ROW_OPS,
                    "int4_recons_rows": EXLLAMA_V1_RECONS_ROWS,
                    "weight_only_tile_rows": 1,  # CUDA-core half2 dot products, no tensor cores
                },
                variant=True,
            ),
            EngineEra(
                "gemv",
                "AutoAWQ GEMV kernel (batch-1 kernel: prefill runs as repeated GEMVs)",
                r"\bgemv\b",
                {"weight_only_tile_rows": 1},
                compute_scale=0.2777,
                variant=True,
            ),
        ),
        notes="eager PyTorch generate(): ~10 kernels per layer launched from Python, static batches; "
        "5.x runs MoE experts as grouped GEMMs, 4.x looped over every expert in Python (expert_loop_us "
        "per expert and layer: its MoE decoding was notoriously slow); SDPA attention (the default) reads "
        "the cache once and its DynamicCache rewrites it to append each token; the FlashAttention-2 path "
        "copies the GQA-expanded KV cache and waits for the host in every layer, so long contexts slow it "
        "far more than the KV reads alone",
    ),
    EngineProfile(
        name="gpt-fast",
        label="gpt-fast (torch.compile)",
        bandwidth_efficiency=_eff(default=0.7022, weight_only=0.5228, **{"16bit": 0.7022}),
        compute_efficiency=_eff(default=0.50),
        layer_overhead_us=0.0,
        step_overhead_us=638.0,
        memory_utilization=1.0,
        cuda_context_gb=0.6,
        engine_reserve_gb=0.5,
        kv_block_tokens=1,
        prefill_chunk_tokens=1 << 20,
        chunked_prefill=False,
        max_num_seqs=64,
        continuous_batching=False,
        uncalibrated=("moe_efficiency", "moe_compute_efficiency", "moe_layer_overhead_us"),
        uncalibrated_classes=("fp8", "fp8-block", "fp4"),
        aliases=(
            "gpt-fast",
            "gptfast",
            "torch.compile",
            "torch-compile",
            "torchcompile",
            "pytorch",
        ),
        notes="static KV cache of max_seq_length, CUDA graphs via torch.compile mode=reduce-overhead",
    ),
)

# Where the fitted numbers above come from: ``python benchmarks/accuracy.py --fit ENGINE --from-priors``
# (Levenberg-Marquardt on the log errors of the engine's non-SUSPECT rows, pseudo-Huber, weak pull to the
# physics priors of the benchmark). Constants not named here are physics defaults stated in ``notes``.
CALIBRATION: dict[str, str] = {
    "llama.cpp": (
        "427 llama-bench speed rows (XiongjieDai GPU-Benchmarks-on-LLM-Inference, May 2024: Llama 3 8B/70B, "
        "Q4_K_M and F16, 1-6 GPUs, 11 GPU models; ggerganov / JohannesGaessler llama-bench comments in "
        "llama.cpp PRs #4766, #4812, #19053; geerlingguy/ai-benchmarks #46). Shared by both eras (the same "
        "kernels): decode (tg N) bandwidth efficiency 0.952 / 0.958, stream ceiling 1211 / 1260 GB/s, "
        "276 us per layer-split hop, GQA K/V re-read 0.446; prefill (pp N) compute efficiency 0.334 / 0.470 "
        "of the fp16-accumulate tensor peak, one compute ceiling of 166 TFLOPS. The 2023-2024 builds (the "
        "tables of January-May 2024: 424 rows): 1143 us per token + 49.5 us per layer, 24.3 B of memory "
        "traffic per attention score (flash attention off). Today's builds (flash attention on by default, "
        "no score traffic): 469 us per token + 18.4 us per layer, close to the physics priors (500 + 20 "
        "us): one decode row of today's builds (PR #19053, 2026: Llama 3 8B Q4_0 on an RTX 6000 Ada, "
        "168.9 tokens/s, 153 estimated) pulls them only a little. MoE: no row; expert weights at 0.6 of "
        "the dense efficiency and 50 us per MoE layer (the physics priors)."
    ),
    "gpt-fast": (
        "14 rows of the gpt-fast README (Llama-2-7B, A100 SXM 330 W TP1/2/4/8 bf16, int8, int4; MI250X GCD): "
        "bandwidth efficiency 0.702 (bf16), 0.523 (weight-only), 638 us per step."
    ),
    "vllm": (
        "247 rows: Qwen2.5 speed benchmark (vLLM 0.6.2/0.6.3 batch 1, A100, BF16/GPTQ/AWQ, TP1-4, 1-129k "
        "prompts), Qwen2 benchmark (vLLM 0.4.2 MoE), dstack 405B H100/MI300X offline bursts, dstack "
        "DeepSeek-R1 online/offline (vLLM 0.7.3/0.7.4), SGLang-vs-vLLM 0.6.0 ShareGPT, vLLM AMD blog, TGI "
        "chunking doc, vllm-project recipes (V1), ai.wmx.dev L4, mushfiqrahman 4090, issue #20469. "
        "Efficiencies and per-step costs are fitted on the speed rows (decode, prefill, throughput, TPOT); "
        "TTFT rows fit only the per-request cost. Today (V1): bandwidth 0.690 (16-bit) / 0.718 (weight-only),"
        " compute 0.465 (16-bit), 385 us per step + 5.3 us per sequence, 32.2 ms per request on TTFT (API "
        "server, tokenisation, admission); measured, not fitted: 3.64 us per weight GEMM besides its bytes "
        "(its bf16 GEMMs of 1-32 rows on H100 / H200, aiconfigurator-core 0.12.0's tables), MoE weights "
        "at the dense rate (4-bit experts at 0.82 of it) and 24.6 us per MoE layer (vLLM 0.24.0's fused-MoE "
        "kernel times in the same tables); grouped GEMMs at 0.67 of dense (its bf16 fused-MoE kernels at "
        "512+ tokens per expert against its dense GEMMs in the same tables, once the tile padding is "
        "counted: every touched expert computes a whole tensor-core tile, 16 rows in the Triton fused-MoE "
        "kernel at small batch; 0.64 fitted before stop 76, on its one V1 MoE row), 15.5 us "
        "per layer on the block-FP8 path (the per-token-group activation quantisation, SGLang's kernel too: "
        "one constant fitted on both engines' rows, SHARED_PARAMS). FP8 "
        "streams at the 16-bit figure (one memory path; the FP8 rows, of the V0 era but four on an H20, fit "
        "it with the 16-bit ones); FP8 compute on NVIDIA GPUs is the 16-bit figure x its FP8 GEMMs' measured "
        "share (0.78 on Ada / Hopper, 0.66 on datacenter Blackwell, 0.93 on sm_120: its CUTLASS scaled-mm "
        "against its bf16 GEMMs at 2,048-8,192 rows, GenerationKernels.class_compute), the 0.48 prior on AMD "
        "(no row). V0 era (0.4-0.7): the same kernels"
        " (no efficiency scale), the Python scheduler's 2500 us per step shared with SGLang 0.4 "
        "(SHARED_PARAMS in benchmarks/accuracy.py: fitted on both engines' rows), 246 us per sequence, 1834 "
        "us per step and doubling of the TP workers (throughput.tp_workers_factor; 1990 before stop 70's "
        "measured all-reduce latencies, whose custom kernel no longer carries part of it, 2363 before stop "
        "71's measured NVLink bandwidths by protocol and kernel, 2071 before stop 73's measured GEMM "
        "fixed part), MoE weights at 0.52 and grouped expert GEMMs at 0.55 of dense and 256 us per MoE "
        "layer (Qwen2-57B-A14B under 0.4.2; vLLM 0.7.3/0.7.4 DeepSeek-R1, "
        "dstack, early 2025); its scheduler budget follows the context (max(max_model_len, 2048) per step; "
        "chunked prefill of 512 tokens above 32K of context; MLA unchunked in 0.7)."
    ),
    "sglang": (
        "107 rows: Qwen3 speed benchmark (SGLang 0.4.6, H20, 0.6B-235B BF16/FP8/AWQ batch 1), dstack "
        "DeepSeek-R1 online/offline (0.4.2 ROCm, 0.4.3 H200, its online H200 runs with "
        "--enable-dp-attention), SGLang-vs-vLLM ShareGPT (0.3.0). 16-bit weights stream at vLLM's 0.690 "
        "(TIED_PARAMS: the same cuBLAS GEMMs; SGLang's own 16-bit rows, mostly batch-1 decode on the H20, "
        "compute-bound there, cannot fix it), and weight-only ones at vLLM's 0.718 (the same Marlin GEMM; "
        "its AWQ rows on the H20 are compute-bound, and fitted alone left 0.833); bandwidth 0.508 "
        "(block-scaled FP8: every FP8 row is), compute 0.513 / 0.626 (per-tensor FP8: no row; on NVIDIA "
        "GPUs the 16-bit figure x its sgl-kernel FP8 GEMMs' measured share, 0.79 on Ada / Hopper, 0.73 on "
        "datacenter Blackwell, 0.88 on sm_120; elsewhere the 16-bit figure) (with Hopper's 64-row tile, "
        "throughput.gemm_tile_rows, batch-1 BF16 decode on the H20's "
        "148 TFLOPS is compute-bound; "
        "AWQ runs Marlin's 16-row mma.sync tiles at half the rate on Hopper, compute-bound there too: "
        "fitted without that, the AWQ bandwidth had come out at 0.222), 15.7 us per layer on the "
        "block-FP8 path (the per-token-group activation quantisation before each block-FP8 GEMM: on the "
        "H20 the FP8 runs of 0.6B-4B models gain far less over BF16 than their bytes say; the same kernel "
        "in vLLM, so one constant fitted on both engines' rows, SHARED_PARAMS: 35 us on SGLang's alone), "
        "the Python scheduler's 2500 us of CPU per step (shared with vLLM V0) overlapped with the GPU, "
        "225 us per doubling of the TP workers, 5.8 ms per request, grouped GEMMs at 0.62 of dense "
        "efficiency; measured, not fitted: 3.88 us per weight GEMM besides its bytes, MoE weights at 0.94 "
        "of the dense rate and 15.4 us per MoE layer (SGLang 0.5.14's kernel times, aiconfigurator-core "
        "0.12.0's tables); 0.4.4-0.4.x era: MoE weights at 0.53 of dense, 58 us per MoE layer (Qwen3 MoE "
        "under 0.4.6); 0.4.0-0.4.3 era (the "
        "DeepSeek-R1 rows of early 2025, the only MoE rows of those releases): block-FP8 GEMMs at 0.57 of "
        "today's (Triton, before DeepGEMM), MoE weights at 0.65 and grouped GEMMs at 0.49 of dense, 194 us "
        "per MoE layer; 0.3 era: 1272 us per step, not overlapped; --enable-dp-attention: data-parallel "
        "attention "
        "(dp_attention: attention, embedding and lm_head whole on every GPU, each GPU the cache of its "
        "own sequences only; chunked prefill 4096)."
    ),
    "tensorrt-llm": (
        "85 rows: trtllm-bench PyTorch backend (H100 SXM FP8: Llama 3.1 8B TP1, 3.3 70B TP2, 3.1 405B TP8), "
        "v0.5/v0.6.1 performance tables (A100/L40S, static batches), NIM 1.8 Llama-3.3-70B FP8 TP2 (read as "
        "TensorRT-LLM), dstack DeepSeek-R1 trtllm-serve 0.17. Bandwidth 0.732, compute 0.514 (16-bit) / 0.513"
        " (fp8), 522 us per step overlapped, 6.6 ms per request; measured, not fitted: 3.53 us per weight "
        "GEMM besides its bytes, MoE weights at the dense rate and 25.7 us per MoE layer (1.3.0rc20's "
        "CUTLASS MoE and bf16 GEMM kernel times, aiconfigurator-core 0.12.0's tables), and grouped GEMMs at "
        "0.98 of dense (the same CUTLASS MoE at 512+ tokens per expert, since stop 76; a 0.6 prior before)"
        "; v0.5-0.6 era: efficiencies x1.30 (static batches of the C++ session benchmark, no "
        "per-request cost); 0.17-0.19 PyTorch-backend era: MoE weights at 0.24 and grouped GEMMs at 0.57 of "
        "dense, 67 us per MoE layer (DeepSeek-R1 in trtllm-serve 0.17, early 2025: the only MoE rows), no "
        "CUDA graphs, 576 us of host launches per layer and step (and half that again per MoE layer: "
        "EAGER_MOE_LAUNCH_FRACTION), the eager-layer constant shared with TGI 1.x and HF transformers "
        "(SHARED_PARAMS in benchmarks/accuracy.py: fitted on the three engines' rows; its DeepSeek-R1 rows: "
        "55 ms per token at 4 sequences, where the weight reads take ~10)."
    ),
    "tgi": (
        "110 rows: philschmid's SageMaker TGI 1.0.3 tests (Llama 2 7B/13B/70B FP16/GPTQ on A10G/A100 40GB, "
        "TP1-8, 1-20 users), dstack TGI ROCm 405B (Oct 2024, read as 2.x), vLLM AMD blog, TGI chunking doc "
        "(v3). Today's TGI 3 efficiencies and step cost are NOT fitted (no TGI 3 rows on NVIDIA apart from "
        "a small k6 scenario dominated by the load generator): physics defaults. 6.5 ms per request. "
        "2.x-3.x: CUDA graphs for decode batches of 1-32 only (--cuda-graphs default); prompt steps and "
        "larger batches run eager at the shared eager-layer constant. "
        "1.x era: 1436 us per step, 576 us per layer (eager launches: the constant shared with HF "
        "transformers and trtllm-serve 0.17), 1240 us per sequence and step (after the step, not "
        "overlapped: serial_bookkeeping; 300 us prior, the A10G rows pull it up), 194 us per doubling of "
        "the TP workers, efficiencies x0.85, GPTQ through exllama v1 (per-row dequantisation below 8 "
        "rows, fp16 rebuild from 8); every era: waiting requests join every 20 steps "
        "(max_waiting_tokens); 2.x era (ROCm): 959 us per step, 195 us per doubling of the workers, "
        "efficiencies x0.52 on AMD GPUs only (every 2.x row ran on MI300X; on NVIDIA the era keeps today's "
        "figures and says so)."
    ),
    "hf-transformers": (
        "105 rows: Qwen2.5/Qwen2/Qwen3 speed benchmarks (transformers 4.38-4.51 generate, A100/H20), "
        "optimum benchmark (4.32 + AutoGPTQ exllama), AutoAWQ 0.1.6 (fused modules, GEMM/GEMV kernels, "
        "RTX 4090), "
        "benchmarks/gpu_measure.py (transformers 5.17 on an H200: Llama 3.2 3B, Llama 3.1 8B, Qwen3 8B, "
        "Qwen3-30B-A3B; decode at 1/8/32 sequences, prefill of 2048/8192 tokens). "
        "Bandwidth 0.722 (16-bit) / 0.775 (weight-only), 576 us of Python per layer (the eager-layer "
        "constant shared with TGI 1.x and trtllm-serve 0.17) and 12.6 ms per step of generate() "
        "(overlapped with the GPU), 82 us per expert visited per MoE layer (4.x); 5.x's grouped-GEMM "
        "experts at 0.33 of the dense compute efficiency (the Qwen3-30B-A3B prefill rows; their weight "
        "streaming: the 0.5 prior, decode there being host-bound); decode attention: 4.0 passes over the "
        "GQA-expanded cache per step (FA2 path: repeat_kv, unpadding gather) at the 16-bit bandwidth, "
        "its FLOPs at 0.084 of the GEMM rate, waited for by the host in every layer (not overlapped: "
        "a 30k-token context halves Qwen2.5-7B's speed on an A100); compute efficiencies not fitted "
        "(0.45 / 0.25). AutoAWQ fused modules (own attention, static cache): 62 us per layer, "
        "efficiencies x0.98 (its benchmark script times bare forward calls, not generate(): those rows "
        "pay a forward's 500 us, not generate()'s step); GEMV kernel: compute x0.28. AutoGPTQ 0.4 "
        "exllama: exllama v1 at batch (per-row dequantisation below 8 rows, fp16 rebuild from 8; not fitted)."
    ),
}

_BY_KEY: dict[str, EngineProfile] = {}
for _p in _PROFILES:
    _BY_KEY[_p.name] = _p
    for _a in _p.aliases:
        _BY_KEY[_a] = _p

# a release number: major.minor[.patch...], with a pre-release ("rc1", "-rc1", ".dev116", or PEP 440's
# glued "a1" / "b2" / "a", which it reads as "a0": group 4) or a post-release ("post1", "-post1", ".post":
# group 5, its number) suffix; a word after a hyphen that only starts like one ("0.6.3-a100", a GPU) is none
_VERSION = re.compile(
    r"(?<![\w.])v?(\d+)\.(\d+)(\.\d+)?(?:\.\d+)*([-.]?(?:rc|dev)\d*|[ab]\d{0,2})?(?:[-.]?post(\d*))?(?![\w])"
)


@dataclass(frozen=True, slots=True)
class Release:
    """The newest release of an engine that its profile (today's engine) describes.

    ``product`` names the releases ("vLLM"), ``newest`` is that release's ``major.minor`` (a patch
    release is timed as its minor one), ``names`` the engine names (aliases, as :func:`_key` writes
    them) after which a version is this product's own: "NIM 1.8" or "AutoAWQ 0.1.6" run TensorRT-LLM
    and transformers, but their numbers are not those engines' releases."""

    product: str
    newest: str
    names: tuple[str, ...]

    def newer(self, major: int, minor: int | None) -> bool:
        """Whether ``major.minor`` (``minor`` None: a bare major, "TGI 3") is a later release."""
        top = tuple(int(part) for part in self.newest.split("."))
        return (major,) > top[:1] if minor is None else (major, minor) > top[:2]


#: The newest release each versioned engine's profile describes: the versions its knowledge rules were
#: read from (knowledge/data/engine_support.csv, column ``version``: vllm 0.33.0, sglang 0.5.23 (also
#: estimate/sglang_start.py), transformers 5.24.0, tgi 3.3.6) and, for TensorRT-LLM, whose rules cite
#: its support matrix and not a release, the newest release a calibration row names (1.2.1). llama.cpp
#: (numbered builds) and gpt-fast (no releases) have none. A newer release is timed as this one, and
#: the estimate says so.
NEWEST_RELEASES: dict[str, Release] = {
    "vllm": Release("vLLM", "0.33", ("vllm", "v-llm")),
    "sglang": Release("SGLang", "0.5", ("sglang", "sg-lang")),
    "tensorrt-llm": Release(
        "TensorRT-LLM",
        "1.2",
        ("tensorrt-llm", "tensorrt", "trtllm", "trt-llm", "trt", "trtllm-bench", "trtllm-serve"),
    ),
    "tgi": Release("TGI", "3.3", ("tgi", "text-generation-inference", "hf-tgi", "text-generation-launcher")),
    "hf-transformers": Release(
        "HF transformers", "5.24", ("hf-transformers", "transformers", "hf", "huggingface", "hugging-face")
    ),
}

# a word of the engine's name that starts with a digit: a version, a year, or neither ("0.x", "8b")
_NUMBER_WORD = re.compile(r"(?<![\w.])v?\d[^\s,;()]*")
_BARE_MAJOR = re.compile(r"\d{1,3}")  # "tgi 3", "vllm 99": a major release
# not versions: a year ("llama.cpp 2024", read by an era's variant where one names it) and an engine
# generation ("vLLM V1", today's engine)
_NOT_A_VERSION = re.compile(r"(?:19|20)\d\d|v\d+")
_YEAR = re.compile(r"(?:19|20)\d\d")
_BUILD = re.compile(r"(?<![\w.])b\d{4,5}(?![\w.])")  # a llama.cpp build tag ("b4000")


DEFAULT_ENGINE = "vllm"


def default_engine(precision: str | None) -> str:
    """The engine a setup runs on when none is named: llama.cpp for a GGUF format (its own file format,
    which today's serving engines load through plugins or not at all), vLLM for everything else. An
    unknown precision gets vLLM here; the estimate then names the precision field."""
    if precision:
        try:
            if resolve_precision(precision).gguf:
                return "llama.cpp"
        except GpuscoutError:
            pass
    return DEFAULT_ENGINE


def run_engine(engine: str | None, precision: str | None) -> str:
    """The engine a setup runs on: the one named, else :func:`default_engine` for its precision."""
    return engine or default_engine(precision)


def engine_names() -> tuple[str, ...]:
    """Canonical engine names, in profile order."""
    return tuple(p.name for p in _PROFILES)


def engines_accepted() -> str:
    """What an engine name may be, as an error says it: every canonical name ("llama.cpp, vllm, sglang,
    ..."), an alias of one, and a version and launch flags after it."""
    *names, last = engine_names()
    return f"{', '.join(names)} or {last}, or an alias of one; a version and launch flags may follow"


class UnknownEngineError(UnknownNameError):
    """An unknown engine name: the closest known names, and (``accepted``) every engine it may be, so
    that neither a typo nor a wrong guess leaves the user to look the engines up."""

    def __init__(self, field: str, name: str, suggestions: Iterable[str], *, ambiguous: bool = False) -> None:
        super().__init__(field, name, suggestions, ambiguous=ambiguous)
        self.accepted = engines_accepted()
        if self.empty:  # the engines accepted are the known names: said once
            self.message = "is empty"
            self.args = (f"{field}: {self.message}",)
        self.args = (f"{self.args[0]} (accepted: {self.accepted})",)


def _key(name: str) -> str:
    s = fold_name(name).strip().lower()
    s = re.sub(r"\(.*?\)", " ", s)  # "llama.cpp (llama-bench, layer split)" -> "llama.cpp"
    s = re.sub(r"(?<![\w.])v?\d+(\.\d+)*(\.post\d+|\.dev\d+|rc\d+)*(?![\w])", " ", s)  # versions
    s = re.sub(r"[\s_/]+", "-", s).strip("-")
    return s


def _name_key(name: str) -> str:
    """The engine name or alias (a key of ``_BY_KEY``) that ``name`` is read as; "" when none."""
    key = _key(name)
    if key in _BY_KEY:
        return key
    first = key.split("-")[0] if key else key
    for candidate in (first, key.replace(".", ""), key.replace("-", "")):
        if candidate in _BY_KEY:
            return candidate
    # longest alias the text starts with, as a whole word ("llama.cpp-gguf", "hf-tgi-1")
    hits = sorted((a for a in _BY_KEY if len(a) >= 2 and key.startswith(a + "-")), key=len, reverse=True)
    return hits[0] if hits else ""


def _base_profile(name: str) -> EngineProfile | None:
    key = _name_key(name)
    return _BY_KEY[key] if key else None


def resolve_engine(name: str | EngineProfile) -> EngineProfile:
    """Profile for "vllm", "vLLM 0.6.3", "sglang", "TensorRT-LLM v0.5", "trtllm", "tgi", "hf", "llama.cpp"...

    Without a version: today's engine. With one ("vLLM 0.6", "TGI 1.0.3"): the engine of that era when
    the profile has one for it (see ``EngineEra``); a newer or unknown version is today's engine.
    Raises UnknownEngineError(field="engine") with the closest known names and every engine accepted.
    """
    if isinstance(name, EngineProfile):
        return name
    if not isinstance(name, str):
        raise InvalidInputError(
            "engine",
            f"expected an engine name, got {type(name).__name__}",
            ", ".join(p.name for p in _PROFILES),
        )
    if not name.strip():
        raise UnknownEngineError("engine", str(name), engine_names())
    head, flag_text = split_flags(name)
    base = _base_profile(head or name)
    if base is None:
        raise UnknownEngineError("engine", head, closest(head, list(_BY_KEY)) or list(engine_names()))
    prof = profile_for(base, name)
    if not flag_text:
        return prof
    # launch flags after the name: the attributes they set, and the ones gpuscout does not model
    variants = tuple(e.versions for e in base.eras if e.variant)
    flags = read_flags(flag_text, strict=True, known=variants, engine=base.name)
    settings = profile_settings(
        flags, prof.step_overhead_us, prof.seq_overhead_us, memory_utilization=prof.memory_utilization
    )
    return replace(prof, **settings, stated_flags=flags.stated, ignored_flags=flags.ignored)


def profile_for(base: EngineProfile, name: str) -> EngineProfile:
    """``base`` as the engine ``name`` describes it: the era of its version ("vLLM 0.6.3" -> V0) and any
    variant its text names ("--enforce-eager", "fused layers"), applied in that order; with the
    ``version_note`` of :func:`version_note` (a release newer than the profile's, a version that does not
    read as one), else a pre-release's ("0.9.0rc1 is a pre-release of 0.9.0: judged and timed as
    0.9.0")."""
    text = name.strip().lower()
    head = split_flags(text)[0]  # a flag's value ("--gpu-memory-utilization 0.5") is not a version
    found = _VERSION.search(re.sub(r"\(.*?\)", " ", head)) or _VERSION.search(head)
    version = _version_text(found) if found else ""
    prof = base
    era = base.era_for(version) if version else None  # a post release is in its release's era
    # the release the support rules read: the engine's own, or the one that selected its era ("vllm (0.6.3)"),
    # with its post release ("0.4.9.post5": a release of its own, which a rule may start at)
    release = _own_release(base, head) or (_release_text(found) if found and era is not None else "")
    if release:
        prof = replace(prof, version=release)
    if era is not None:
        prof = prof.at_era(era)
    for variant in base.eras:
        if variant.variant and re.search(variant.versions, text):
            prof = prof.at_era(variant)
    note = "" if era is not None else version_note(base, head)
    if found is not None and found.group(4) and release and not note:
        # "0.9.0rc1": a candidate of 0.9.0, cut from its branch; what its rules and era say is taken to hold
        # (a release newer than the profile's says how it is timed instead: ``version_note``)
        note = f"{found.group(0).lstrip('v')} is a pre-release of {release}: judged and timed as {release}"
    return replace(prof, version_note=note) if note != prof.version_note else prof


def _own_release(base: EngineProfile, head: str) -> str:
    """The engine's own release in ``head`` ("0.6.3" of "vllm 0.6.3 rocm"): a version right after one of its
    product's names (:data:`NEWEST_RELEASES`), not one in parentheses ("(CUDA 12.1)") or after another
    product's name ("AutoAWQ 0.1.6" runs transformers); "" when none."""
    release = NEWEST_RELEASES.get(base.name)
    name = re.sub(r"\(.*?\)", " ", head)
    found = _VERSION.search(name)
    if release is None or found is None or _key(name[: found.start()]) not in release.names:
        return ""
    return _release_text(found)


def _at_or_after(release: str, since: str) -> bool:
    """Whether ``release`` ("0.4.9.post5") is ``since`` ("0.4.9.post3") or a later one; a release that reads
    as no number is today's, past every bound."""
    asked, first = release_number(release), release_number(since)
    return asked is None or first is None or asked >= first


def _version_text(found: re.Match[str]) -> str:
    """ "0.6.3" of a :data:`_VERSION` match ("v0.6.3.dev116" -> "0.6.3"; "0.19" stays "0.19"): the release
    an era is matched on, without a post release ("0.4.3.post2" -> "0.4.3")."""
    return f"{found.group(1)}.{found.group(2)}{found.group(3) or ''}"


def _release_text(found: re.Match[str]) -> str:
    """The release the support rules judge, of a :data:`_VERSION` match: :func:`_version_text` and its post
    release as PEP 440 writes it ("0.4.9-post5" -> "0.4.9.post5"); a pre-release is its release."""
    post = found.group(5)
    return _version_text(found) + ("" if post is None else f".post{post or 0}")


def version_note(base: EngineProfile, head: str) -> str:
    """What to say of the version in ``head`` (the engine's name, lower case, flags cut) when it selects
    no era of ``base``: a release newer than the newest its profile describes ("vLLM 99.0 is newer than
    ... (0.33): timed as 0.33"; "vllm 99" is a major release), or a word that starts like a version and
    is none ("vllm 0.x"). Only a word right after the engine's name is its version: not one in
    parentheses ("(CUDA 11.8)"), in free text ("data parallel 4", "llama-3.1") or after another
    product's name ("NIM 1.8": TensorRT-LLM inside, NIM's number); a year is none. "" when there is
    nothing to say."""
    release = NEWEST_RELEASES.get(base.name)
    product = release.product if release else base.label.split(" (")[0]
    name = re.sub(r"\(.*?\)", " ", head)
    found = _VERSION.search(name)
    if found is not None:
        word, major, minor = found.group(0), int(found.group(1)), int(found.group(2))
        start = found.start()
    else:
        year = next((m for m in _NUMBER_WORD.finditer(name) if _YEAR.fullmatch(m.group(0))), None)
        if year is not None and release is not None and _key(name[: year.start()]) in release.names:
            # "vllm 2024": a year where a release number goes; the engine numbers its releases
            return (
                f"{year.group(0)!r} after the engine's name is a year, not a release: {product} numbers its "
                f"releases (major.minor, e.g. {release.newest}); timed as today's {product} "
                f"({release.newest}): name the release to time an older one"
            )
        build = _BUILD.search(name) if base.name == "llama.cpp" else None
        if build is not None and _key(name[: build.start()]) in _BY_KEY:
            # "llama.cpp b4000": a build tag, which no date here maps to an era
            return (
                f"llama.cpp build {build.group(0)} is not mapped to a date here: timed as today's builds; "
                "name the year ('llama.cpp 2024') to time the 2023-2024 builds (no flash attention, more "
                "fixed cost per token)"
            )
        words = [m for m in _NUMBER_WORD.finditer(name) if not _NOT_A_VERSION.fullmatch(m.group(0))]
        if not words:
            return ""
        word, start = words[0].group(0), words[0].start()
        if not _BARE_MAJOR.fullmatch(word):
            if _key(name[:start]) not in _BY_KEY:  # a word of free text, not the engine's version
                return ""
            example = f", e.g. {release.newest}" if release else ""
            today = f"today's {product}" + (f" ({release.newest})" if release else "")
            return (
                f"{word!r} after the engine's name does not read as a version (major.minor{example}): "
                f"timed as {today}"
            )
        major, minor = int(word), None
    if release is None or _key(name[:start]) not in release.names or not release.newer(major, minor):
        return ""
    return (
        f"{product} {word.lstrip('v')} is newer than the newest version gpuscout has a profile for "
        f"({release.newest}): timed as {release.newest}"
    )
