"""Inference engine profiles: what fraction of a GPU's peak each engine reaches, and what it reserves.

Efficiencies are per *engine* and per *compute class* (see ``precision.CLASS_*``), never per GPU or
per model: the estimator must carry over to GPUs it has never seen, from their datasheet figures.

Time model the numbers plug into (``throughput.py``): a decode step reads the weights once and each
sequence's KV cache at ``bandwidth_efficiency`` x peak bandwidth, does its FLOPs at
``compute_efficiency`` x peak tensor rate, and pays fixed costs: ``layer_overhead_us`` per layer
(kernel launches and synchronisation), ``step_overhead_us`` per step (sampling, scheduling),
``pipeline_hop_us`` per GPU boundary under a layer split. ``gqa_kv_reread`` is the share of the K/V
bytes re-read for every extra query head of a GQA group by attention kernels that do not share
them (llama.cpp without flash attention); ``attn_score_bytes`` the bytes of attention-score traffic
per score element for engines that materialise the score matrix during prefill.

``CALIBRATION`` records, per engine, which rows of the calibration CSV fixed which numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from gpuscout.errors import InvalidInputError, UnknownNameError, closest


@dataclass(frozen=True, slots=True)
class EngineProfile:
    """How one inference engine uses a GPU."""

    name: str  # canonical: "llama.cpp", "vllm", "sglang", "tensorrt-llm", "hf-transformers", "gpt-fast"
    label: str
    bandwidth_efficiency: Mapping[str, float]  # by compute class; key "default" for the rest
    compute_efficiency: Mapping[str, float]  # by compute class; key "default" for the rest
    stream_ceiling_gbps: Mapping[str, float] = field(
        default_factory=dict
    )  # by class; absent = none
    compute_ceiling_tflops: Mapping[str, float] = field(
        default_factory=dict
    )  # by class; absent = none
    fp16_accumulate: bool = False  # 16-bit GEMMs accumulate in fp16 (2x rate on GeForce parts)
    layer_overhead_us: float = 0.0
    step_overhead_us: float = 0.0
    pipeline_hop_us: float = 0.0
    logits_bytes_per_vocab: float = (
        8.0  # per sequence and step: fp32 logits written then read by sampling
    )
    gqa_kv_reread: float = 0.0
    attn_score_bytes: float = 0.0
    prefill_pipelined: bool = False  # layer split overlaps micro-batches across GPUs during prefill
    prefill_batch_tokens: int = 2048  # logical batch split in micro-batches (llama.cpp n_batch)
    prefill_chunk_tokens: int = 2048  # micro-batch / chunked-prefill size (llama.cpp n_ubatch)
    memory_utilization: float = 1.0  # share of capacity the engine lets itself use (vLLM 0.9)
    memory_fraction_of_free: bool = (
        False  # the share applies to memory left after weights (TRT-LLM)
    )
    cuda_context_gb: float = 0.5  # CUDA context + libraries, per GPU
    engine_reserve_gb: float = 0.0  # CUDA graphs, workspaces, per GPU
    kv_block_tokens: int = 1  # paged KV allocation granularity
    kv_allocates_full_context: bool = False  # llama.cpp reserves n_ctx for every slot up front
    max_num_seqs: int = 256  # scheduler cap on concurrent sequences
    continuous_batching: bool = True
    embeddings_on_host: bool = False  # llama.cpp keeps token_embd in host RAM
    aliases: tuple[str, ...] = ()
    notes: str = ""
    calibration: str = ""

    def bandwidth_eff(self, compute_class: str) -> float:
        return self.bandwidth_efficiency.get(compute_class, self.bandwidth_efficiency["default"])

    def compute_eff(self, compute_class: str) -> float:
        return self.compute_efficiency.get(compute_class, self.compute_efficiency["default"])

    def achieved_tflops(self, compute_class: str, peak_tflops: float) -> float:
        """Dense rate reached in large GEMMs: eff x peak, softly capped by the kernels' ceiling.

        Kernels written for one generation (llama.cpp's mma.sync MMQ kernels, no Hopper wgmma) stop
        scaling on the biggest parts; the ceiling is per engine and class, never per GPU.
        """
        base = self.compute_eff(compute_class) * peak_tflops
        ceiling = self.compute_ceiling_tflops.get(
            compute_class, self.compute_ceiling_tflops.get("default")
        )
        if not ceiling:
            return base
        return float((base**-3 + ceiling**-3) ** (-1.0 / 3.0))

    def stream_ceiling(self, compute_class: str) -> float | None:
        """GB/s the engine's batch-1 kernels can keep in flight, whatever the GPU (None: no ceiling)."""
        value = self.stream_ceiling_gbps.get(compute_class, self.stream_ceiling_gbps.get("default"))
        return value or None

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


def _eff(**values: float) -> dict[str, float]:
    return {k.replace("_", "-"): v for k, v in values.items()}


# The fitted numbers below come from benchmarks/accuracy.py --fit on the calibration CSV; see
# CALIBRATION for rows and values. Engines without rows of their own start from the closest
# calibrated engine (stated in ``notes``) and physics (kernel launch costs, flash attention).
_PROFILES: tuple[EngineProfile, ...] = (
    EngineProfile(
        name="llama.cpp",
        label="llama.cpp (CUDA, layer split)",
        bandwidth_efficiency=_eff(default=0.93, gguf_quant=0.93, gguf_f16=0.95),
        compute_efficiency=_eff(default=0.34, gguf_quant=0.34, gguf_f16=0.44),
        stream_ceiling_gbps=_eff(default=1120.0, gguf_quant=1120.0, gguf_f16=1200.0),
        compute_ceiling_tflops=_eff(default=118.0, gguf_quant=118.0, gguf_f16=207.0),
        fp16_accumulate=True,
        layer_overhead_us=40.0,
        step_overhead_us=1190.0,
        pipeline_hop_us=290.0,
        gqa_kv_reread=0.34,
        attn_score_bytes=24.0,
        prefill_pipelined=True,
        prefill_batch_tokens=2048,
        prefill_chunk_tokens=512,
        memory_utilization=1.0,
        cuda_context_gb=0.4,
        engine_reserve_gb=0.0,
        kv_block_tokens=256,
        kv_allocates_full_context=True,
        max_num_seqs=1,
        continuous_batching=False,
        embeddings_on_host=True,
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
        notes="n_batch 2048 / n_ubatch 512 (llama-bench defaults), flash attention off (2024 default)",
    ),
    EngineProfile(
        name="vllm",
        label="vLLM",
        bandwidth_efficiency=_eff(default=0.75, weight_only=0.60),
        compute_efficiency=_eff(default=0.62, fp8=0.44, weight_only=0.45),
        layer_overhead_us=0.0,
        step_overhead_us=1000.0,
        memory_utilization=0.90,
        cuda_context_gb=0.6,
        engine_reserve_gb=0.8,
        kv_block_tokens=16,
        prefill_chunk_tokens=2048,
        max_num_seqs=256,
        aliases=("vllm", "v-llm"),
        notes="gpu_memory_utilization 0.9, 16-token KV blocks, chunked prefill 2048, max_num_seqs 256",
    ),
    EngineProfile(
        name="sglang",
        label="SGLang",
        bandwidth_efficiency=_eff(default=0.77, weight_only=0.60),
        compute_efficiency=_eff(default=0.65, fp8=0.46, weight_only=0.45),
        layer_overhead_us=0.0,
        step_overhead_us=700.0,
        memory_utilization=0.88,
        cuda_context_gb=0.6,
        engine_reserve_gb=0.8,
        kv_block_tokens=1,
        prefill_chunk_tokens=8192,
        max_num_seqs=1024,
        aliases=("sglang", "sg-lang"),
        notes="mem_fraction_static ~0.88, token-granular radix KV cache; efficiencies as vLLM (no rows)",
    ),
    EngineProfile(
        name="tensorrt-llm",
        label="TensorRT-LLM",
        bandwidth_efficiency=_eff(default=0.80),
        compute_efficiency=_eff(default=0.70, fp8=0.49, **{"16bit": 0.72}),
        layer_overhead_us=0.0,
        step_overhead_us=340.0,
        memory_utilization=0.90,
        memory_fraction_of_free=True,
        cuda_context_gb=0.6,
        engine_reserve_gb=1.0,
        kv_block_tokens=32,
        prefill_chunk_tokens=8192,
        max_num_seqs=2048,
        aliases=(
            "tensorrt-llm",
            "tensorrt",
            "trtllm",
            "trt-llm",
            "trt",
            "trtllm-bench",
            "triton",
            "nim",
        ),
        notes="kv_cache_free_gpu_mem_fraction 0.9, 32-token KV blocks, inflight batching up to 2048",
    ),
    EngineProfile(
        name="hf-transformers",
        label="HF transformers (generate)",
        bandwidth_efficiency=_eff(default=0.70, weight_only=0.40),
        compute_efficiency=_eff(default=0.45, weight_only=0.25),
        layer_overhead_us=250.0,
        step_overhead_us=3000.0,
        memory_utilization=1.0,
        cuda_context_gb=0.6,
        engine_reserve_gb=0.3,
        kv_block_tokens=1,
        prefill_chunk_tokens=1 << 20,
        max_num_seqs=64,
        continuous_batching=False,
        aliases=(
            "hf-transformers",
            "transformers",
            "hf",
            "huggingface",
            "hugging-face",
            "accelerate",
            "text-generation-inference",
            "tgi",
        ),
        notes="eager PyTorch: python + kernel launch bound at small models (no rows; physics defaults)",
    ),
    EngineProfile(
        name="gpt-fast",
        label="gpt-fast (torch.compile)",
        bandwidth_efficiency=_eff(default=0.76, weight_only=0.52, **{"16bit": 0.76}),
        compute_efficiency=_eff(default=0.50),
        layer_overhead_us=0.0,
        step_overhead_us=880.0,
        memory_utilization=1.0,
        cuda_context_gb=0.6,
        engine_reserve_gb=0.5,
        kv_block_tokens=1,
        prefill_chunk_tokens=1 << 20,
        max_num_seqs=64,
        continuous_batching=False,
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

CALIBRATION: dict[str, str] = {
    "llama.cpp": (
        "Fitted with benchmarks/accuracy.py --fit llama.cpp (log-space Nelder-Mead minimising MAPE) "
        "on the 424 non-SUSPECT llama-bench rows of the calibration CSV (XiongjieDai "
        "GPU-Benchmarks-on-LLM-Inference, May 2024: Llama 3 8B/70B, Q4_K_M and F16, 1-6 GPUs, 11 GPU "
        "models; plus ggerganov / JohannesGaessler llama-bench comments). Decode rows (tg N): "
        "bandwidth efficiency 0.93 (gguf-quant) / 0.95 (gguf-f16), stream ceiling 1116 / 1194 GB/s, "
        "1194 us per token + 40 us per layer, 288 us per layer-split hop, GQA K/V re-read 0.335 per "
        "extra query head. Prefill rows (pp N): compute efficiency 0.34 / 0.44 of the fp16-accumulate"
        " tensor peak, compute ceiling 118 / 207 TFLOPS, 24 bytes of score traffic per attention "
        "score (flash attention off). Decode MAPE 4.3 %, prefill 16 %."
    ),
    "tensorrt-llm": (
        "Fitted on 41 throughput rows (trtllm-bench PyTorch backend, H100 SXM FP8: Llama 3.1 8B TP1, "
        "3.3 70B TP2, 3.1 405B TP8; v0.6.1 static-batch tables on A100/L40S) and 6 TTFT rows (v0.5): "
        "compute efficiency 0.49 (fp8) / 0.72 (16-bit), bandwidth efficiency 0.80, 340 us per step. "
        "MAPE 11.7 % (serving), 13 % (TTFT)."
    ),
    "gpt-fast": (
        "Fitted on 8 batch-1 decode rows (Llama-2-7B, A100 SXM 330 W TP1/2/4/8 bf16, int8, int4; "
        "MI250X GCD): bandwidth efficiency 0.76 (bf16), 0.52 (weight-only int8/int4: dequantisation "
        "in the GEMV), 880 us per step. The all-reduce latency constants in parallel.py are checked "
        "on the TP rows. MAPE 6.8 %."
    ),
    "vllm": (
        "No usable rows (the one vLLM row is a sweep without lengths). Values are TensorRT-LLM's, "
        "lowered by the ~10-15 % gap vLLM and TensorRT-LLM vendors report on H100, with a larger "
        "per-step overhead (Python scheduler and sampler)."
    ),
    "sglang": (
        "No rows; between vLLM and TensorRT-LLM, as published comparisons place it."
    ),
    "hf-transformers": (
        "No rows; eager PyTorch physics: ~10 kernels per layer launched from Python at ~25 us each "
        "(250 us per layer) and a 3 ms generate() step overhead; weight-only kernels (bitsandbytes) "
        "at 40 % of bandwidth."
    ),
}

_BY_KEY: dict[str, EngineProfile] = {}
for _p in _PROFILES:
    _BY_KEY[_p.name] = _p
    for _a in _p.aliases:
        _BY_KEY[_a] = _p


def _key(name: str) -> str:
    s = name.strip().lower()
    s = re.sub(r"\(.*?\)", " ", s)  # "llama.cpp (llama-bench, layer split)" -> "llama.cpp"
    s = re.sub(r"\bv?\d+(\.\d+)*\b", " ", s)  # versions: "vLLM 0.6", "TensorRT-LLM v0.6.1"
    s = re.sub(r"[\s_/]+", "-", s).strip("-")
    return s


def resolve_engine(name: str | EngineProfile) -> EngineProfile:
    """Profile for "llama.cpp", "llamacpp", "vLLM 0.6", "TensorRT-LLM", "trtllm", "sglang", "hf", ...

    Raises UnknownNameError(field="engine") with the closest known names.
    """
    if isinstance(name, EngineProfile):
        return name
    if not isinstance(name, str):
        raise InvalidInputError("engine", f"expected an engine name, got {type(name).__name__}",
                                ", ".join(p.name for p in _PROFILES))
    key = _key(name)
    if key in _BY_KEY:
        return _BY_KEY[key]
    first = key.split("-")[0] if key else key
    for candidate in (first, key.replace(".", ""), key.replace("-", "")):
        if candidate in _BY_KEY:
            return _BY_KEY[candidate]
    # longest alias the text starts with, as a whole word ("llama.cpp-gguf", "tensorrt-llm-pytorch-backend")
    hits = sorted(
        (a for a in _BY_KEY if len(a) >= 2 and key.startswith(a + "-")), key=len, reverse=True
    )
    if hits:
        return _BY_KEY[hits[0]]
    raise UnknownNameError(
        "engine", name, closest(name, list(_BY_KEY)) or [p.name for p in _PROFILES]
    )
