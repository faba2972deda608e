"""Per-GPU memory of training and fine-tuning: weights, gradients, optimizer, adapters, activations.

Everything here is counted from the architecture (a :class:`ModelSpec`), never from a headline
parameter count, so that LoRA adapters see the real GQA shapes of ``k_proj``/``v_proj`` and the
experts of MoE models.

Bytes per parameter (P = parameters held by this GPU before sharding)
--------------------------------------------------------------------
Full fine-tuning / pre-training (``optimizer``):

- ``"adamw"`` mixed precision: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + fp32 m 4 + fp32 v 4
  = **16 B/param**. Frameworks that keep fp32 gradients (or accumulate them in fp32) pay 18; we use
  16 and say so in the assumptions.
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
states, 8 with pure bf16; PEFT's default fp32 autocast of adapters adds 4 B/param).
QLoRA uses a paged optimizer, so the adapters' optimizer states are pageable as above.

Activations (per micro-batch, bf16, flash attention so no seq^2 term)
--------------------------------------------------------------------
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

This is Korthikanti et al.'s ``34 s b h`` (GPT, 4h MLP, no dropout masks) redone for gated MLPs
and GQA: Llama-3-8B gives 84k elements = 164 KiB per token per layer.

Without checkpointing all layers keep that set. With full (per-layer) checkpointing only each
layer's input is kept (``h`` per token per layer) and, during the backward pass, one layer's full
set is rebuilt, plus two h-sized gradient buffers. The logits add ``vocab * 4 B`` per token (bf16
logits and their gradient; a chunked / fused fp32 loss as torchtune and Liger use - an unfused HF
loss that upcasts the whole logits tensor to fp32 needs about twice that).

Sharding across ``world = gpus * nodes`` GPUs
--------------------------------------------
DDP (``sharding="none"``) replicates everything. ZeRO-1 shards optimizer states (and the fp32
master), ZeRO-2 also gradients, ZeRO-3 / FSDP also parameters; ZeRO-3 then holds two unsharded
layers at a time (the one computing and the one prefetched) and one layer of unsharded gradients.
``cpu_offload`` moves optimizer states (and the master copy) to CPU RAM; with ZeRO-3/FSDP it also
moves the parameter and gradient shards (torchtune / FSDP ``CPUOffload``), leaving only the
gathered working layers on the GPU.

Overhead: the CUDA context (~0.5 GB) plus 10% of what is allocated and freed every step
(activations, gradients, adapters) for the caching allocator's fragmentation; weights and optimizer
states are allocated once and do not fragment.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.arguments import int_in
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.layout import ModelLayout, TensorGroup, model_layout
from gpuscout.knowledge.model_types import ModelSpec

GB = 1e9
GIB = 2**30

CUDA_CONTEXT_GB = 0.5
FRAGMENTATION = 0.10
NF4_BITS = 4 + 8 / 64 + 32 / (64 * 256)  # bitsandbytes NF4, block 64, double-quantised absmax

METHODS = ("lora", "qlora", "full", "pretrain")
OPTIMIZERS = ("adamw", "adamw8bit", "paged_adamw8bit", "bf16")
SHARDINGS = ("none", "zero1", "zero2", "zero3", "fsdp")
LORA_TARGETS = ("attn", "all-linear")
PRECISIONS = ("bf16", "fp16", "fp32", "fp8", "int8")

def lora_groups(layout: ModelLayout, targets: str) -> tuple[TensorGroup, ...]:
    """The matrices LoRA adapts: "attn" (q, k, v, o or their MLA equivalents) or "all-linear"."""
    if targets not in LORA_TARGETS:
        raise InvalidInputError("lora_targets", f"unknown target set {targets!r}",
                                accepted=", ".join(LORA_TARGETS))
    if targets == "attn":
        return tuple(g for g in layout.linear if g.role == "attn")
    return tuple(g for g in layout.linear if g.role in ("attn", "mlp"))


def lora_params(layout: ModelLayout, rank: int, targets: str) -> int:
    """Adapter parameters: ``rank * (in + out)`` for every adapted matrix (every expert included)."""
    return sum(rank * (g.in_features + g.out_features) * g.count for g in lora_groups(layout, targets))


@dataclass(frozen=True, slots=True)
class TrainingSetup:
    """What is trained and how; validated by :func:`validate_setup`."""

    method: str = "lora"
    seq_len: int = 2048
    micro_batch: int = 1
    lora_rank: int = 16
    lora_targets: str = "all-linear"
    optimizer: str = "adamw"
    sharding: str = "none"
    cpu_offload: bool = False
    checkpointing: bool = True
    precision: str = "bf16"
    world: int = 1  # total GPUs (gpus per node x nodes)
    optimizer_in_backward: bool = False  # torchtune / fused optimizer: gradients freed as they are made


def _choice(field_name: str, value: str, allowed: tuple[str, ...]) -> str:
    key = value.strip().lower() if isinstance(value, str) else value
    if key not in allowed:
        raise InvalidInputError(field_name, f"unknown value {value!r}", accepted=", ".join(allowed))
    return str(key)


def validate_setup(setup: TrainingSetup) -> TrainingSetup:
    """Return a normalised copy of ``setup`` or raise InvalidInputError naming the field."""
    method = _choice("method", setup.method, METHODS)
    optimizer = _choice("optimizer", setup.optimizer, OPTIMIZERS)
    sharding = _choice("sharding", setup.sharding, SHARDINGS)
    targets = _choice("lora_targets", setup.lora_targets, LORA_TARGETS)
    precision = _choice("precision", setup.precision, PRECISIONS)
    int_in("seq_len", setup.seq_len, 1, 10_000_000)
    int_in("micro_batch", setup.micro_batch, 1, 1_000_000)
    int_in("lora_rank", setup.lora_rank, 1, 65_536)
    int_in("gpus", setup.world, 1, 1_000_000, error=ConfigurationRejected)
    if precision == "int8" and method in ("full", "pretrain"):
        raise InvalidInputError("precision", "int8 weights cannot be trained in full",
                                accepted="bf16, fp16, fp32, fp8 for full training; int8 only for a LoRA base")
    return TrainingSetup(method, setup.seq_len, setup.micro_batch, setup.lora_rank, targets, optimizer,
                         sharding, bool(setup.cpu_offload), bool(setup.checkpointing), precision, setup.world,
                         bool(setup.optimizer_in_backward))


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


def activation_elements_per_token_layer(spec: ModelSpec, setup: TrainingSetup) -> float:
    """Elements autograd keeps per token per layer without checkpointing (see module docstring)."""
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
    if spec.is_moe:
        width = spec.moe_intermediate_size or spec.intermediate_size
        k = spec.experts_per_token or 1
        inter = width * (k + spec.shared_experts)
        mlp = 2 * h + 4 * inter + k * h
    else:
        inter = spec.intermediate_size
        # gated: gate, up, act(gate), product; plain (GELU) MLP: up output and activation output
        mlp = 2 * h + (2 if spec.mlp_type == "plain" else 4) * inter
    elements = float(attn + mlp)
    if setup.method in ("lora", "qlora"):
        layout = model_layout(spec)
        adapted = lora_groups(layout, setup.lora_targets)
        per_layer_adapted = sum(g.active_count for g in adapted) / spec.num_hidden_layers
        elements += setup.lora_rank * per_layer_adapted
        if setup.lora_targets == "attn":
            elements -= h + inter  # frozen MLP without adapters: its inputs need not be kept
    return elements


def _bytes_per_element(precision: str) -> float:
    return 4.0 if precision == "fp32" else 2.0


def activation_bytes(spec: ModelSpec, setup: TrainingSetup) -> float:
    """Peak activation memory of one micro-batch on one GPU (bytes), logits included."""
    tokens = setup.micro_batch * setup.seq_len
    b = _bytes_per_element(setup.precision)
    layer_set = activation_elements_per_token_layer(spec, setup) * b * tokens
    n_layers = spec.num_hidden_layers
    if setup.checkpointing:
        body = tokens * spec.hidden_size * b * n_layers + layer_set + 2 * tokens * spec.hidden_size * b
    else:
        body = layer_set * n_layers
    logits = tokens * spec.vocab_size * 4.0
    return body + logits


def _layer_params(layout: ModelLayout, n_layers: int) -> float:
    return (layout.linear_params + layout.norms + layout.other) / max(n_layers, 1)


def training_memory(spec: ModelSpec, setup: TrainingSetup, capacity_gb: float) -> TrainingMemory:
    """Per-GPU memory breakdown of ``setup`` on a GPU of ``capacity_gb`` (GB, 1e9 bytes)."""
    setup = validate_setup(setup)
    if not capacity_gb > 0:
        raise ConfigurationRejected("gpu", f"memory capacity must be positive, got {capacity_gb}")
    layout = model_layout(spec)
    world = setup.world
    assumptions: dict[str, str] = {}
    warnings: list[str] = []
    full = setup.method in ("full", "pretrain")
    zero3 = setup.sharding in ("zero3", "fsdp")
    shard_grads = setup.sharding in ("zero2", "zero3", "fsdp")
    shard_opt = setup.sharding != "none"
    n_layers = spec.num_hidden_layers
    layer_params = _layer_params(layout, n_layers)
    pageable = 0.0

    if world == 1 and setup.sharding != "none":
        assumptions["sharding"] = f"{setup.sharding} on 1 GPU shards nothing"
    elif world > 1 and setup.sharding == "none":
        assumptions["sharding"] = f"DDP: every one of the {world} GPUs holds a full replica"
    else:
        assumptions["sharding"] = f"{setup.sharding} across {world} GPUs"

    if full:
        total = float(layout.total)
        trainable = layout.total
        fp32 = setup.precision == "fp32"
        w_b = 4.0 if fp32 else 2.0
        g_b = 4.0 if fp32 else 2.0
        master = 0.0 if fp32 else 4.0
        states = {"adamw": 8.0, "adamw8bit": 2.0, "paged_adamw8bit": 2.0, "bf16": 4.0}[setup.optimizer]
        if setup.optimizer in ("paged_adamw8bit", "bf16"):
            master = 0.0
            if fp32 and setup.optimizer == "bf16":
                states = 8.0
        opt_b = master + states
        assumptions["bytes_per_param"] = (
            f"weights {w_b:g} + grads {g_b:g} + optimizer {opt_b:g} = {w_b + g_b + opt_b:g} B/param "
            f"({setup.optimizer}{'; fp32 master copy' if master else '; no master copy'})")
        if setup.optimizer == "adamw" and not fp32:
            assumptions["grads"] = "bf16 gradients (fp32 gradient accumulation would add 2 B/param: 18)"
        weights = total * w_b
        grads = total * g_b
        optimizer = total * opt_b
        pageable_raw = total * states if setup.optimizer == "paged_adamw8bit" else 0.0
        if zero3:
            weights = weights / world + 2 * layer_params * w_b
            grads = grads / world + layer_params * g_b
        elif shard_grads:
            grads /= world
        if setup.optimizer_in_backward:
            # the optimizer steps each parameter as soon as its gradient is ready, then frees it
            grads = max(layout.embedding, layout.largest_matrix) * g_b
            assumptions["grads"] = "optimizer step fused into the backward pass: one gradient at a time"
        if shard_opt:
            optimizer /= world
            pageable_raw /= world
        if setup.cpu_offload:
            optimizer = 0.0
            pageable_raw = 0.0
            if zero3:
                weights = 2 * layer_params * w_b
                grads = layer_params * g_b
                assumptions["cpu_offload"] = "parameters, gradients and optimizer states in CPU RAM"
            else:
                assumptions["cpu_offload"] = "optimizer states and master weights in CPU RAM"
        pageable = pageable_raw
        adapters = 0.0
        base_desc = f"{setup.precision} weights"
    else:
        trainable = lora_params(layout, setup.lora_rank, setup.lora_targets)
        total = float(layout.total + trainable)
        if setup.method == "qlora":
            linear_b = NF4_BITS / 8
            base_desc = f"NF4 double-quant linear layers ({NF4_BITS:.3f} bits), bf16 embeddings/norms"
            if setup.precision not in ("bf16", "fp16"):
                warnings.append(f"QLoRA stores the base in NF4; precision {setup.precision!r} only sets "
                                "the compute dtype and is treated as bf16")
        else:
            linear_b = {"bf16": 2.0, "fp16": 2.0, "fp32": 4.0, "fp8": 1.0, "int8": 1.0}[setup.precision]
            base_desc = f"{setup.precision} linear layers, bf16 embeddings/norms"
        other_b = 4.0 if setup.precision == "fp32" else 2.0
        wide = layout.embedding + layout.lm_head + layout.norms + layout.other
        weights = layout.linear_params * linear_b + wide * other_b
        # gathered (unsharded) layers keep the storage format: FSDP all-gathers NF4/fp8 shards as is
        body_bytes = layout.linear_params * linear_b + (layout.norms + layout.other) * other_b
        gathered = 2 * body_bytes / max(n_layers, 1)
        if zero3:
            weights = weights / world + gathered
        if zero3 and setup.cpu_offload:
            weights = gathered
        grads = 0.0
        a_b = 4.0 if setup.precision == "fp32" else 2.0
        a_s = {"adamw": 8.0, "adamw8bit": 2.0, "paged_adamw8bit": 2.0, "bf16": 4.0}[setup.optimizer]
        adapter_w = trainable * a_b
        adapter_g = trainable * a_b
        if zero3:
            adapter_w /= world
        if shard_grads:
            adapter_g /= world
        adapters = adapter_w + adapter_g
        optimizer = trainable * a_s
        if shard_opt:
            optimizer /= world
        if setup.cpu_offload:
            optimizer = 0.0
        if setup.method == "qlora" or setup.optimizer == "paged_adamw8bit":
            pageable = optimizer
            assumptions["optimizer"] = "paged optimizer: adapter states may page to CPU RAM"
        assumptions["adapters"] = (
            f"rank {setup.lora_rank} on {setup.lora_targets}: {trainable / 1e6:.1f}M params, "
            f"{2 * a_b + a_s:g} B/param (weights {a_b:g} + grads {a_b:g} + optimizer {a_s:g}; "
            "PEFT's fp32 adapter autocast would add 4)")
        assumptions["base"] = base_desc

    acts = activation_bytes(spec, setup)
    if setup.method == "qlora":
        acts += layout.largest_matrix * 2.0  # one matrix dequantised to bf16 at a time
    assumptions["activations"] = (
        f"micro-batch {setup.micro_batch} x {setup.seq_len} tokens, "
        + ("full activation checkpointing (layer inputs kept, one layer recomputed)"
           if setup.checkpointing else "no checkpointing (every layer's activations kept)")
        + "; flash attention; logits bf16 + grad with a chunked loss")

    allocated = weights + grads + optimizer + adapters + acts
    fixed = allocated - pageable  # what the caching allocator holds (paged state is managed memory)
    overhead = CUDA_CONTEXT_GB * GB + FRAGMENTATION * (acts + grads + adapters)
    assumptions["overhead"] = (f"CUDA context {CUDA_CONTEXT_GB} GB + {FRAGMENTATION:.0%} allocator "
                               "fragmentation on what is allocated and freed every step (activations, "
                               "gradients, adapters)")
    capacity = capacity_gb * GB
    # Paged optimizer state only takes the room left; the rest lives in CPU RAM (slower steps).
    room = max(0.0, capacity - fixed - overhead)
    spilled = max(0.0, pageable - room)
    if spilled > 0:
        optimizer -= spilled
        warnings.append(f"{spilled / GB:.1f} GB of paged optimizer state does not fit and pages to CPU RAM "
                        "(optimizer steps slow down)")
    breakdown = MemoryBreakdown(
        weights_gb=weights / GB,
        kv_cache_gb=0.0,
        activations_gb=acts / GB,
        overhead_gb=overhead / GB,
        optimizer_gb=optimizer / GB,
        gradients_gb=grads / GB,
        adapters_gb=adapters / GB,
        usable_gb=capacity_gb,
        capacity_gb=capacity_gb,
    )
    needed = (fixed + overhead) / GB  # paged state never causes an out-of-memory error
    fits = needed <= capacity_gb
    binding = "fits" if fits else _binding(breakdown)
    if not fits:
        warnings.append(f"needs {breakdown.total_gb:.1f} GB per GPU, the GPU has {capacity_gb:.1f} GB "
                        f"(largest share: {binding})")
    return TrainingMemory(breakdown, fits, binding, int(trainable), int(total), pageable / GB, spilled / GB,
                          assumptions, warnings)


def _binding(m: MemoryBreakdown) -> str:
    """What does not fit: the weights if they alone overflow, else the largest training component."""
    if m.weights_gb + m.overhead_gb > m.capacity_gb:
        return "weights"
    parts = {"gradients": m.gradients_gb, "optimizer": m.optimizer_gb, "adapters": m.adapters_gb,
             "activations": m.activations_gb}
    return max(parts, key=lambda k: parts[k])
