"""Per-GPU memory of training and fine-tuning: weights, gradients, optimizer, adapters, activations.

This module is memory accounting only: the tensor shapes come from the architecture walk
(:func:`gpuscout.knowledge.layout.model_layout`), never from a headline parameter count, so LoRA
adapters see the real GQA shapes of ``k_proj``/``v_proj`` and every expert of a MoE model.

Bytes per parameter (P = parameters held by this GPU before data-parallel sharding)
-----------------------------------------------------------------------------------
Full fine-tuning / pre-training (``optimizer``):

- ``"adamw"`` mixed precision: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + fp32 m 4 + fp32 v 4
  = **16 B/param**. Frameworks that keep fp32 gradients (or accumulate them in fp32) pay 18; we use
  16 and say so in the assumptions. FP8 training keeps the same bf16/fp32 copies (the FP8 casts are
  transient), so it costs what bf16 costs.
- ``"adamw8bit"`` (bitsandbytes 8-bit AdamW with fp32 master): 2 + 2 + 4 + 1 + 1 = **10 B/param**.
- ``"paged_adamw8bit"`` (bitsandbytes PagedAdamW8bit on pure-bf16 weights, no master; torchtune's
  single-GPU full fine-tune): 2 + 2 + 1 + 1 = 6 B/param, the 2 B of states are *paged* (unified
  memory that the driver evicts to CPU RAM under pressure, so they never cause an OOM).
- ``"bf16"`` pure bf16 AdamW (weights, grads, m, v all bf16): **8 B/param**.
- ``precision="fp32"``: fp32 weights and grads, no master copy: 4 + 4 + 8 = 16 B/param.
- ``optimizer_in_backward`` (torchtune, fused optimizers): each parameter is stepped as soon as its
  gradient exists, so only the largest gradient tensor is ever alive instead of all of them.

LoRA / QLoRA: the base is frozen (no gradient, no optimizer state). Base linear layers are stored
as the precision says (bf16 2 B, fp8/int8 1 B; QLoRA: NF4 with double quantisation,
4 + 8/64 + 32/(64*256) = 4.127 bits); embeddings, lm_head and norms stay bf16. Adapters of rank
``r`` add ``r * (in + out)`` parameters per adapted matrix, kept in bf16 as torchtune and the
QLoRA reference code do: bf16 weight 2 + bf16 grad 2 + fp32 AdamW m, v 8 = 12 B/param (6 with 8-bit
states, 8 with pure bf16). ``adapter_dtype="fp32"`` is PEFT's default on a bf16 / fp16 base without
torch autocast (``get_peft_model(..., autocast_adapter_dtype=True)`` casts 16-bit adapter weights to
fp32): fp32 weight 4 + fp32 grad 4 + AdamW m, v 8 = 16 B/param.
QLoRA uses a paged optimizer, so the adapters' optimizer states are pageable as above.

Model parallelism (``tp``, ``pp``, ``cp``, ``ep``; data parallel ``dp = world / (tp pp cp)``)
---------------------------------------------------------------------------------------------
Tensor parallelism splits every matrix, the vocabulary-parallel embedding and lm_head over ``tp``;
pipeline parallelism gives each stage whole layers, so the fullest one holds ``ceil(layers / pp)`` (80
layers on PP 3: 27, 27 and 26) and every per-GPU figure (weights, gradients, optimizer state, adapters,
activations, FSDP's gathered layers) is sized on it, with the embedding or the lm_head (whichever is
larger) that the first or last stage also holds; a ``pp`` above the layer count (a stage without a layer)
is refused. Expert parallelism splits the routed experts over ``ep``. What one GPU then holds
is sharded further by the data-parallel group as ``sharding`` says: ZeRO / FSDP shard over ``dp x cp``
(Megatron's distributed optimizer and FSDP2 both include the context-parallel ranks). Under expert
parallelism the experts are not tensor-parallel (Megatron's MoE parallel folding): they are split over
``ep`` of a stage's ``tp x cp x dp`` GPUs and sharded over the remaining ``tp x cp x dp / ep``.

Activations (per micro-batch, flash attention so no seq^2 term)
--------------------------------------------------------------
Our own count for a pre-norm decoder block (RMSNorm, attention, gated MLP) of the tensors that
autograd keeps for the backward pass, in elements per token per layer, h = hidden size,
q = heads*head_dim, kv = kv_heads*head_dim, I = (active) MLP width:

- attention: norm input h, normed input h (read by q/k/v), q + k + v after RoPE (q + 2 kv) and the
  attention output q (kept by flash attention and read by o_proj) -> ``2h + 2q + 2kv``
- MLP: norm input h, normed input h, gate I, up I, SiLU(gate) I, the product I -> ``2h + 4I``
  (MoE: I = experts_per_token * expert width (+ shared experts), plus one h-sized copy of the token
  per routed expert for dispatch)
- LoRA: ``r`` per adapted matrix for the ``x @ A`` intermediates; a frozen matrix without adapter
  does not need its input kept (only its weight, for the input gradient), so attention-only LoRA
  drops the MLP input (h) and the down-projection input (I).
- fp32 adapters (``adapter_dtype="fp32"``, :func:`fp32_adapter_bytes_per_token_layer`): PEFT's LoRA
  ``Linear.forward`` casts its input to the adapter's dtype (``_cast_input_dtype(x, lora_A.weight.dtype)``)
  and autograd keeps that fp32 copy for ``lora_A``'s weight gradient: ``4 B x in_features`` per token
  and adapted matrix (q, k and v each cast their own copy of the normed input), and the ``x @ A``
  intermediates in fp32 (2 B more per rank element). Selective recompute drops the copies (element-wise
  cast outputs); full checkpointing keeps them for the recomputed layer only.

``attention="eager"`` (no flash / memory-efficient kernel: Hugging Face ``attn_implementation="eager"``,
SDPA's math path) also keeps the softmax probabilities, ``heads x seq`` elements per token and layer.

This is Korthikanti et al.'s ``34 s b h`` (GPT, 4h MLP, no dropout masks) redone for gated MLPs
and GQA: Llama-3-8B gives 84k elements = 164 KiB per token per layer. With tensor parallelism the
set is split over ``tp`` (sequence parallel for the norms), with context parallelism each GPU holds
``seq / cp`` tokens.

``checkpointing``: ``"none"`` keeps that set for every layer. ``"full"`` (per-layer checkpointing)
keeps only each layer's input (``h`` per token per layer) and, during the backward pass, rebuilds one
layer's full set, plus two h-sized gradient buffers. ``"selective"`` (torchtitan's per-op policy,
Megatron's selective recompute) keeps the matmul outputs and recomputes the cheap element-wise ones:
the two normed inputs and the MLP activation (``2h + 2I`` gated, ``2h + I`` plain) are dropped. The
logits add ``vocab * 4 B`` per token (bf16 logits and their gradient; a chunked / fused fp32 loss as
torchtune, Liger and Megatron use); ``loss="hf"``, the unchunked loss of Hugging Face models (bf16 logits,
a shifted contiguous copy, fp32 log-softmax and its gradient), ``vocab * 12 B``. With pipeline
parallelism the 1F1B schedule keeps up to ``pp`` micro-batches in flight on
the first stage (``1 + (pp - 1) / (pp v)`` times that with ``v`` interleaved stages), so its activation
memory is about that of the whole model's layers for one micro-batch.

Sharding across the data-parallel GPUs
--------------------------------------
DDP (``sharding="none"``) replicates everything. ZeRO-1 shards optimizer states (and the fp32
master), ZeRO-2 also gradients, ZeRO-3 / FSDP also parameters. ZeRO-3 / FSDP then hold a gathered
working set, sized at the backward pass of each unit (:func:`_gathered_working_set`). We assume the
wrapping of torchtune's distributed recipes (``custom_sharded_layers: [tok_embeddings, output]``) and
torchtitan (recalled): each decoder layer, the embedding and the lm_head (untied) are FSDP units of their
own. A decoder layer's backward holds two unsharded layers (the one computing and the one prefetched)
and one layer of unsharded gradients; the lm_head's backward (the first) holds the gathered lm_head, its
unsharded gradient and the prefetched last layer; the embedding's (the last) the gathered embedding and
its gradient. So the working set is ``max(2L, E + L)`` parameters and ``max(L, E)`` gradients, ``L`` a
decoder layer, ``E`` the larger end unit (embedding or lm_head, this GPU's tensor-parallel share): for
Llama-3.1-8B ``E`` (525M) is 2.4 decoder layers (218M). Wrapping only the decoder layers (Hugging Face
Accelerate's transformer-based auto-wrap) leaves the embedding and lm_head in the root unit, which FSDP
does not reshard after the forward pass: that holds more, and the assumptions say how much.
``cpu_offload`` moves optimizer states (and the master copy) to CPU RAM; with ZeRO-3/FSDP it also
moves the parameter and gradient shards (torchtune / FSDP ``CPUOffload``), leaving only the
gathered working set on the GPU (the lm_head is gathered onto the GPU for its matmul). What it moves is
counted where it goes: ``TrainingMemory.offloaded_gb`` is what one GPU's process keeps in host RAM (the
PyTorch docs of ``CPUOffload(offload_params=True)``:
"this offloads gradients to CPU as well, meaning that the optimizer step runs on CPU"; FSDP2's
``CPUOffloadPolicy`` offloads "parameters, gradients, and optimizer states"; DeepSpeed ZeRO-Offload keeps the
fp32 master weights and Adam states on the CPU, ``offload_param`` the 16-bit parameter partitions too).
Full adamw under ZeRO-3 / FSDP offload thus keeps all 16 B/param of the training state in host RAM
(DeepSpeed's estimator says 18: it keeps fp32 gradient partitions; we keep 16-bit gradients, as on the
GPU), 12 B/param (master + Adam m, v) under ZeRO-1/2 offload. Per node, the estimator multiplies it by
the node's GPUs (each rank offloads its own shard; under DDP its own full copy).

``"fsdp"`` is per-parameter sharding (FSDP2's ``fully_shard``, DeepSpeed ZeRO-3): a frozen weight
has no gradient. ``"fsdp1"`` is PyTorch's first ``FullyShardedDataParallel``, which flattens each
wrapped unit (a decoder block) into one flat parameter; with ``use_orig_params=True`` (Lightning
Fabric's default on PyTorch 2, Accelerate's FSDP1 plugin) frozen and trainable weights may share it,
and the flat parameter then gets a gradient for all of them: PyTorch's FSDP documentation warns that
gradient memory is then that of not freezing them. So LoRA on a 16-bit base under ``"fsdp1"`` keeps
a gradient for every block weight, and its backward pass computes those weight gradients too.

``no_sync_accumulation``: gradient accumulation that skips the reduce-scatter until the last
micro-batch of a step (FSDP's ``no_sync()``, Lightning's ``no_backward_sync``, Accelerate's default
unless ``sync_each_batch``): each GPU accumulates *unsharded* gradients, so under ``"fsdp"`` /
``"fsdp1"`` it holds the gradients of everything it trains (and, under ``"fsdp1"``, of the frozen
weights beside them) in full, not a shard: the FSDP ``no_sync`` docstring's "full model gradients
(instead of gradient shards)". DeepSpeed ZeRO-2/3 have no such mode (they reduce every micro-batch).

Overhead: the CUDA context (~0.5 GB) plus 10% of what is allocated and freed every step
(activations, gradients, adapters) for the caching allocator's fragmentation; weights and optimizer
states are allocated once and do not fragment.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

from gpuscout.errors import ConfigurationRejected, InvalidInputError, quoted_value
from gpuscout.estimate.arguments import int_in
from gpuscout.estimate.memory import gib
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.fused_experts import CONVERTED, SKIPPED
from gpuscout.knowledge.layout import ModelLayout, TensorGroup, model_layout
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.wording import plural

GB = 1e9
GIB = 2**30
MAX_GRAD_ACCUM = 1_000_000  # micro-batches accumulated per optimizer step: the most taken

CUDA_CONTEXT_GB = 0.5
FRAGMENTATION = 0.10
NF4_BITS = 4 + 8 / 64 + 32 / (64 * 256)  # bitsandbytes NF4, block 64, double-quantised absmax
#: The compute dtypes of a QLoRA step. bitsandbytes' ``Linear4bit`` dequantises the NF4 base to its
#: ``bnb_4bit_compute_dtype`` for every matmul: a float dtype (bf16, fp16 or fp32, the last being
#: ``BitsAndBytesConfig``'s default; transformers docs, "BitsAndBytesConfig"); it has no FP8 or INT8 GEMM,
#: so a QLoRA ``precision`` of fp8 or int8 runs as bf16 (memory and speed alike, see ``matmul_precision``).
QLORA_COMPUTE_DTYPES = ("bf16", "fp16", "fp32")

METHODS = ("lora", "qlora", "full", "pretrain")
OPTIMIZERS = ("adamw", "adamw8bit", "paged_adamw8bit", "bf16")
SHARDINGS = ("none", "zero1", "zero2", "zero3", "fsdp", "fsdp1")
#: other names for a sharding: FSDP2 is the per-parameter "fsdp", DeepSpeed's stage names are ZeRO's
SHARDING_ALIASES = {"fsdp2": "fsdp", "ddp": "none", "zero-1": "zero1", "zero-2": "zero2", "zero-3": "zero3"}
#: shardings that shard the parameters (and hold one or two unsharded layers at a time)
PARAM_SHARDINGS = ("zero3", "fsdp", "fsdp1")
LORA_TARGETS = ("attn", "all-linear")
PRECISIONS = ("bf16", "fp16", "fp32", "fp8", "int8")
CHECKPOINTING = ("none", "selective", "full")
LOSSES = ("chunked", "hf")
#: The dtype of LoRA's adapter weights. "16bit": the compute dtype (bf16 / fp16), as under torch amp
#: autocast, in torchtune, NeMo / Megatron and Automodel. "fp32": PEFT's default on a 16-bit base without
#: autocast (``get_peft_model(..., autocast_adapter_dtype=True)``, PEFT 0.12+, casts bf16 / fp16 adapter
#: weights to fp32): the adapter chain then runs on fp32 copies of its input (see the module docstring).
ADAPTER_DTYPES = ("16bit", "fp32")
FP32_BYTES = 4.0
ATTENTION = ("flash", "eager")
#: Bytes per token and vocabulary entry the loss keeps at its peak. "chunked": bf16 logits and their
#: gradient (a chunked / fused loss: torchtune, Liger, Megatron, llm-foundry). "hf": the unchunked loss of
#: Hugging Face models - bf16 logits, a shifted contiguous copy, fp32 log-softmax and its gradient.
LOSS_BYTES_PER_VOCAB = {"chunked": 4.0, "hf": 12.0}


@dataclass(frozen=True, slots=True)
class LoraTarget:
    """``count`` matrices of ``in_features x out_features`` LoRA adapts (``active_count`` of them on one
    token's path), each at ``rank_scale`` x the rank: ``rank x rank_scale x (in + out)`` adapter parameters
    apiece. ``rank_scale`` is 2 for the fused ``gate_up_proj`` of experts PEFT converts (its ``rank_pattern``
    doubles the rank of the two v4 matrices it fuses: :mod:`gpuscout.knowledge.fused_experts`)."""

    name: str
    in_features: int
    out_features: int
    count: int
    active_count: int
    rank_scale: int = 1


def _target(g: TensorGroup) -> LoraTarget:
    return LoraTarget(g.name, g.in_features, g.out_features, g.count, g.active_count)


def _converted(layout: ModelLayout, attn: tuple[LoraTarget, ...]) -> tuple[LoraTarget, ...]:
    """What "all-linear" adapts where PEFT converts it for fused experts (``CONVERTED``): the attention, the
    router weight, each routed expert's ``gate_up_proj`` (gate and up fused, twice the rank) and
    ``down_proj``; not the leading dense MLPs or shared experts (their names moved to target_parameters)."""
    experts = {g.name: g for g in layout.linear if g.part == "routed_experts"}
    out = list(attn) + [_target(g) for g in layout.linear if g.role == "router"]
    gate, up = experts.pop("expert.gate_proj", None), experts.pop("expert.up_proj", None)
    if gate is not None and up is not None:
        out.append(
            LoraTarget(
                "expert.gate_up_proj",
                gate.in_features,
                gate.out_features + up.out_features,
                gate.count,
                gate.active_count,
                rank_scale=2,
            )
        )
    elif up is not None:  # a plain (ungated) expert MLP: up_proj alone
        out.append(_target(up))
    out += [_target(g) for g in experts.values()]
    return tuple(out)


@functools.lru_cache(maxsize=256)
def lora_groups(layout: ModelLayout, targets: str) -> tuple[LoraTarget, ...]:
    """The matrices LoRA adapts: "attn" (q, k, v, o or their MLA equivalents) or "all-linear" (PEFT's:
    every nn.Linear of the body, so not the experts a model fuses into 3-D parameters, gpt-oss's, which
    PEFT reaches only through ``target_parameters``: :attr:`TensorGroup.module`), except where PEFT
    converts "all-linear" for transformers 5's fused experts (``layout.fused_experts == "converted"``:
    Mixtral, Qwen3-MoE, DeepSeek-V3; see :mod:`gpuscout.knowledge.fused_experts`).

    A pure function of its arguments, kept per layout and target set: one training estimate asks for
    them a dozen times, a fine-tune ranking thousands."""
    if targets not in LORA_TARGETS:
        raise InvalidInputError(
            "lora_targets", f"unknown target set {quoted_value(targets)}", accepted=", ".join(LORA_TARGETS)
        )
    attn = tuple(_target(g) for g in layout.linear if g.role == "attn")
    if targets == "attn":
        return attn
    if layout.fused_experts == CONVERTED:
        return _converted(layout, attn)
    return tuple(_target(g) for g in layout.linear if g.role in ("attn", "mlp") and g.module)


def _fused_experts_note(spec: ModelSpec, targets: str) -> str:
    """What "all-linear" makes of an MoE model's experts fused into parameters (transformers 5), "" where
    they are nn.Linear modules or the target set is the attention."""
    if targets != "all-linear" or not spec.is_moe:
        return ""
    if spec.fused_experts == CONVERTED:
        return (
            " (transformers 5 fuses the experts; PEFT 0.21 turns all-linear into the router and each "
            "expert's gate_up_proj at twice the rank and down_proj, no dense or shared-expert MLP)"
        )
    if spec.fused_experts == SKIPPED:
        return " (the experts are fused parameters all-linear leaves alone: target_parameters adds them)"
    return ""


def lora_io(layout: ModelLayout, targets: str) -> tuple[float, float]:
    """``sum(in_features)`` and ``sum(out_features)`` of the adapted matrices one token passes through
    (an MoE layer's active experts only)."""
    adapted = lora_groups(layout, targets)
    return (
        float(sum(g.in_features * g.active_count for g in adapted)),
        float(sum(g.out_features * g.active_count for g in adapted)),
    )


def lora_rank_rows(layout: ModelLayout, targets: str) -> float:
    """Ranks' worth of adapter rows one token passes through: ``sum(rank_scale x active_count)`` of the
    adapted matrices (times the rank: the ``x @ A`` elements a token makes)."""
    return float(sum(g.rank_scale * g.active_count for g in lora_groups(layout, targets)))


def lora_active_params(layout: ModelLayout, rank: int, targets: str) -> float:
    """Adapter parameters one token passes through (an MoE layer's active experts only)."""
    return float(
        sum(
            rank * g.rank_scale * (g.in_features + g.out_features) * g.active_count
            for g in lora_groups(layout, targets)
        )
    )


def lora_params(layout: ModelLayout, rank: int, targets: str) -> int:
    """Adapter parameters: ``rank x rank_scale x (in + out)`` for every adapted matrix (every expert
    included)."""
    return sum(
        rank * g.rank_scale * (g.in_features + g.out_features) * g.count for g in lora_groups(layout, targets)
    )


@dataclass(frozen=True, slots=True)
class TrainingSetup:
    """What is trained and how; validated by :func:`validate_setup`.

    ``checkpointing`` is ``"none"``, ``"selective"`` or ``"full"`` (``True`` means "full", ``False``
    "none"). ``tp`` / ``pp`` / ``cp`` / ``ep`` are the tensor-, pipeline-, context- and expert-parallel
    degrees, ``virtual_stages`` the interleaved pipeline chunks per GPU, ``grad_accum`` the micro-batches
    per optimizer step (what a pipeline schedule fills its stages with). ``no_sync_accumulation``: the
    micro-batches of a step accumulate gradients without reducing them (see the module docstring).
    ``adapter_dtype`` (LoRA / QLoRA only): "16bit" adapters in the compute dtype, or "fp32", PEFT's
    default fp32 adapters on a bf16 / fp16 base without autocast (``ADAPTER_DTYPES``).
    """

    method: str = "lora"
    seq_len: int = 2048
    micro_batch: int = 1
    lora_rank: int = 16
    lora_targets: str = "all-linear"
    optimizer: str = "adamw"
    sharding: str = "none"
    cpu_offload: bool = False
    checkpointing: bool | str = True
    precision: str = "bf16"
    world: int = 1  # total GPUs (gpus per node x nodes)
    optimizer_in_backward: bool = False  # torchtune / fused optimizer: gradients freed as they are made
    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    virtual_stages: int = 1
    grad_accum: int = 1
    loss: str = "chunked"
    attention: str = "flash"  # "eager": the attention probabilities are materialised (heads x seq^2)
    no_sync_accumulation: bool = False  # FSDP no_sync(): gradients accumulate unsharded until the step
    adapter_dtype: str = "16bit"  # ADAPTER_DTYPES: "fp32" is PEFT's default fp32 adapters on a 16-bit base

    @property
    def recompute(self) -> str:
        """The checkpointing mode as a string ("none", "selective", "full")."""
        if isinstance(self.checkpointing, bool):
            return "full" if self.checkpointing else "none"
        return self.checkpointing

    @property
    def dp(self) -> int:
        """Data-parallel degree: the GPUs that hold one model replica are ``tp x pp x cp``."""
        return max(1, self.world // (self.tp * self.pp * self.cp))

    @property
    def adapters(self) -> bool:
        return self.method in ("lora", "qlora")

    @property
    def fp32_adapters(self) -> bool:
        """LoRA / QLoRA adapters kept in fp32 on a 16-bit (or FP8 / int8) compute path: PEFT's default
        (``adapter_dtype="fp32"``). Under ``precision="fp32"`` the adapters are fp32 anyway: no change."""
        return self.adapters and self.adapter_dtype == "fp32" and self.precision != "fp32"

    @property
    def unsharded_grads(self) -> bool:
        """Gradients accumulate unsharded over the micro-batches of a step (FSDP ``no_sync``)."""
        return self.no_sync_accumulation and self.grad_accum > 1 and self.sharding in ("fsdp", "fsdp1")

    @property
    def frozen_grads(self) -> bool:
        """The frozen base's block weights get gradients: LoRA on a 16-bit or fp32 base under FSDP1's flat
        parameters (a quantised base's matmul returns no weight gradient: not counted, said instead)."""
        return (
            self.sharding == "fsdp1" and self.method == "lora" and self.precision in ("bf16", "fp16", "fp32")
        )


def _key(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


def _choice(field_name: str, value: str, allowed: tuple[str, ...]) -> str:
    key = _key(value)
    if key not in allowed:
        raise InvalidInputError(
            field_name, f"unknown value {quoted_value(value)}", accepted=", ".join(allowed)
        )
    return str(key)


def _checkpointing(value: bool | str) -> str:
    if isinstance(value, bool):
        return "full" if value else "none"
    if isinstance(value, str):
        return _choice("checkpointing", value, CHECKPOINTING)
    raise InvalidInputError(
        "checkpointing",
        f"must be true/false or a mode, got {quoted_value(value)}",
        accepted="true, false, " + ", ".join(CHECKPOINTING),
    )


def validate_setup(setup: TrainingSetup) -> TrainingSetup:
    """Return a normalised copy of ``setup`` or raise InvalidInputError naming the field."""
    method = _choice("method", setup.method, METHODS)
    optimizer = _choice("optimizer", setup.optimizer, OPTIMIZERS)
    sharding = _choice("sharding", SHARDING_ALIASES.get(str(_key(setup.sharding)), setup.sharding), SHARDINGS)
    targets = _choice("lora_targets", setup.lora_targets, LORA_TARGETS)
    precision = _choice("precision", setup.precision, PRECISIONS)
    checkpointing = _checkpointing(setup.checkpointing)
    loss = _choice("loss", setup.loss, LOSSES)
    attention = _choice("attention", setup.attention, ATTENTION)
    adapter_dtype = _choice("adapter_dtype", setup.adapter_dtype, ADAPTER_DTYPES)
    # the counts as ints from here on (2.0 -> 2): the setup returned carries them, not what was given
    seq_len = int_in("seq_len", setup.seq_len, 1, 10_000_000)
    micro_batch = int_in("micro_batch", setup.micro_batch, 1, 1_000_000)
    lora_rank = int_in("lora_rank", setup.lora_rank, 1, 65_536)
    world = int_in("gpus", setup.world, 1, 1_000_000, error=ConfigurationRejected)
    tp, pp, cp, ep, virtual_stages = (
        int_in(name, getattr(setup, name), 1, 4096) for name in ("tp", "pp", "cp", "ep", "virtual_stages")
    )
    grad_accum = int_in("grad_accum", setup.grad_accum, 1, MAX_GRAD_ACCUM)
    if not isinstance(setup.no_sync_accumulation, bool):
        raise InvalidInputError(
            "no_sync_accumulation", f"must be true or false, got {setup.no_sync_accumulation!r}"
        )
    if setup.no_sync_accumulation and sharding in ("zero2", "zero3"):
        raise InvalidInputError(
            "no_sync_accumulation",
            f"DeepSpeed {sharding.upper()} reduces gradients every micro-batch and has no no_sync mode",
            accepted="sharding none, zero1, fsdp or fsdp1",
        )
    if precision == "int8" and method in ("full", "pretrain"):
        raise InvalidInputError(
            "precision",
            "int8 weights cannot be trained: full fine-tuning and pre-training update every weight",
            accepted="bf16, fp16, fp32, fp8 (int8 only as a LoRA base)",
        )
    return TrainingSetup(
        method,
        seq_len,
        micro_batch,
        lora_rank,
        targets,
        optimizer,
        sharding,
        bool(setup.cpu_offload),
        checkpointing,
        precision,
        world,
        bool(setup.optimizer_in_backward),
        tp,
        pp,
        cp,
        ep,
        virtual_stages,
        grad_accum,
        loss,
        attention,
        setup.no_sync_accumulation,
        adapter_dtype,
    )


@dataclass(frozen=True, slots=True)
class TrainingMemory:
    """A per-GPU breakdown plus what the fits verdict needs to know."""

    breakdown: MemoryBreakdown
    fits: bool
    binding_constraint: str  # "fits" or the component that does not fit
    trainable_params: int
    total_params: int
    pageable_gb: float  # optimizer state that may page to CPU RAM (bitsandbytes paged optimizers)
    spilled_gb: float  # of which does not fit on the GPU and lives in CPU RAM
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    offloaded_gb: float = 0.0  # what ``cpu_offload`` keeps in host RAM for this GPU (module docstring)


def _mlp_width(spec: ModelSpec) -> int:
    """The MLP width one token passes through (MoE: the selected and shared experts together)."""
    if spec.is_moe:
        return spec.moe_intermediate_size * (spec.experts_per_token + spec.shared_experts)
    return spec.intermediate_size


def activation_elements_per_token_layer(spec: ModelSpec, setup: TrainingSetup) -> float:
    """Elements autograd keeps per token per layer without checkpointing (see module docstring).

    With ``setup.recompute == "selective"`` the cheap element-wise outputs are left out.
    """
    h = spec.hidden_size
    hd = spec.head_dim or h // max(spec.num_attention_heads, 1)
    heads = spec.num_attention_heads
    kv_heads = spec.num_key_value_heads or heads
    if spec.is_mla:
        qk = spec.qk_nope_head_dim + spec.qk_rope_head_dim
        q_dim, k_dim, v_dim = heads * qk, heads * qk, heads * spec.v_head_dim
        attn = 2 * h + q_dim + k_dim + v_dim + v_dim + spec.kv_lora_rank + spec.q_lora_rank
    else:
        q_dim, kv_dim = heads * hd, kv_heads * hd
        attn = 2 * h + 2 * q_dim + 2 * kv_dim
    inter = _mlp_width(spec)
    if spec.is_moe:
        mlp = 2 * h + 4 * inter + spec.experts_per_token * h
    else:
        # gated: gate, up, act(gate), product; plain (GELU) MLP: up output and activation output
        mlp = 2 * h + (2 if spec.mlp_type == "plain" else 4) * inter
    elements = float(attn + mlp)
    if setup.attention == "eager":
        elements += heads * setup.seq_len  # bf16 softmax probabilities, kept for the backward
    if setup.recompute == "selective":
        elements -= 2 * h + (inter if spec.mlp_type == "plain" else 2 * inter)
    if setup.adapters:
        layout = model_layout(spec)
        per_layer_adapted = lora_rank_rows(layout, setup.lora_targets) / spec.num_hidden_layers
        elements += setup.lora_rank * per_layer_adapted
        if setup.lora_targets == "attn":
            elements -= h + inter  # frozen MLP without adapters: its inputs need not be kept
    return elements


def matmul_precision(setup: TrainingSetup) -> str:
    """The precision a training step computes in: ``setup.precision``, except under QLoRA, whose base is
    dequantised to a float compute dtype (``QLORA_COMPUTE_DTYPES``): fp8 and int8 compute as bf16 there."""
    if setup.method == "qlora" and setup.precision not in QLORA_COMPUTE_DTYPES:
        return "bf16"
    return setup.precision


def _bytes_per_element(precision: str) -> float:
    return 4.0 if precision == "fp32" else 2.0


def pipeline_inflight(setup: TrainingSetup) -> float:
    """Micro-batches whose activations the first pipeline stage holds at once (1F1B), in stage units."""
    if setup.pp <= 1:
        return 1.0
    inflight = float(min(setup.pp, setup.grad_accum))
    if setup.virtual_stages > 1:
        inflight *= 1.0 + (setup.pp - 1) / (setup.pp * setup.virtual_stages)
    return inflight


def fp32_adapter_bytes_per_token_layer(spec: ModelSpec, setup: TrainingSetup) -> float:
    """Bytes per token and layer that fp32 adapters (``setup.fp32_adapters``) keep beyond the 16-bit set.

    PEFT casts each adapted matrix's input to fp32 and autograd keeps that copy for ``lora_A``'s weight
    gradient: ``4 B x in_features`` per adapted matrix (q, k and v each their own), unless selective
    recompute drops it (an element-wise cast output); the ``x @ A`` intermediates are fp32 too, 2 B more
    per rank element than the 16-bit set counts them."""
    if not setup.fp32_adapters:
        return 0.0
    layout = model_layout(spec)
    layers = max(spec.num_hidden_layers, 1)
    inputs = lora_io(layout, setup.lora_targets)[0] / layers
    rows = lora_rank_rows(layout, setup.lora_targets) / layers
    extra = (FP32_BYTES - 2.0) * setup.lora_rank * rows
    if setup.recompute != "selective":
        extra += FP32_BYTES * inputs
    return extra


def pipeline_stage_layers(spec: ModelSpec, setup: TrainingSetup) -> int:
    """Decoder layers on the fullest pipeline stage: a stage holds whole layers, so ``ceil(layers / pp)``
    (80 layers on PP 3 are split 27, 27, 26; 32 on PP 5 7, 7, 6, 6, 6). A ``pp`` above the layer count
    would leave a stage without a layer: refused (ConfigurationRejected naming ``pp``)."""
    layers = spec.num_hidden_layers
    if setup.pp > max(layers, 1):
        raise ConfigurationRejected(
            "pp",
            f"pipeline parallel {setup.pp} leaves a stage without a layer: {spec.name} has "
            f"{layers} {plural(layers, 'layer')}",
            accepted=f"1..{max(layers, 1)}",
        )
    return -(-layers // setup.pp)


def _stage_share(spec: ModelSpec, setup: TrainingSetup) -> float:
    """The fraction of the decoder layers on the fullest pipeline stage (1.0 without pipelining)."""
    stage = pipeline_stage_layers(spec, setup)
    return 1.0 if setup.pp == 1 else stage / spec.num_hidden_layers


def activation_bytes(spec: ModelSpec, setup: TrainingSetup) -> float:
    """Peak activation memory on one GPU (bytes), logits included (see the module docstring)."""
    tokens = setup.micro_batch * setup.seq_len / setup.cp  # tokens of one micro-batch on this GPU
    b = _bytes_per_element(setup.precision)
    per_token_layer = activation_elements_per_token_layer(spec, setup) * b
    per_token_layer += fp32_adapter_bytes_per_token_layer(spec, setup)
    layer_set = per_token_layer * tokens / setup.tp
    kept_layers = pipeline_stage_layers(spec, setup) * pipeline_inflight(setup)  # the fullest stage
    h_bytes = tokens * spec.hidden_size * b / setup.tp
    if setup.recompute == "full":
        body = h_bytes * kept_layers + layer_set + 2 * h_bytes
    else:
        body = layer_set * kept_layers
    logits = tokens * spec.vocab_size * LOSS_BYTES_PER_VOCAB[setup.loss] / setup.tp
    return body + logits


@dataclass(frozen=True, slots=True)
class _Holding:
    """Parameters one GPU holds before data-parallel sharding, split by how they shard."""

    dense: float  # non-expert parameters (incl. this GPU's embedding / lm_head share)
    experts: float  # routed-expert parameters
    ends: float  # of ``dense``: this GPU's embedding / lm_head share
    dense_linear: float  # of ``dense``: matmul weights of the body (quantised in LoRA / QLoRA)
    experts_linear: float
    layer: float  # one decoder layer's share (what ZeRO-3 gathers at a time)

    @property
    def total(self) -> float:
        return self.dense + self.experts


def expert_tp(setup: TrainingSetup) -> int:
    """Tensor-parallel degree of the routed experts: 1 under expert parallelism (Megatron's MoE
    parallel folding default, Automodel, torchtitan), else the model's ``tp``."""
    return 1 if setup.ep > 1 else setup.tp


def _holding(layout: ModelLayout, spec: ModelSpec, setup: TrainingSetup) -> _Holding:
    tp, pp = setup.tp, setup.pp
    ep = setup.ep * expert_tp(setup)  # the routed experts are split over EP x expert-TP GPUs
    experts = sum(g.params for g in layout.groups if g.part == "routed_experts")
    experts_linear = sum(g.params for g in layout.linear if g.part == "routed_experts")
    wide = layout.embedding + layout.lm_head
    body = layout.total - wide - experts
    body_linear = layout.linear_params - experts_linear
    ends = wide if pp == 1 else max(layout.embedding, layout.lm_head)  # first / last stage holds its end
    share = _stage_share(spec, setup)  # the fullest stage's whole layers (1.0 without pipelining)
    dense = body * share / tp + ends / tp
    layer = (body / tp + experts / ep) / max(spec.num_hidden_layers, 1)
    return _Holding(
        dense, experts * share / ep, ends / tp, body_linear * share / tp, experts_linear * share / ep, layer
    )


@dataclass(frozen=True, slots=True)
class HeldParams:
    """Parameters one GPU holds before data-parallel sharding, and the GPUs each part is sharded over."""

    dense: float  # non-expert parameters (incl. this GPU's embedding / lm_head share)
    experts: float  # routed-expert parameters
    dense_world: int  # data x context parallel GPUs sharding / all-reducing the non-expert part
    expert_world: int  # expert data-parallel GPUs for the routed experts


def held_params(spec: ModelSpec, setup: TrainingSetup) -> HeldParams:
    """What one GPU of ``setup`` holds (see the module docstring on model parallelism)."""
    hold = _holding(model_layout(spec), spec, setup)
    dense_world, expert_world = _dp_worlds(setup)
    return HeldParams(hold.dense, hold.experts, dense_world, expert_world)


#: what "fsdp" and "fsdp1" stand for, said beside the sharding (they hold different gradients under LoRA)
_SHARDING_KIND = {
    "fsdp": " (per-parameter sharding: FSDP2, or FSDP1 with the adapters wrapped apart: frozen weights "
    "get no gradient)",
    "fsdp1": " (FSDP1 flat parameters per block, frozen and trainable weights together)",
}


def _dp_worlds(setup: TrainingSetup) -> tuple[int, int]:
    """GPUs the non-expert and the expert parameters are sharded over by ZeRO / FSDP.

    Non-expert: the data x context parallel GPUs. Experts: the rest of a stage's ``tp x cp x dp`` GPUs
    once expert parallelism and expert tensor parallelism have taken theirs.
    """
    dense = setup.dp * setup.cp
    return dense, max(1, setup.tp * dense // (setup.ep * expert_tp(setup)))


@dataclass(frozen=True, slots=True)
class _Sharding:
    """How ``setup`` spreads what one GPU holds over the data-parallel GPUs."""

    dense_world: int  # GPUs the non-expert parameters are sharded over
    expert_world: int  # GPUs the routed experts are sharded over
    params: bool  # ZeRO-3 / FSDP: the parameters themselves
    grads: bool  # gradients sharded (not under no_sync accumulation)
    optimizer: bool  # optimizer states sharded (every ZeRO stage, FSDP)

    @classmethod
    def of(cls, setup: TrainingSetup) -> _Sharding:
        dense, experts = _dp_worlds(setup)
        return cls(
            dense,
            experts,
            setup.sharding in PARAM_SHARDINGS,
            setup.sharding in ("zero2", *PARAM_SHARDINGS) and not setup.unsharded_grads,
            setup.sharding != "none",
        )

    def split(self, dense: float, experts: float) -> float:
        """One GPU's shard of ``dense`` non-expert and ``experts`` expert bytes (or parameters)."""
        return dense / self.dense_world + experts / self.expert_world


@dataclass(frozen=True, slots=True)
class _States:
    """Bytes one GPU holds for the parameters and what training them adds (activations apart)."""

    weights: float
    grads: float
    optimizer: float
    adapters: float
    pageable: float  # optimizer state a paged optimizer may move to CPU RAM
    trainable: float  # parameters trained (whole model)
    total: float  # parameters, adapters included (whole model)
    offloaded: float = 0.0  # what ``cpu_offload`` moved to host RAM (this GPU's share)
    root_wrap_extra: float = 0.0  # bytes more with the embedding / lm_head in FSDP's root unit


_STATE_BYTES = {"adamw": 8.0, "adamw8bit": 2.0, "paged_adamw8bit": 2.0, "bf16": 4.0}  # AdamW m + v


def _sharding_notes(spec: ModelSpec, setup: TrainingSetup, hold: _Holding, sh: _Sharding) -> dict[str, str]:
    notes: dict[str, str] = {}
    if setup.world == 1 and setup.sharding != "none":
        notes["sharding"] = f"{setup.sharding} on 1 GPU shards nothing"
    elif setup.dp * setup.cp > 1 and setup.sharding == "none":
        notes["sharding"] = f"DDP: each of the {setup.dp} data-parallel ranks holds a full replica"
    else:
        notes["sharding"] = (
            f"{setup.sharding} across {sh.dense_world} data-parallel {plural(sh.dense_world, 'GPU')}"
            + _SHARDING_KIND.get(setup.sharding, "")
        )
    if setup.tp * setup.pp * setup.cp * setup.ep > 1:
        fullest = pipeline_stage_layers(spec, setup)
        stage = (
            f"{fullest} {plural(fullest, 'layer')} on the fullest stage of {setup.pp} "
            f"({spec.num_hidden_layers} in all) and the larger of the embedding and the lm_head, "
            if setup.pp > 1
            else ""
        )
        notes["model_parallel"] = (
            f"TP {setup.tp} x PP {setup.pp} x CP {setup.cp} x EP {setup.ep}: "
            f"{stage}{hold.total / 1e9:.2f}B parameters held per GPU before sharding"
        )
    return notes


def _end_unit(layout: ModelLayout, setup: TrainingSetup) -> float:
    """Parameters of the larger end unit one GPU gathers under ZeRO-3 / FSDP: the embedding or the untied
    lm_head (its tensor-parallel share; a pipeline stage holds at most the larger of the two)."""
    return max(layout.embedding, layout.lm_head) / setup.tp


def _gathered_working_set(layer: float, end: float) -> tuple[float, float]:
    """What ZeRO-3 / FSDP hold unsharded at the peak of the backward pass, as ``(parameters, gradients)``
    in units of ``layer`` (one decoder layer) and ``end`` (the larger end unit): ``max(2L, E + L)`` and
    ``max(L, E)``, each decoder layer, the embedding and the lm_head being FSDP units of their own (see the
    module docstring). Both maxima fall on the same moment (a layer's backward or the lm_head's)."""
    return max(2 * layer, end + layer), max(layer, end)


def _root_wrap_extra(
    layout: ModelLayout, setup: TrainingSetup, peak_now: float, layer_w: float, grad_b: float | None
) -> float:
    """The extra bytes if the embedding and lm_head sat in FSDP's root unit (decoder layers wrapped only:
    Hugging Face Accelerate's transformer-based auto-wrap). FSDP1 and FSDP2 do not reshard the root after
    the forward pass, so both stay gathered through the backward pass, beside two decoder layers (bytes
    ``layer_w`` each, as stored) and, when trained (``grad_b`` bytes per weight), the lm_head's gradient
    (the root's gradients are reduce-scattered only when the embedding's, the last, is done) and one layer's.
    ``peak_now`` is the separately wrapped peak, the same terms. Counted for one pipeline stage only."""
    if setup.pp > 1:
        return 0.0
    other_b = 4.0 if setup.precision == "fp32" else 2.0
    ends = (layout.embedding + layout.lm_head) / setup.tp
    root = ends * other_b + 2 * layer_w
    if grad_b is not None:
        head = (layout.lm_head or layout.embedding) / setup.tp
        root += (head + layer_w / other_b) * grad_b
    extra = root - peak_now
    return extra if extra >= 0.05 * GB else 0.0


def _root_wrap_note(extra: float) -> str:
    return (
        "the embedding and the lm_head are FSDP units of their own (torchtune's custom_sharded_layers, "
        "torchtitan): wrapping only the decoder layers (Hugging Face Accelerate's transformer-based "
        "auto-wrap) keeps them gathered in the root unit through the backward pass, "
        f"{gib(extra / GB):.1f} GiB more per GPU"
    )


def _full_states(
    layout: ModelLayout, hold: _Holding, setup: TrainingSetup, sh: _Sharding, notes: dict[str, str]
) -> _States:
    """Full fine-tuning / pre-training: every parameter has a gradient and optimizer state."""
    fp32 = setup.precision == "fp32"
    w_b = 4.0 if fp32 else 2.0
    g_b = 4.0 if fp32 else 2.0
    master = 0.0 if fp32 else 4.0
    states = _STATE_BYTES[setup.optimizer]
    if setup.optimizer in ("paged_adamw8bit", "bf16"):
        master = 0.0
        if fp32 and setup.optimizer == "bf16":
            states = 8.0
    opt_b = master + states
    notes["bytes_per_param"] = (
        f"weights {w_b:g} + grads {g_b:g} + optimizer {opt_b:g} = {w_b + g_b + opt_b:g} B/param "
        f"({setup.optimizer}{'; fp32 master copy' if master else '; no master copy'})"
    )
    if setup.optimizer == "adamw" and not fp32:
        notes["grads"] = "bf16 gradients (fp32 gradient accumulation would add 2 B/param: 18)"
    held = hold.total
    shard = sh.split(hold.dense, hold.experts)
    weights = held * w_b
    grads = held * g_b
    optimizer = held * opt_b
    pageable = held * states if setup.optimizer == "paged_adamw8bit" else 0.0
    gathered, unsharded_grads = _gathered_working_set(hold.layer, _end_unit(layout, setup))
    root_extra = 0.0
    if sh.params:
        weights = shard * w_b + gathered * w_b
        root_extra = _root_wrap_extra(
            layout, setup, gathered * w_b + unsharded_grads * g_b, hold.layer * w_b, g_b if sh.grads else None
        )
    if sh.params and sh.grads:
        grads = shard * g_b + unsharded_grads * g_b
    elif sh.grads:
        grads = shard * g_b
    if setup.optimizer_in_backward:
        # the optimizer steps each parameter as soon as its gradient is ready, then frees it
        grads = max(layout.embedding, layout.largest_matrix) * g_b / setup.tp
        notes["grads"] = "optimizer step fused into the backward pass: one gradient at a time"
    if sh.optimizer:
        optimizer = shard * opt_b
        pageable = shard * states if pageable else 0.0
    offloaded = 0.0
    if setup.cpu_offload:
        offloaded = optimizer  # master weights and optimizer states, as this GPU would hold them
        optimizer = 0.0
        pageable = 0.0
        if sh.params:
            # the parameter shard (and the gradient shard, unless gradients accumulate unsharded on the GPU)
            offloaded += shard * w_b + (shard * g_b if sh.grads else 0.0)
            weights = gathered * w_b  # the lm_head too is gathered onto the GPU for its matmul
            grads = unsharded_grads * g_b if sh.grads else grads
            notes["cpu_offload"] = "parameters, gradients and optimizer states in CPU RAM"
        else:
            notes["cpu_offload"] = "optimizer states and master weights in CPU RAM"
    return _States(
        weights, grads, optimizer, 0.0, pageable, layout.total, float(layout.total), offloaded, root_extra
    )


def _frozen_base_grads(
    setup: TrainingSetup, hold: _Holding, sh: _Sharding, grad_b: float, notes: dict[str, str]
) -> float:
    """Gradient bytes (``grad_b`` per weight, the base's 16- or 32-bit dtype) of a LoRA base that FSDP1's
    flat parameters give one (see ``frozen_grads``)."""
    if setup.frozen_grads:
        # each block's flat parameter also carries its frozen weights' gradient
        body = hold.dense - hold.ends
        notes["grads"] = (
            f"FSDP1 flat parameters: the frozen {setup.precision} block weights share each block's "
            "flat parameter with the adapters and get gradients too"
            + (" (accumulated unsharded)" if setup.unsharded_grads else " (sharded)")
        )
        if setup.unsharded_grads:
            return (body + hold.experts) * grad_b
        return (sh.split(body, hold.experts) + hold.layer) * grad_b
    if setup.sharding == "fsdp1":
        notes["grads"] = (
            f"FSDP1 with a quantised ({'NF4' if setup.method == 'qlora' else setup.precision.upper()}) "
            "base: its matmul returns no weight gradient; "
            "a flat parameter mixing it with the adapters may still hold a zero-filled gradient of "
            "its stored size (not counted: wrap the adapters apart, as FSDP QLoRA setups do)"
        )
    return 0.0


def _adapter_states(
    spec: ModelSpec,
    layout: ModelLayout,
    hold: _Holding,
    setup: TrainingSetup,
    sh: _Sharding,
    notes: dict[str, str],
    warnings: list[str],
) -> _States:
    """LoRA / QLoRA: a frozen base as stored, adapters with their gradients and optimizer states."""
    trainable = lora_params(layout, setup.lora_rank, setup.lora_targets)
    # embeddings, norms and the adapters are kept in the compute dtype (fp8 / int8 bases: bf16)
    rest = setup.precision if setup.precision in ("fp16", "fp32") else "bf16"
    if setup.method == "qlora":
        linear_b = NF4_BITS / 8
        base_desc = f"NF4 double-quant linear layers ({NF4_BITS:.3f} bits), {rest} embeddings/norms"
        if setup.precision not in QLORA_COMPUTE_DTYPES:
            warnings.append(
                f"QLoRA stores the base in NF4 and bitsandbytes dequantises it to a 16- or 32-bit compute "
                f"dtype for every matmul (it has no {setup.precision.upper()} GEMM): precision "
                f"{setup.precision!r} is computed as bf16 (at the 16-bit tensor rate; bf16 adapters and "
                "activations)"
            )
    else:
        linear_b = {"bf16": 2.0, "fp16": 2.0, "fp32": 4.0, "fp8": 1.0, "int8": 1.0}[setup.precision]
        base_desc = f"{setup.precision} linear layers, {rest} embeddings/norms"
    other_b = 4.0 if setup.precision == "fp32" else 2.0
    dense_bytes = hold.dense_linear * linear_b + (hold.dense - hold.dense_linear) * other_b
    expert_bytes = hold.experts_linear * linear_b + (hold.experts - hold.experts_linear) * other_b
    weights = dense_bytes + expert_bytes
    # gathered (unsharded) layers keep the storage format: FSDP all-gathers NF4/fp8 shards as is
    body_bytes = weights - hold.ends * other_b
    layer_bytes = body_bytes / max(pipeline_stage_layers(spec, setup), 1)  # one of the stage's layers
    # two layers, or the frozen lm_head / embedding (16-bit) beside the prefetched layer: no gradients
    gathered = max(2 * layer_bytes, _end_unit(layout, setup) * other_b + layer_bytes)
    offloaded = 0.0
    root_extra = 0.0
    if sh.params:
        weights = sh.split(dense_bytes, expert_bytes) + gathered
        root_extra = _root_wrap_extra(layout, setup, gathered, layer_bytes, None)
    if sh.params and setup.cpu_offload:
        offloaded = weights - gathered  # the frozen base's shard, as stored
        weights = gathered
    grads = _frozen_base_grads(setup, hold, sh, other_b, notes)
    a_b = FP32_BYTES if setup.precision == "fp32" or setup.fp32_adapters else 2.0
    a_s = _STATE_BYTES[setup.optimizer]
    held_adapters = trainable * _stage_share(spec, setup) / setup.tp  # the fullest stage's layers
    adapter_w = held_adapters * a_b / (sh.dense_world if sh.params else 1)
    adapter_g = held_adapters * a_b / (sh.dense_world if sh.grads else 1)
    optimizer = held_adapters * a_s / (sh.dense_world if sh.optimizer else 1)
    if setup.cpu_offload:
        offloaded += optimizer  # the adapters' optimizer states
        optimizer = 0.0
    pageable = 0.0
    if setup.method == "qlora" or setup.optimizer == "paged_adamw8bit":
        pageable = optimizer
        notes["optimizer"] = "paged optimizer: adapter states may page to CPU RAM"
    notes["adapters"] = (
        f"rank {setup.lora_rank} on {setup.lora_targets}{_fused_experts_note(spec, setup.lora_targets)}: "
        f"{trainable / 1e6:.1f}M params, "
        f"{2 * a_b + a_s:g} B/param (weights {a_b:g} + grads {a_b:g} + optimizer {a_s:g}"
        + (
            "; fp32 adapters on a 16-bit base: PEFT's default autocast_adapter_dtype, without torch autocast"
            if setup.fp32_adapters
            else "; PEFT's fp32 adapter autocast would add 4"
        )
        + ")"
    )
    if setup.fp32_adapters:
        notes["adapter_dtype"] = (
            "fp32 adapters (PEFT's default on a 16-bit base without autocast): each adapted matrix casts "
            "its input to fp32, and autograd keeps that copy (4 B per input element and token)"
            + (
                " for the recomputed layer only"
                if setup.recompute == "full"
                else "; selective recompute drops the copies"
                if setup.recompute == "selective"
                else " for every layer"
            )
        )
    notes["base"] = base_desc
    return _States(
        weights,
        grads,
        optimizer,
        adapter_w + adapter_g,
        pageable,
        trainable,
        float(layout.total + trainable),
        offloaded,
        root_extra,
    )


def _activation_note(setup: TrainingSetup) -> str:
    mode = {
        "full": "full activation checkpointing (layer inputs kept, one layer recomputed)",
        "selective": "selective recompute (matmul outputs kept, element-wise outputs recomputed)",
        "none": "no checkpointing (every layer's activations kept)",
    }[setup.recompute]
    return (
        f"micro-batch {setup.micro_batch} x {setup.seq_len} tokens, "
        + mode
        + ("; flash attention; " if setup.attention == "flash" else "; eager attention (scores kept); ")
        + (
            "logits bf16 + grad with a chunked loss"
            if setup.loss == "chunked"
            else "unchunked Hugging Face loss (fp32 log-softmax of the whole logits)"
        )
        + (
            f"; {pipeline_inflight(setup):.2f} micro-batches in flight per pipeline stage"
            if setup.pp > 1
            else ""
        )
    )


def _grad_sync_note(spec: ModelSpec, setup: TrainingSetup, capacity_gb: float, st: _States) -> str | None:
    """What accumulating gradients does: held unsharded (no_sync), or how much more no_sync would hold."""
    if setup.unsharded_grads:
        return (
            f"gradients accumulated unsharded over the {setup.grad_accum} micro-batches of a step "
            "(FSDP no_sync), reduce-scattered on the last"
        )
    if setup.sharding not in ("fsdp", "fsdp1") or setup.grad_accum <= 1:
        return None
    unsynced = training_memory(spec, replace(setup, no_sync_accumulation=True), capacity_gb).breakdown
    extra = unsynced.gradients_gb + unsynced.adapters_gb - (st.grads + st.adapters) / GB
    if extra < 0.05:
        return None
    return (
        "gradients reduce-scattered every micro-batch (torchtitan, torchtune; Accelerate with "
        f"sync_each_batch): accumulating without sync (FSDP no_sync) would hold {gib(extra):.1f} GiB "
        "more per GPU"
    )


def training_memory(
    spec: ModelSpec, setup: TrainingSetup, capacity_gb: float, *, validated: bool = False
) -> TrainingMemory:
    """Per-GPU memory breakdown of ``setup`` on a GPU of ``capacity_gb`` (GB, 1e9 bytes). ``validated``:
    ``setup`` is what :func:`validate_setup` returned (``estimate_training``'s), so it is not checked
    again."""
    if not validated:
        setup = validate_setup(setup)
    if not capacity_gb > 0:
        raise ConfigurationRejected("gpu", f"memory capacity must be positive, got {capacity_gb}")
    pipeline_stage_layers(spec, setup)  # refuses a pp that leaves a stage without a layer
    layout = model_layout(spec)
    hold = _holding(layout, spec, setup)
    sh = _Sharding.of(setup)
    warnings: list[str] = []
    assumptions = _sharding_notes(spec, setup, hold, sh)
    if setup.adapters:
        st = _adapter_states(spec, layout, hold, setup, sh, assumptions, warnings)
    else:
        st = _full_states(layout, hold, setup, sh, assumptions)

    acts = activation_bytes(spec, setup)
    if setup.method == "qlora":
        acts += layout.largest_matrix * 2.0 / setup.tp  # one matrix dequantised to bf16 at a time
    assumptions["activations"] = _activation_note(setup)
    sync = _grad_sync_note(spec, setup, capacity_gb, st)
    if sync:
        assumptions["grad_sync"] = sync

    allocated = st.weights + st.grads + st.optimizer + st.adapters + acts
    fixed = allocated - st.pageable  # what the caching allocator holds (paged state is managed memory)
    overhead = CUDA_CONTEXT_GB * GB + FRAGMENTATION * (acts + st.grads + st.adapters)
    assumptions["overhead"] = (
        f"CUDA context {gib(CUDA_CONTEXT_GB):.2f} GiB + {FRAGMENTATION:.0%} allocator "
        "fragmentation on what is allocated and freed every step (activations, "
        "gradients, adapters)"
    )
    capacity = capacity_gb * GB
    # Paged optimizer state only takes the room left; the rest lives in CPU RAM (slower steps).
    room = max(0.0, capacity - fixed - overhead)
    spilled = max(0.0, st.pageable - room)
    optimizer = st.optimizer - spilled
    if spilled > 0:
        warnings.append(
            f"{gib(spilled / GB):.1f} GiB of paged optimizer state does not fit and pages to CPU RAM "
            "(optimizer steps slow down)"
        )
    breakdown = MemoryBreakdown(
        weights_gb=st.weights / GB,
        kv_cache_gb=0.0,
        activations_gb=acts / GB,
        overhead_gb=overhead / GB,
        optimizer_gb=optimizer / GB,
        gradients_gb=st.grads / GB,
        adapters_gb=st.adapters / GB,
        usable_gb=capacity_gb,
        capacity_gb=capacity_gb,
    )
    needed = (fixed + overhead) / GB  # paged state never causes an out-of-memory error
    fits = needed <= capacity_gb
    if st.root_wrap_extra:
        assumptions["fsdp_units"] = _root_wrap_note(st.root_wrap_extra)
        if fits and needed + st.root_wrap_extra / GB > capacity_gb:
            warnings.append(
                f"fits with the embedding and lm_head wrapped as FSDP units of their own; with the decoder "
                f"layers wrapped only (Accelerate's transformer-based auto-wrap) it needs "
                f"{gib(needed + st.root_wrap_extra / GB):.1f} GiB per GPU, over the "
                f"{gib(capacity_gb):.1f} GiB usable"
            )
    binding = "fits" if fits else _binding(breakdown)
    if not fits:
        warnings.append(
            f"needs {gib(breakdown.total_gb):.1f} GiB per GPU, the GPU has {gib(capacity_gb):.1f} GiB "
            f"(largest share: {binding})"
        )
    return TrainingMemory(
        breakdown,
        fits,
        binding,
        int(st.trainable),
        int(st.total),
        st.pageable / GB,
        spilled / GB,
        assumptions,
        warnings,
        offloaded_gb=st.offloaded / GB,
    )


def _binding(m: MemoryBreakdown) -> str:
    """What does not fit: the weights if they alone overflow, else the largest training component."""
    if m.weights_gb + m.overhead_gb > m.capacity_gb:
        return "weights"
    parts = {
        "gradients": m.gradients_gb,
        "optimizer": m.optimizer_gb,
        "adapters": m.adapters_gb,
        "activations": m.activations_gb,
    }
    return max(parts, key=lambda k: parts[k])
