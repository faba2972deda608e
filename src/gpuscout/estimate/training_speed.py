"""Training step time from physics: FLOPs, bytes and messages, at efficiencies fitted on published runs.

One GPU of a job with tensor-, context-, pipeline- and data-parallel degrees ``tp``, ``cp``, ``pp``,
``dp`` (and expert-parallel ``ep`` inside a stage's ``tp x cp x dp`` GPUs) processes, per micro-batch,
``M = mb x seq / cp`` token rows through its stage's layers, each matrix split ``tp`` ways. A stage holds
whole layers and the pipeline runs at the pace of its slowest stage, so the GPU timed is one of the
fullest stage: ``ceil(layers / pp)`` layers (80 layers on PP 3: 27, not 26.7; every per-layer term,
compute, TP / CP / EP traffic, kernel launches, ZeRO-3 hooks, and with it the bubble, follows), the
lm_head charged to it as well. Its time per micro-batch is the larger of the GPU work and the host time
to launch its kernels, plus the exposed traffic; a step is ``grad_accum`` micro-batches, the pipeline
bubble, the data-parallel traffic left exposed and the optimizer step.

GEMMs (a roofline per weight matrix)
    Each weight matrix of the architecture walk (:mod:`gpuscout.knowledge.layout`), and the lm_head
    (``vocab x hidden``, on the last stage), is a GEMM of ``M`` rows per pass: the slower of its FLOPs
    (``2 M K N``) at ``gemm_efficiency`` x the dense tensor peak of the training precision (FP8 tensor
    cores for FP8 training; bf16, or fp16 before Ampere, otherwise) and its operands (``M K + K N``
    inputs in the compute dtype, ``M N`` 16-bit outputs) at the memory bandwidth - short sequences and
    thin matrices become memory bound without a constant of their own. Routed experts are grouped GEMMs
    of the rows each expert receives (``ep x M / tp x k / experts`` under expert parallelism, the
    experts then not tensor-parallel; ``M x k / experts`` otherwise) at ``expert_gemm_efficiency`` of the
    dense rate. Passes: forward 1 + backward 2 (weight and input gradients) + 1 recomputed forward under
    full checkpointing. LoRA / QLoRA freeze the base: forward + input gradient only (2, +1 with
    checkpointing); adapters cost 6 FLOPs per parameter and token (+2).
Attention
    ``QK^T`` and ``AV``: ``4 x q_dim x context`` FLOPs per token and layer forward, with the causal mean
    context ``(seq + 1) / 2`` (the sliding window on local layers); the FlashAttention backward is 2.5
    forwards (it recomputes ``QK^T``: 5 matmuls against 2), +1 forward under full checkpointing; at
    ``attention_efficiency`` x the 16-bit peak (FP8 recipes keep attention in bf16), times the share the
    flash kernel keeps on the GPU (:mod:`gpuscout.estimate.training_kernels`: a FlashAttention-2-class
    kernel keeps half of it where the full rate needs the warpgroup MMA, Hopper and datacenter
    Blackwell; the current kernel, FlashAttention-3 / cuDNN there, all of it). Eager attention (scores
    materialised: ``QK^T`` as one batched matmul, the causal mask added to it, softmax, ``AV``) computes
    every score of the ``seq x seq`` square, the masked half (and what a sliding window masks) too: its
    context is ``seq``, not the causal mean; its backward is ``EAGER_BACKWARD`` = 2 forwards (the
    probabilities are kept, so ``QK^T`` is not recomputed: ``dP = dO V^T``, ``dV = P^T dO``,
    ``dQ = dS K``, ``dK = dS^T Q``, 4 matmuls against 2), +1 forward under full checkpointing. It also
    moves ``EAGER_SCORE_BYTES`` per score through memory.
Element-wise and memory-bound work
    Norms, activations, residual adds, RoPE, casts (FP8: the quantisation of every GEMM input) move
    ``elementwise_bytes`` bytes per token, layer and hidden unit over a forward and backward pass (x4/3
    when the forward is recomputed), at the GPU's memory bandwidth. The loss reads and writes 8 B per
    token and vocabulary entry (bf16 logits, their gradient). MoE dispatch copies each token ``k``
    times forward and back. LoRA's adapter path (``x @ A @ B`` added to the frozen output) is a chain of
    rank-``r`` kernels bound by memory: per adapted matrix and token ``2 x (4 in + 3 out)`` bytes over
    forward and backward, times ``adapter_traffic``. fp32 adapters on a 16-bit base (PEFT's default,
    ``adapter_dtype="fp32"``) run that chain on fp32 copies: ``FP32_ADAPTER_BYTES`` per in- and
    out-element (counted there), times the same ``adapter_traffic``, and their FLOPs at the FP32
    (non-tensor) rate where the part's table has one (PyTorch leaves TF32 off). A quantised frozen base
    (QLoRA NF4 / GPTQ int4, int8, FP8 without FP8 tensor cores) is dequantised to 16 bit before each
    matmul: the stored weights are read and 16-bit ones written once per forward, backward and
    recomputed forward, at ``dequant_efficiency`` x the bandwidth.
Communication
    Tensor parallel: 2 all-reduces per layer forward, 2 backward (+2 recomputed) of the micro-batch's
    activations, over NVLink or PCIe (:func:`gpuscout.estimate.parallel.allreduce_seconds`), exposed.
    Context parallel (ring attention): every GPU passes its K/V block ``cp - 1`` times per layer forward
    and twice that backward, hidden behind the attention compute. Expert parallel: dispatch and combine
    all-to-alls of ``k`` copies of each token, forward and backward, exposed. Pipeline: the 1F1B bubble
    ``(pp - 1) / v`` micro-batch times of the fullest stage (``v`` interleaved stages) plus the activation
    hand-offs. Data parallel: DDP / ZeRO-1/2 all-reduce (reduce-scatter + all-gather) the trainable
    gradients in bf16 once per step, overlapped with the last backward up to ``COMM_OVERLAP``; ZeRO-3 /
    FSDP all-gather the parameters twice and reduce-scatter the gradients every micro-step, overlapped
    with compute up to ``COMM_OVERLAP``. A collective over ``n`` GPUs, ``n_node`` of them in each node,
    runs hierarchically: ``(n_node - 1) / n_node`` of the volume over NVLink/PCIe, the rest over the
    node's network, shared by the GPUs of the node (``internode_gbps`` per node). GPUs without
    peer-to-peer access (GeForce RTX 30 / 40 / 50) get half the PCIe bandwidth in the node: NCCL stages each
    transfer through host memory (``Fabric.intra``, ``parallel.host_staged``).
Kernel launches and ZeRO-3 hooks
    The host launches ``KERNELS_PER_LAYER`` (+ ``KERNELS_PER_ADAPTER`` per adapted matrix) kernels per
    layer forward, twice that backward, once more when recomputing, at ``launch_us`` each; a micro-step
    cannot run faster (small models at short sequences are host bound). DeepSpeed ZeRO-3
    (``sharding="zero3"``) also runs Python hooks before and after every module that owns parameters
    (each linear layer, LoRA ``A`` / ``B``, norm, the embedding and lm_head), which gather its
    partitioned weights and release them again, in the forward, the recomputed forward and the
    backward: ``zero3_module_us`` of host time per module and pass, on the same host thread as the
    launches (it binds at short sequences, hides behind long ones). FSDP wraps whole blocks (one flat
    parameter per decoder layer) and pays no such per-module cost.
Optimizer and offload
    The optimizer step is memory bound: PyTorch's default (foreach, unfused) AdamW makes about 20
    element-wise passes over parameter-sized tensors (lerp, mul, addcmul, sqrt, div, add, addcdiv, weight
    decay), i.e. reads and writes weights, gradients and states ``OPTIMIZER_TRAFFIC`` = 5 times over
    (a fused kernel would need 2). CPU offload adds the host Adam (``CPU_ADAM_PARAMS_PER_S`` per node) and
    PCIe copies.

``CALIBRATION`` holds the fitted constants and names the rows they come from.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from gpuscout.estimate.parallel import Link, allreduce_seconds, host_link_gbps, host_staged
from gpuscout.estimate.training_kernels import CURRENT, attention_kernel_note, attention_kernel_share
from gpuscout.estimate.training_memory import (
    NF4_BITS,
    PARAM_SHARDINGS,
    TrainingSetup,
    held_params,
    lora_active_params,
    lora_groups,
    lora_io,
    pipeline_stage_layers,
)
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.layout import ModelLayout
from gpuscout.knowledge.model_types import ModelSpec

GB = 1e9
COMM_OVERLAP = 0.8  # share of compute time that can hide data-parallel traffic (NCCL on its own streams)
CPU_ADAM_PARAMS_PER_S = 2e9  # per node, vectorised CPU Adam
LOGITS_BYTES_PER_VOCAB = 8.0  # bf16 logits written and read, their gradient written and read
FA_BACKWARD = 2.5  # FlashAttention backward FLOPs in forwards
EAGER_BACKWARD = 2.0  # eager attention's backward FLOPs in forwards (probabilities kept, no QK^T recompute)
OPTIMIZER_TRAFFIC = 5.0  # unfused AdamW: bytes moved per byte of weights + gradients + states
EAGER_SCORE_BYTES = 24.0  # eager attention, per score: fwd write 2 + softmax 4 + AV read 2, backward 2x

# fp32 adapters on a 16-bit base (PEFT's default ``autocast_adapter_dtype=True`` without torch autocast).
# LoRA's ``Linear.forward`` runs ``x = _cast_input_dtype(x, lora_A.weight.dtype)``, ``result = result +
# lora_B(lora_A(dropout(x))) * scaling`` (dropout 0: an identity) and ``result.to(torch_result_dtype)``.
# Bytes per element of an adapted matrix's input (in) and output (out) per token, unfused kernels, the
# rank-r intermediates left out:
#   forward   in:  cast x bf16 -> fp32 (read 2, write 4) 6 + lora_A reads the fp32 x 4              = 10
#             out: lora_B writes fp32 4 + scale (read 4, write 4) 8 + bf16 result + fp32 -> fp32
#                  (read 2 + 4, write 4) 10 + cast back to bf16 (read 4, write 2) 6                 = 28
#   backward  in:  lora_A's weight gradient reads the saved fp32 x 4 + its input gradient writes
#                  fp32 4 + that gradient cast to bf16 (read 4, write 2) 6 + added to the base's
#                  input gradient (read 2 + 2, write 2) 6                                          = 20
#             out: cast-back's gradient to fp32 (read 2, write 4) 6 + the add's gradient for the bf16
#                  result cast back (read 4, write 2) 6 + scale (read 4, write 4) 8 + lora_B's
#                  input and weight gradients each read the fp32 gradient 4 + 4                     = 28
# 30 B per in- and 56 per out-element over forward and backward, against the 16-bit chain's 2 x (4 in
# + 3 out); ``adapter_traffic`` (fitted on 16-bit chains) scales both. A recomputed forward repeats the
# forward's bytes.
FP32_ADAPTER_BYTES = {"forward": (10.0, 28.0), "backward": (20.0, 28.0)}  # (per in-, per out-element)
PRECISION_CLASSES = ("16bit", "fp8")


@dataclass(frozen=True, slots=True)
class PrecisionConstants:
    """What a precision class reaches: GEMM share of its tensor peak, element-wise bytes moved."""

    gemm_efficiency: float
    elementwise_bytes: float  # per token, layer and hidden unit, forward + backward


@dataclass(frozen=True, slots=True)
class TrainingCalibration:
    """The fitted constants of the step-time model (see the module docstring for what each does)."""

    precision: Mapping[str, PrecisionConstants]
    attention_efficiency: float
    launch_us: float
    expert_gemm_efficiency: float
    adapter_traffic: float
    dequant_efficiency: float
    zero3_module_us: float = 0.0  # DeepSpeed ZeRO-3: host time of the fetch/release hooks per module, pass
    rows: Mapping[str, str] = field(default_factory=dict)  # constant -> the calibration rows that set it

    def constants(self, precision_class: str) -> PrecisionConstants:
        return self.precision[precision_class]


# Fitted jointly by ``python benchmarks/accuracy_training.py --fit`` (Nelder-Mead on the squared log
# error of tokens/s, from the physical priors in that script) on the 148 tokens/s rows (and the one
# MFU-only row) of benchmarks/data/measurements.csv on registry GPUs: llm-foundry 64, Qwen README 31,
# NeMo 24.07 16, Megatron-Bridge 15, NeMo Automodel 11, torchtitan 7 (A100 / H200; its Grand Teton
# H100 rows are on a GPU the registry lacks and stay out), PEFT 3, Megatron-LM 1. Each constant is
# shared by every GPU and model; the CSV lines that pin it down are named below. Refitted on 2026-12-04
# with the 9 tokens/s rows measured here (benchmarks/gpu_measure.py on an H200: PEFT LoRA with fp32
# adapters, pure-bf16 full fine-tuning): no constant moved by more than 4 % (adapter_traffic 1.9 -> 1.82,
# launch_us 29 -> 29.5, zero3_module_us 270 -> 264), so the values below are kept.
CALIBRATION = TrainingCalibration(
    precision={
        "16bit": PrecisionConstants(gemm_efficiency=0.59, elementwise_bytes=71.0),
        "fp8": PrecisionConstants(gemm_efficiency=0.50, elementwise_bytes=120.0),
    },
    attention_efficiency=0.345,
    launch_us=29.0,
    expert_gemm_efficiency=0.39,
    adapter_traffic=1.9,
    dequant_efficiency=0.147,
    zero3_module_us=270.0,
    rows={
        "16bit": "BF16/FP16 runs: measurements.csv lines 1238-1240, 1245-1307 (Megatron-Bridge, "
        "Automodel, llm-foundry H100), 1323-1393 (llm-foundry A100 80/40GB), 1429-1437 "
        "(torchtitan A100), 1441-1445 (PEFT L40S), 1482-1544 (Qwen A100, Megatron-LM GPT-3)",
        "fp8": "FP8/MXFP8 runs: lines 1213-1244 (NeMo 24.07 and Megatron-Bridge, H100/B200/B300), "
        "1309-1321 (llm-foundry H100 FP8), 1425-1427 (torchtitan H200 float8)",
        "attention_efficiency": "sequences of 8k-32k tokens: llm-foundry lines 1279-1389 (seq 8192 and "
        "32768), NeMo/Megatron-Bridge 8k rows, Qwen 8192 rows; the efficiency of the current kernel: the "
        "llm-foundry H100 rows ran a pre-Hopper flash kernel and are timed at training_kernels' FA2 share "
        "(benchmarks/accuracy_training.py ATTENTION_KERNELS)",
        "launch_us": "short micro-steps (<= 1k tokens): PEFT lines 1441-1445, Qwen seq-512 rows 1484-1540",
        "zero3_module_us": "DeepSpeed ZeRO-3 runs at short sequences: Qwen full fine-tuning lines 1496-1498 "
        "(1.8B, one GPU) and 1514 (7B, two GPUs), the 72B LoRA line 1534 (four GPUs); one constant "
        "for all three sizes and GPU counts (the hooks hide behind the GPU work at 8k tokens)",
        "expert_gemm_efficiency": "MoE runs: lines 1230-1234, 1238-1251 (Megatron-Bridge, Automodel: "
        "Qwen3-30B-A3B, Qwen3-235B-A22B, gpt-oss 20b/120b, DeepSeek-V3)",
        "adapter_traffic": "LoRA runs: lines 1226-1228, 1236 (NeMo, Megatron-Bridge FP8), 1255-1265 "
        "(Automodel), 1443-1445 (PEFT), 1484-1544 (Qwen)",
        "dequant_efficiency": "QLoRA runs, all GPTQ-Int4 bases in auto-gptq kernels: Qwen lines 1490-1494, "
        "1508-1512, 1528-1532, 1540-1544 (bitsandbytes NF4 dequantises faster; no "
        "speed row measures it)",
    },
)


@dataclass(frozen=True, slots=True)
class Fabric:
    """The links a job's collectives use."""

    link: Link  # GPU-to-GPU inside a node, as ``parallel.collective_link`` gives it (or ``gpu_link``)
    gpus_per_node: int
    nodes: int
    internode_gbps: float  # per node
    # the in-node link at what the collectives get: half its bandwidth on GPUs without peer-to-peer access,
    # whose NCCL stages each transfer through host memory (``parallel.host_staged``; a link already
    # staged by ``collective_link`` is kept as it is)
    intra: Link = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "intra", host_staged(self.link))

    def collective_seconds(self, nbytes: float, group: int, inner: int, factor: float) -> float:
        """Time of a collective over ``group`` GPUs moving ``factor x nbytes`` per GPU in a ring.

        ``inner`` is the product of the parallel degrees laid out inside the group's stride (TP for the
        data-parallel group): the group then has ``gpus_per_node // inner`` members per node.
        ``factor`` is 2 for an all-reduce, 1 for an all-gather, reduce-scatter or all-to-all.
        """
        if group <= 1 or nbytes <= 0:
            return 0.0
        per_node = max(1, min(group, self.gpus_per_node // max(inner, 1)))
        spanned = max(1.0, group / per_node)
        intra = factor * (per_node - 1) / per_node * nbytes / (self.intra.gbps * GB) if per_node > 1 else 0.0
        inter = 0.0
        if spanned > 1:
            nic_per_gpu = self.internode_gbps / self.gpus_per_node
            inter = factor * (spanned - 1) / spanned * (nbytes / per_node) / (nic_per_gpu * GB)
        return max(intra, inter)


@dataclass(frozen=True, slots=True)
class Flops:
    """FLOPs per trained token, whole model (not per GPU)."""

    dense: float  # executed weight-GEMM FLOPs outside the routed experts, lm_head included
    experts: float  # executed routed-expert GEMM FLOPs
    attention: float  # executed attention-score FLOPs
    adapters: float  # LoRA adapter FLOPs
    model: float  # the useful work MFU is quoted against (no recompute; see ``model_flops_per_token``)

    @property
    def hardware(self) -> float:
        return self.dense + self.experts + self.attention + self.adapters


@functools.lru_cache(maxsize=1024)
def attention_flops_per_token(
    spec: ModelSpec, seq_len: int, *, causal: bool = True, materialised: bool = False
) -> float:
    """Forward attention-score FLOPs (``QK^T`` and ``AV``) per token, summed over layers (a pure function
    of its arguments, kept per model and sequence: a training estimate asks for it four times).

    ``causal``: averaged over a causal sequence (mean context ``(seq + 1) / 2``), what a causal
    FlashAttention kernel executes; otherwise the full ``seq`` (the PaLM / llm-foundry / torchtitan MFU
    convention, ``12 L H Q T`` for forward and backward). Sliding-window layers see at most the window.
    ``materialised``: what eager attention executes, the whole ``seq x seq`` score square on every layer
    (the causal mask and the window are applied to scores already computed); ``causal`` is then moot.
    """
    heads = spec.num_attention_heads
    if spec.is_mla:
        per_ctx = 2 * heads * (spec.qk_nope_head_dim + spec.qk_rope_head_dim) + 2 * heads * spec.v_head_dim
    else:
        hd = spec.head_dim or spec.hidden_size // max(heads, 1)
        per_ctx = 4 * heads * hd
    if materialised:
        return per_ctx * float(seq_len) * spec.num_hidden_layers
    full_ctx = (seq_len + 1) / 2 if causal else float(seq_len)
    window = spec.sliding_window
    total = 0.0
    for i in range(spec.num_hidden_layers):
        if spec.layer_types:
            sliding = i < len(spec.layer_types) and spec.layer_types[i] == "sliding"
        else:
            sliding = window is not None  # a window with no per-layer list applies to every layer
        ctx = min(full_ctx, float(window)) if sliding and window else full_ctx
        total += per_ctx * ctx
    return total


def _adapter_active(layout: ModelLayout, setup: TrainingSetup) -> tuple[float, float]:
    """Adapter parameters and the 16-bit chain's ``sum(4 in + 3 out)`` bytes of the adapted matrices one
    token passes through."""
    ins, outs = lora_io(layout, setup.lora_targets)
    return lora_active_params(layout, setup.lora_rank, setup.lora_targets), 4.0 * ins + 3.0 * outs


def weight_passes(setup: TrainingSetup) -> float:
    """Passes over the weight GEMMs per micro-step: forward, input gradient, weight gradient (not for a
    frozen base, unless FSDP1's flat parameters give it one), a recomputed forward under checkpointing.

    Under FSDP1 the lm_head is timed with the blocks' weight gradient too, though the root unit that holds
    it has no trainable weight and gets none: 2-7 % of that pass (vocabularies of 32k-128k)."""
    trained = not setup.adapters or setup.frozen_grads
    return (3.0 if trained else 2.0) + (1.0 if setup.recompute == "full" else 0.0)


def training_flops(spec: ModelSpec, layout: ModelLayout, setup: TrainingSetup) -> Flops:
    """Executed and model FLOPs per trained token (see the module docstring)."""
    experts = sum(g.active_params for g in layout.linear if g.part == "routed_experts")
    dense = layout.linear_active_params - experts + spec.vocab_size * spec.hidden_size
    eager = setup.attention == "eager"  # the whole score square, backward without recomputing QK^T
    attn = attention_flops_per_token(spec, setup.seq_len, materialised=eager)
    full_ckpt = setup.recompute == "full"
    passes = weight_passes(setup)
    attn_passes = 1.0 + (EAGER_BACKWARD if eager else FA_BACKWARD) + (1.0 if full_ckpt else 0.0)
    adapter_params, _ = _adapter_active(layout, setup) if setup.adapters else (0.0, 0.0)
    adapters = adapter_params * (6.0 + (2.0 if full_ckpt else 0.0))
    return Flops(
        2.0 * dense * passes,
        2.0 * experts * passes,
        attn * attn_passes,
        adapters,
        model_flops_per_token(spec, layout, setup),
    )


def model_flops_per_token(spec: ModelSpec, layout: ModelLayout, setup: TrainingSetup) -> float:
    """Model FLOPs per token, the numerator of our MFU (PaLM convention, no recompute).

    Full / pre-training: ``6 x (active matmul parameters + lm_head) + 12 x layers x q_dim x seq``
    (non-causal attention, as PaLM, llm-foundry and torchtitan count; the window on local layers).
    LoRA / QLoRA: the frozen base needs no weight gradients, ``4 x`` instead of ``6 x``, plus
    ``6 x`` the adapters.
    """
    weights = layout.linear_active_params + spec.vocab_size * spec.hidden_size
    attn = 3.0 * attention_flops_per_token(spec, setup.seq_len, causal=False)
    if not setup.adapters:
        return 6.0 * weights + attn
    adapter_params, _ = _adapter_active(layout, setup)
    return 4.0 * weights + attn + 6.0 * adapter_params


@dataclass(frozen=True, slots=True)
class StepTime:
    """Seconds of one optimizer step on one GPU, by what they are spent on."""

    gemm_s: float
    attention_s: float
    memory_s: float  # element-wise, loss, adapter path, dequantisation, optimizer step
    communication_s: float  # exposed TP / CP / EP / PP / DP traffic
    bubble_s: float  # pipeline fill and drain
    host_s: float  # CPU offload: host optimizer and PCIe copies
    notes: Mapping[str, str] = field(default_factory=dict)
    launch_bound: bool = (
        False  # the host's kernel launches outlast the GPU work (compute is stretched to them)
    )

    @property
    def total_s(self) -> float:
        return (
            self.gemm_s
            + self.attention_s
            + self.memory_s
            + self.communication_s
            + self.bubble_s
            + self.host_s
        )

    @property
    def binding(self) -> str:
        """The resource that takes the most time: compute, memory bandwidth, communication or host (CPU
        offload, or the kernel launches when they outlast the GPU work they issue)."""
        shares = {
            ("host (kernel launches)" if self.launch_bound else "compute"): self.gemm_s + self.attention_s,
            "memory bandwidth": self.memory_s,
            "communication": self.communication_s + self.bubble_s,
            "host (CPU offload)": self.host_s,
        }
        return max(shares, key=lambda k: shares[k])


@dataclass(frozen=True, slots=True)
class SpeedInputs:
    """What the step time needs beyond the model and the setup."""

    acc: Accelerator
    fabric: Fabric
    mm_tflops: float  # dense peak the weight GEMMs run at (FP8 or 16-bit)
    attn_tflops: float  # 16-bit dense peak (attention)
    precision_class: str  # key of ``TrainingCalibration.precision``
    stored_bytes: float  # bytes per weight of a quantised frozen base (0: not quantised)
    grad_accum: int
    opt_bytes: float  # weights + gradients + optimizer states + adapters on this GPU
    trainable: float
    param_bytes: float  # bytes per parameter all-gathered by FSDP (storage format of the base)
    spilled_gb: float
    nodes: int
    attention_kernel: str = CURRENT  # training_kernels.ATTENTION_KERNELS: the flash kernel's generation
    # the dense peak the adapter FLOPs run at when it is not ``mm_tflops`` (fp32 adapters: the FP32
    # non-tensor rate); 0: ``mm_tflops``
    adapter_tflops: float = 0.0


# Forward kernels of an eager (uncompiled) decoder layer: 2 RMSNorms of ~6 element-wise ops, q/k/v/o,
# RoPE on q and k (~12), attention (~4 incl. layout copies), gate/up/act/mul/down (5), 2 residual adds,
# dropout / casts (~3). The backward launches about twice as many, a recomputed forward as many again.
KERNELS_PER_LAYER = 40
KERNELS_PER_ADAPTER = 5  # LoRA forward per adapted matrix: dropout, x @ A, @ B, scaling, add
KERNELS_FP32_ADAPTER_CASTS = 2  # fp32 adapters: the cast of the input to fp32 and of the sum back to 16 bit
NORMS_PER_LAYER = 2  # pre-attention and pre-MLP norm modules of a decoder layer


def stage_split(spec: ModelSpec, setup: TrainingSetup) -> float:
    """What a per-GPU share of the decoder layers is divided by: ``layers / ceil(layers / pp)``.

    The pipeline runs at the pace of its fullest stage of whole layers
    (:func:`~gpuscout.estimate.training_memory.pipeline_stage_layers`), so a sum over the model's layers
    divided by this gives that stage's share: ``pp`` itself when it divides the layers (the same figure
    as before), less otherwise (80 layers on PP 3: 80 / 27 = 2.96, i.e. 27 layers' worth). 1 without
    pipelining. Refuses, as the memory model does, a ``pp`` above the layer count."""
    stage = pipeline_stage_layers(spec, setup)
    return 1.0 if setup.pp == 1 else spec.num_hidden_layers / stage


def zero3_modules(spec: ModelSpec, layout: ModelLayout, setup: TrainingSetup) -> float:
    """Modules with parameters on one GPU's pipeline stage: what DeepSpeed ZeRO-3 hooks fetch one by one.

    Every linear layer (each expert's too), LoRA's ``A`` and ``B`` of every adapted matrix, the norms
    (of the fullest stage's whole layers), and the embedding and lm_head (at the ends of the pipeline,
    counted once)."""
    linear = sum(g.count for g in layout.linear)
    adapters = 2 * sum(g.count for g in lora_groups(layout, setup.lora_targets)) if setup.adapters else 0
    norms = NORMS_PER_LAYER * spec.num_hidden_layers + 1
    return (linear + adapters + norms) / stage_split(spec, setup) + 2.0


@dataclass(frozen=True, slots=True)
class _Gemm:
    """``count`` GEMMs of ``rows x k x n`` on one GPU per pass."""

    rows: float
    k: float
    n: float
    count: float
    expert: bool


def _gemms(spec: ModelSpec, layout: ModelLayout, setup: TrainingSetup, rows: float) -> list[_Gemm]:
    """The weight GEMMs one GPU runs per pass of one micro-batch (the fullest stage's layers, its shard of
    each matrix, and the lm_head of the last stage)."""
    tp, split, ep = setup.tp, stage_split(spec, setup), setup.ep
    out: list[_Gemm] = []
    for g in layout.linear:
        if g.part == "routed_experts":
            layers = g.count / spec.num_experts / split
            if ep > 1:  # experts not tensor-parallel; the GPU's rows / tp tokens go to ep GPUs
                expert_rows = ep * rows / tp * spec.experts_per_token / spec.num_experts
                out.append(
                    _Gemm(expert_rows, g.in_features, g.out_features, layers * spec.num_experts / ep, True)
                )
            else:
                expert_rows = rows * spec.experts_per_token / spec.num_experts
                out.append(
                    _Gemm(expert_rows, g.in_features, g.out_features / tp, layers * spec.num_experts, True)
                )
        else:
            out.append(_Gemm(rows, g.in_features, g.out_features / tp, g.active_count / split, False))
    out.append(_Gemm(rows, spec.hidden_size, spec.vocab_size / tp, 1.0, False))  # lm_head, last stage
    return out


def _gemm_seconds(
    gemms: list[_Gemm], passes: float, rate: float, expert_rate: float, bw: float, in_bytes: float
) -> float:
    """Roofline per GEMM: the FLOPs at the achieved rate or the operands at the bandwidth, the slower."""
    total = 0.0
    for g in gemms:
        flops = 2.0 * g.rows * g.k * g.n
        moved = in_bytes * (g.rows * g.k + g.k * g.n) + 2.0 * g.rows * g.n
        total += g.count * max(flops / (expert_rate if g.expert else rate), moved / bw)
    return passes * total


def _model_parallel_seconds(
    spec: ModelSpec,
    setup: TrainingSetup,
    fab: Fabric,
    rows: float,
    attention: float,
    notes: dict[str, str],
) -> float:
    """Exposed tensor-, context-, expert- and pipeline-parallel traffic of one micro-batch on one GPU."""
    tp, pp, cp, ep = setup.tp, setup.pp, setup.cp, setup.ep
    split = stage_split(spec, setup)  # the fullest stage's whole layers: layers / split of them
    h, layers = spec.hidden_size, spec.num_hidden_layers
    full_ckpt = setup.recompute == "full"
    comm = 0.0
    act_bytes = rows * h * 2.0
    if tp > 1:
        n_ar = 4 + (2 if full_ckpt else 0)
        comm += n_ar * layers / split * allreduce_seconds(fab.intra, tp, act_bytes)
        notes["tp"] = f"{n_ar} all-reduces per layer over {fab.intra.label}"
    if cp > 1:
        kv_dim = (
            spec.kv_lora_rank + spec.qk_rope_head_dim
            if spec.is_mla
            else spec.num_key_value_heads * spec.head_dim
        )
        kv_bytes = rows * 2 * kv_dim * 2.0 / tp
        ring = 3 * (cp - 1) * kv_bytes * layers / split / (fab.intra.gbps * GB)
        comm += max(0.0, ring - attention)
    if ep > 1:
        a2a = 4 + (2 if full_ckpt else 0)
        moe_layers = spec.moe_layer_count
        volume = rows * spec.experts_per_token * h * 2.0 / tp
        comm += a2a * moe_layers / split * fab.collective_seconds(volume, ep, 1, 1.0)
        notes["ep"] = f"{a2a} all-to-alls per MoE layer across {ep} GPUs"
    if pp > 1:
        crosses_nodes = tp * cp * setup.dp >= fab.gpus_per_node and fab.nodes > 1
        p2p_gbps = fab.internode_gbps / fab.gpus_per_node if crosses_nodes else fab.intra.gbps
        comm += 2 * act_bytes / tp / (p2p_gbps * GB)  # activations forward, their gradient backward
    return comm


def _data_parallel_seconds(
    spec: ModelSpec, layout: ModelLayout, setup: TrainingSetup, inp: SpeedInputs, compute_micro: float
) -> float:
    """Exposed data-parallel traffic of one optimizer step: gradient reduction (and, under ZeRO-3 /
    FSDP, the parameter all-gathers of every micro-batch), less what hides behind the compute."""
    fab, tp, m = inp.fabric, setup.tp, setup.grad_accum
    held = held_params(spec, setup)
    if held.dense_world <= 1 and held.expert_world <= 1:
        return 0.0
    # what gets a gradient: the adapters, or (FSDP1's flat parameters) the base beside them too
    share = inp.trainable / max(layout.total, 1) if setup.adapters and not setup.frozen_grads else 1.0
    grads = fab.collective_seconds(
        held.dense * share * 2.0, held.dense_world, tp, 2.0
    ) + fab.collective_seconds(held.experts * share * 2.0, held.expert_world, tp, 2.0)
    if setup.sharding not in PARAM_SHARDINGS:
        return max(0.0, grads - COMM_OVERLAP * (2.0 / 3.0) * compute_micro)
    gather = fab.collective_seconds(
        held.dense * inp.param_bytes, held.dense_world, tp, 2.0
    ) + fab.collective_seconds(held.experts * inp.param_bytes, held.expert_world, tp, 2.0)
    hidden = COMM_OVERLAP * compute_micro
    if setup.unsharded_grads:  # no_sync: one reduce-scatter, in the step's last micro-batch
        return m * max(0.0, gather - hidden) + max(0.0, grads / 2.0 - hidden)
    return m * max(0.0, gather + grads / 2.0 - hidden)  # reduce-scatter (half an all-reduce) every micro


def step_time(
    spec: ModelSpec,
    layout: ModelLayout,
    setup: TrainingSetup,
    inp: SpeedInputs,
    cal: TrainingCalibration,
    flops: Flops | None = None,
) -> StepTime:
    """Seconds of one optimizer step on one GPU (see the module docstring). ``flops``: the setup's
    :func:`training_flops`, where the caller has them already (``estimate_training`` reports them too)."""
    acc, fab = inp.acc, inp.fabric
    const = cal.constants(inp.precision_class)
    tp, pp, cp, ep = setup.tp, setup.pp, setup.cp, setup.ep
    split = stage_split(spec, setup)  # pp, or less where the fullest stage holds more than layers / pp
    shard = tp * split * cp
    tokens = float(setup.micro_batch * setup.seq_len)  # one micro-batch of one model replica
    rows = tokens / cp  # GEMM rows on one GPU
    flops = flops or training_flops(spec, layout, setup)
    bw = acc.bandwidth_gbps * GB
    full_ckpt = setup.recompute == "full"
    recompute = setup.recompute in ("full", "selective")
    h, layers = spec.hidden_size, spec.num_hidden_layers
    notes: dict[str, str] = {}

    mm_rate = const.gemm_efficiency * inp.mm_tflops * 1e12
    in_bytes = 1.0 if inp.precision_class == "fp8" else 2.0
    gemm = _gemm_seconds(
        _gemms(spec, layout, setup, rows),
        weight_passes(setup),
        mm_rate,
        mm_rate * cal.expert_gemm_efficiency,
        bw,
        in_bytes,
    )
    if spec.is_moe:
        expert_rows = (ep * rows / tp if ep > 1 else rows) * spec.experts_per_token / spec.num_experts
        notes["experts"] = f"{expert_rows:.0f} token rows per expert GEMM"
    attn_eff = cal.attention_efficiency
    if setup.attention == "flash":
        attn_eff *= attention_kernel_share(acc, inp.attention_kernel)
        notes["attention_kernel"] = attention_kernel_note(acc, inp.attention_kernel)
    attention = tokens * flops.attention / shard / (attn_eff * inp.attn_tflops * 1e12)

    # --- memory-bound work per micro-batch ----------------------------------------------------------
    passes = 4.0 / 3.0 if recompute else 1.0
    elem = tokens * const.elementwise_bytes * h * layers * passes / shard
    loss_bytes = LOGITS_BYTES_PER_VOCAB * (3.0 if setup.loss == "hf" else 1.0)
    elem += tokens * spec.vocab_size * loss_bytes / (tp * cp)
    if spec.is_moe:
        elem += tokens * spec.experts_per_token * h * 2.0 * 2.0 * 3.0 * layers / shard
    if setup.attention == "eager":  # scores written, softmaxed, read by AV; twice that backward
        elem += (
            tokens * spec.num_attention_heads * setup.seq_len * EAGER_SCORE_BYTES * passes * layers / shard
        )
    adapted_per_layer = 0.0
    adapter_kernels = float(KERNELS_PER_ADAPTER)
    if setup.fp32_adapters:
        ins, outs = lora_io(layout, setup.lora_targets)
        fwd_in, fwd_out = FP32_ADAPTER_BYTES["forward"]
        bwd_in, bwd_out = FP32_ADAPTER_BYTES["backward"]
        fwd = (fwd_in * ins + fwd_out * outs) * (2.0 if recompute else 1.0)
        elem += cal.adapter_traffic * tokens * (fwd + bwd_in * ins + bwd_out * outs) / shard
        adapter_rate = const.gemm_efficiency * (inp.adapter_tflops or inp.mm_tflops) * 1e12
        gemm += tokens * flops.adapters / shard / adapter_rate
        adapter_kernels += KERNELS_FP32_ADAPTER_CASTS
        notes["adapters"] = (
            f"fp32 adapters (PEFT's default on a 16-bit base): the adapter chain moves "
            f"{fwd_in + bwd_in:g} B per input and {fwd_out + bwd_out:g} B per output element and token "
            f"(x {cal.adapter_traffic:g}), its FLOPs at "
            + (
                f"the {inp.adapter_tflops:g} TFLOPS FP32 rate"
                if inp.adapter_tflops
                else "the weight GEMMs' rate (no FP32 rate listed)"
            )
        )
    elif setup.adapters:
        _, traffic = _adapter_active(layout, setup)
        elem += cal.adapter_traffic * tokens * traffic * 2.0 * passes / shard
        gemm += tokens * flops.adapters / shard / mm_rate
    if setup.adapters:
        adapted_per_layer = sum(g.active_count for g in lora_groups(layout, setup.lora_targets)) / layers
    memory = elem / bw
    if inp.stored_bytes:
        dq_passes = 2.0 + (1.0 if full_ckpt else 0.0)
        dq_bytes = dq_passes * layout.linear_params / (tp * split) * (inp.stored_bytes + 2.0)
        memory += dq_bytes / (bw * cal.dequant_efficiency)
        notes["dequant"] = (
            f"base dequantised to 16 bit {dq_passes:g}x per micro-step at "
            f"{cal.dequant_efficiency:.0%} of {acc.bandwidth_gbps:g} GB/s"
        )

    comm = _model_parallel_seconds(spec, setup, fab, rows, attention, notes)

    # --- the host issues the kernels: a micro-step cannot be faster than their launches ---------------
    kernels = (KERNELS_PER_LAYER + adapter_kernels * adapted_per_layer) * (3.0 + (1.0 if recompute else 0.0))
    launch = kernels * layers / split * cal.launch_us * 1e-6
    if setup.sharding == "zero3" and cal.zero3_module_us > 0:
        fetches = 2.0 + (1.0 if recompute else 0.0)  # forward, backward, recomputed forward
        modules = zero3_modules(spec, layout, setup)
        launch += modules * fetches * cal.zero3_module_us * 1e-6
        notes["zero3_hooks"] = (
            f"ZeRO-3 hooks gather and release {modules:.0f} modules {fetches:g}x per micro-step, "
            f"{cal.zero3_module_us:.0f} us of host time each"
        )
    gpu_work = gemm + attention + memory
    if launch > gpu_work:
        notes["launch"] = f"host-bound: {kernels * layers / split:.0f} kernel launches per micro-step" + (
            " and the ZeRO-3 hooks" if "zero3_hooks" in notes else ""
        )
    compute_micro = max(gpu_work, launch)
    m = setup.grad_accum
    bubble = (pp - 1) / setup.virtual_stages * (compute_micro + comm) if pp > 1 else 0.0

    dp_comm = _data_parallel_seconds(spec, layout, setup, inp, compute_micro)

    # --- optimizer step, offload, paging ---------------------------------------------------------------
    host = 0.0
    host_bps = host_link_gbps(acc) * GB  # host<->device copies
    optimizer = 0.0 if setup.cpu_offload else OPTIMIZER_TRAFFIC * inp.opt_bytes / bw
    if setup.cpu_offload:
        host = inp.trainable / inp.nodes / CPU_ADAM_PARAMS_PER_S
        held_world = setup.world / pp * split  # world, less where the fullest stage holds more
        copies = 4.0 * inp.trainable / held_world
        if setup.sharding in PARAM_SHARDINGS:
            copies += m * 2 * 2.0 * layout.total / held_world
        host += copies / host_bps
        notes["cpu_offload"] = (
            f"CPU Adam at {CPU_ADAM_PARAMS_PER_S:.0e} params/s per node, host copies "
            f"at {host_bps / GB:g} GB/s"
        )
    if inp.spilled_gb > 0:
        host += 2.0 * inp.spilled_gb * GB / host_bps

    scale = (
        compute_micro / gpu_work if gpu_work > 0 else 1.0
    )  # host-bound: GPU work stretched to the launches
    return StepTime(
        gemm_s=m * gemm * scale,
        attention_s=m * attention * scale,
        memory_s=m * memory * scale + optimizer,
        communication_s=m * comm + dp_comm,
        bubble_s=bubble,
        host_s=host,
        notes=notes,
        launch_bound=launch > gpu_work,
    )


def nf4_stored_bytes() -> float:
    """Bytes per weight of a bitsandbytes NF4 (double-quantised) base."""
    return NF4_BITS / 8
