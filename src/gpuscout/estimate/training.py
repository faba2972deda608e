"""Training and fine-tuning: does it fit, how many tokens/s, how long for a token budget.

Memory comes from :mod:`gpuscout.estimate.training_memory`. Speed is compute-bound physics:

FLOPs per trained token (hardware work, counted from the architecture)
    forward = 2 x (active linear params + lm_head) + attention ``4 x q_dim x mean context`` per layer
    (causal: mean context (seq+1)/2, capped by the sliding window on local layers).
    Full / pre-training: forward + backward (2x) = 3 x forward, the familiar 6·N·D; full activation
    checkpointing recomputes the forward once more: 8·N·D.
    LoRA / QLoRA: the frozen base needs no weight gradients, so its linear layers cost forward +
    input-gradient = 2 x forward (4·N·D), attention still 3x, adapters 6 x their params; +1 forward
    with checkpointing (6·N·D).

Achieved rate
    ``peak x MFU``. MFU priors (not calibrated: the calibration CSV has no training-speed rows):
    0.40 of the dense bf16 peak on datacenter parts with good kernels (Megatron / torchtitan report
    38-45 % on H100 and A100 for 7-70B dense models), 0.35 on workstation and consumer cards (power
    and clock limits under sustained GEMM load), 0.30 of the FP8 peak for FP8 training (1.3-1.5x
    the bf16 speed in practice), x0.85 for LoRA/QLoRA (many small adapter kernels).
    Quantised LoRA bases (NF4, int8, fp8 without FP8 tensor cores) are dequantised to bf16 before each
    matmul: a memory-bound pass reading the stored weights and writing bf16 ones, once per forward,
    backward and recompute, at 70 % of the GPU's bandwidth.

Multi-GPU (data parallel, ``world = gpus x nodes``)
    DDP / ZeRO-1 / ZeRO-2: one ring all-reduce (or reduce-scatter + all-gather, same volume) of the
    trainable gradients in bf16 per optimizer step, ``2 (W-1)/W x bytes``, overlapped with the last
    backward pass up to 80 %. ZeRO-3 / FSDP: every micro-step all-gathers the parameters twice
    (forward, backward) and reduce-scatters the gradients, overlapped up to 80 % with compute. The
    link is NVLink/fabric or PCIe inside a box (:func:`gpuscout.estimate.parallel.gpu_link`) and
    ``internode_gbps`` (GB/s per node; default: 50 GB/s = 400 Gbit/s per GPU on NVLink-fabric nodes,
    25 GB/s per PCIe node) across nodes; the slower of the two sets the ring's pace.
    CPU offload adds the optimizer step on the host (2e9 params/s per node for a vectorised CPU Adam)
    and the PCIe copies (25 GB/s per GPU); paged optimizer state that spilled to CPU RAM is paged in
    and out once per step over the same PCIe rate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuscout.errors import ConfigurationRejected, InvalidInputError
from gpuscout.estimate.arguments import int_in, positive_float, resolve_gpu_arg, resolve_model_arg
from gpuscout.estimate.memory import capacity_bytes
from gpuscout.estimate.parallel import gpu_link
from gpuscout.estimate.precision import compute_rate, resolve_precision
from gpuscout.estimate.training_memory import (
    NF4_BITS,
    TrainingSetup,
    lora_groups,
    training_memory,
    validate_setup,
)
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.layout import ModelLayout, model_layout
from gpuscout.knowledge.model_types import ModelSpec

GB = 1e9
MFU_DATACENTER = 0.40
MFU_DESKTOP = 0.35
MFU_FP8 = 0.30
LORA_EFFICIENCY = 0.85
DEQUANT_BANDWIDTH_EFFICIENCY = 0.7
COMM_OVERLAP = 0.8
NIC_GBPS_PER_FABRIC_GPU = 50.0  # 400 Gbit/s InfiniBand / RoCE per GPU on HGX-class nodes
PCIE_NODE_NETWORK_GBPS = 25.0  # 200 Gbit/s Ethernet for a PCIe box
HOST_LINK_GBPS = 25.0  # PCIe Gen4 x16 achieved host<->device
CPU_ADAM_PARAMS_PER_S = 2e9  # per node


@dataclass(frozen=True, slots=True)
class TrainingEstimate:
    """What :func:`estimate_training` returns. Memory is per GPU; speeds are for the whole job."""

    model: str
    gpu: str
    gpus: int  # GPUs per node
    nodes: int
    method: str
    fits: bool
    binding_constraint: str  # "fits" or what does not fit: "weights", "optimizer", "activations"...
    memory: MemoryBreakdown
    tokens_per_s: float  # trained tokens per second, all GPUs together
    time_s: float | None  # for ``tokens`` x ``epochs``; None when no token budget was given
    mfu: float  # model FLOPs (no recompute) achieved / peak of all GPUs
    flops_per_token: float  # hardware FLOPs per trained token, recompute included
    step_time_s: float
    tokens_per_step: int
    trainable_params: int
    total_params: int
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def default_internode_gbps(acc: Accelerator, gpus: int) -> float:
    """Network GB/s per node when the user gives none.

    NVLink-fabric training nodes (HGX / DGX class) ship one 400 Gbit/s NIC per GPU (50 GB/s each);
    PCIe boxes get a single 200 Gbit/s (25 GB/s) Ethernet link.
    """
    if acc.has_nvlink_class_fabric:
        return NIC_GBPS_PER_FABRIC_GPU * gpus
    return PCIE_NODE_NETWORK_GBPS


def attention_flops_per_token(spec: ModelSpec, seq_len: int) -> float:
    """Forward attention-score FLOPs (QK^T and AV) per token, averaged over a causal sequence."""
    heads = spec.num_attention_heads
    if spec.is_mla:
        per_ctx = 2 * heads * (spec.qk_nope_head_dim + spec.qk_rope_head_dim) + 2 * heads * spec.v_head_dim
    else:
        hd = spec.head_dim or spec.hidden_size // max(heads, 1)
        per_ctx = 4 * heads * hd
    full_ctx = (seq_len + 1) / 2
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


@dataclass(frozen=True, slots=True)
class _Flops:
    hardware: float  # per token, what the GPU executes (recompute included)
    model: float  # per token, the useful work MFU is quoted against (no recompute)


def training_flops_per_token(spec: ModelSpec, layout: ModelLayout, setup: TrainingSetup) -> _Flops:
    """Hardware and model FLOPs per trained token (see module docstring)."""
    linear_active = sum(g.active_params for g in layout.linear)
    head = spec.vocab_size * spec.hidden_size
    fwd_linear = 2.0 * (linear_active + head)
    fwd_attn = attention_flops_per_token(spec, setup.seq_len)
    recompute = 1.0 if setup.checkpointing else 0.0
    if setup.method in ("full", "pretrain"):
        model = 3.0 * (fwd_linear + fwd_attn)
        return _Flops(model + recompute * (fwd_linear + fwd_attn), model)
    adapted = lora_groups(layout, setup.lora_targets)
    adapter_active = sum(setup.lora_rank * (g.in_features + g.out_features) * g.active_count for g in adapted)
    model = 2.0 * fwd_linear + 3.0 * fwd_attn + 6.0 * adapter_active
    hardware = model + recompute * (fwd_linear + fwd_attn + 2.0 * adapter_active)
    return _Flops(hardware, model)


def estimate_training(
    model: str | ModelSpec,
    gpu: str | Accelerator,
    *,
    gpus: int = 1,
    method: str = "lora",
    seq_len: int = 2048,
    micro_batch: int = 1,
    grad_accum: int = 1,
    tokens: float | None = None,
    epochs: float = 1,
    lora_rank: int = 16,
    lora_targets: str = "all-linear",
    optimizer: str = "adamw",
    sharding: str = "none",
    cpu_offload: bool = False,
    checkpointing: bool = True,
    precision: str = "bf16",
    nodes: int = 1,
    internode_gbps: float | None = None,
    optimizer_in_backward: bool = False,
) -> TrainingEstimate:
    """Estimate memory per GPU, speed and duration of training ``model`` on ``gpus`` x ``nodes`` ``gpu``.

    ``gpus`` is the number of GPUs per node; the job runs data-parallel on ``gpus * nodes`` GPUs.
    ``tokens`` is the training set size in tokens (the run trains ``tokens * epochs`` tokens).
    ``internode_gbps`` is the network bandwidth per node in GB/s (not Gbit/s).
    """
    spec = resolve_model_arg(model)
    acc = resolve_gpu_arg(gpu)
    gpus = int_in("gpus", gpus, 1, 4096, error=ConfigurationRejected)
    nodes = int_in("nodes", nodes, 1, 100_000, error=ConfigurationRejected)
    grad_accum = int_in("grad_accum", grad_accum, 1, 1_000_000)
    epochs_f = positive_float("epochs", epochs, 10_000)
    tokens_f = None if tokens is None else positive_float("tokens", tokens, 1e16)
    inter_gbps = (0.0 if internode_gbps is None
                  else positive_float("internode_gbps", internode_gbps, 1e6))
    for flag_name, flag in (("cpu_offload", cpu_offload), ("checkpointing", checkpointing),
                            ("optimizer_in_backward", optimizer_in_backward)):
        if not isinstance(flag, bool):
            raise InvalidInputError(flag_name, f"must be true or false, got {flag!r}")
    world = gpus * nodes
    if internode_gbps is None:
        inter_gbps = default_internode_gbps(acc, gpus)
    setup = validate_setup(TrainingSetup(
        method=method, seq_len=seq_len, micro_batch=micro_batch, lora_rank=lora_rank,
        lora_targets=lora_targets, optimizer=optimizer, sharding=sharding, cpu_offload=cpu_offload,
        checkpointing=checkpointing, precision=precision, world=world,
        optimizer_in_backward=optimizer_in_backward))
    layout = model_layout(spec)
    if setup.lora_rank >= spec.hidden_size and setup.method in ("lora", "qlora"):
        raise InvalidInputError("lora_rank", f"rank {setup.lora_rank} is not below the hidden size "
                                f"{spec.hidden_size}", accepted=f"1..{spec.hidden_size - 1}")

    capacity_gb = capacity_bytes(acc) / GB
    mem = training_memory(spec, setup, capacity_gb)
    assumptions = dict(mem.assumptions)
    warnings = list(mem.warnings)
    assumptions["capacity"] = (f"{acc.memory_gb:g} GB card = {capacity_gb:.1f} GB (1e9 B) usable "
                               "(GiB sizing, less the driver reserve)")
    if setup.seq_len > spec.max_position_embeddings > 0:
        warnings.append(f"seq_len {setup.seq_len} exceeds the model's {spec.max_position_embeddings} "
                        "positions (needs RoPE scaling)")
    if spec.is_moe and world > 1:
        assumptions["moe"] = ("experts sharded like every other weight (DDP / ZeRO / FSDP); expert "
                              "parallelism, which cuts the parameter traffic, is not modelled")
    if setup.method == "pretrain":
        assumptions["pretrain"] = "pre-training costs what full training costs per token (random init)"
    if setup.method == "qlora" and acc.vendor.lower() != "nvidia":
        warnings.append(f"QLoRA's NF4 kernels (bitsandbytes) target NVIDIA CUDA; support on {acc.vendor} "
                        "hardware is partial")

    # --- compute rate -------------------------------------------------------------------------------
    prec_fmt = resolve_precision("bf16" if setup.precision in ("bf16", "fp16", "int8") else setup.precision)
    rate = compute_rate(prec_fmt, acc)
    if rate.warning:
        warnings.append(rate.warning + (" (training at the bf16 rate)" if setup.precision == "fp8" else ""))
    desktop = acc.kind in ("consumer", "workstation")
    if rate.rate_name == "fp8" and rate.native:
        mfu_base, why = MFU_FP8, "0.30 of the FP8 peak (FP8 training)"
    elif desktop:
        mfu_base, why = MFU_DESKTOP, f"0.35 of the {rate.rate_name} peak ({acc.kind} card)"
    else:
        mfu_base, why = MFU_DATACENTER, f"0.40 of the {rate.rate_name} peak (datacenter part)"
    if setup.method in ("lora", "qlora"):
        mfu_base *= LORA_EFFICIENCY
        why += f" x {LORA_EFFICIENCY} for adapter kernels"
    assumptions["efficiency"] = f"{why}; peak {rate.tflops:g} TFLOPS (prior, not calibrated)"
    achieved_flops = rate.tflops * 1e12 * mfu_base

    flops = training_flops_per_token(spec, layout, setup)
    tokens_micro = setup.micro_batch * setup.seq_len
    compute_s = tokens_micro * flops.hardware / achieved_flops

    # --- dequantisation of a quantised frozen base --------------------------------------------------
    stored_b = 0.0
    if setup.method == "qlora":
        stored_b = NF4_BITS / 8
    elif setup.method == "lora" and (setup.precision == "int8"
                                     or (setup.precision == "fp8" and not rate.native)):
        stored_b = 1.0
    dequant_s = 0.0
    if stored_b:
        passes = 2 + (1 if setup.checkpointing else 0)
        dequant_bytes = passes * layout.linear_params * (stored_b + 2.0)
        dequant_s = dequant_bytes / (acc.bandwidth_gbps * GB * DEQUANT_BANDWIDTH_EFFICIENCY)
        assumptions["dequant"] = (f"base dequantised to bf16 {passes}x per micro-step at "
                                  f"{DEQUANT_BANDWIDTH_EFFICIENCY:.0%} of {acc.bandwidth_gbps:g} GB/s")

    # --- communication -----------------------------------------------------------------------------
    micro_comm_s = 0.0
    step_comm_s = 0.0
    if world > 1:
        link = gpu_link(acc, gpus)
        bw = link.gbps
        link_desc = link.label
        if nodes > 1:
            # NCCL runs one ring per NIC, so a node's network carries each ring step once: the ring's
            # pace is the slower of a GPU's link and the node's network bandwidth.
            if inter_gbps < bw:
                bw = inter_gbps
                link_desc = f"inter-node network {inter_gbps:g} GB/s per node"
            if internode_gbps is None:
                warnings.append(f"inter-node bandwidth not given; assumed {inter_gbps:g} GB/s per node")
        ring = (world - 1) / world
        grad_bytes = mem.trainable_params * 2.0
        if setup.sharding in ("zero3", "fsdp"):
            if setup.method in ("full", "pretrain"):
                param_bytes = layout.total * (4.0 if setup.precision == "fp32" else 2.0)
            else:
                linear_b = NF4_BITS / 8 if setup.method == "qlora" else (
                    1.0 if setup.precision in ("fp8", "int8") else 2.0)
                param_bytes = layout.linear_params * linear_b + (layout.total - layout.linear_params) * 2.0
            micro_comm_s = ring * (2 * param_bytes + grad_bytes) / (bw * GB)
        else:
            step_comm_s = 2 * ring * grad_bytes / (bw * GB)
        assumptions["communication"] = f"data parallel over {world} GPUs via {link_desc}"
        over_pcie = link.kind == "pcie"
        if over_pcie and nodes == 1:
            warnings.append("GPUs talk over PCIe: gradient / parameter exchange is slow next to NVLink")

    exposed_micro = max(0.0, micro_comm_s - COMM_OVERLAP * (compute_s + dequant_s))
    backward_share = 2.0 / 3.0
    exposed_step = max(0.0, step_comm_s - COMM_OVERLAP * backward_share * compute_s)

    # --- optimizer step, offload and paging ---------------------------------------------------------
    b = mem.breakdown
    opt_bytes = (b.weights_gb + b.gradients_gb + b.optimizer_gb + b.adapters_gb) * GB
    optimizer_s = 2.0 * opt_bytes / (acc.bandwidth_gbps * GB) if not setup.cpu_offload else 0.0
    if setup.cpu_offload:
        trainable_per_node = mem.trainable_params / nodes
        host_s = trainable_per_node / CPU_ADAM_PARAMS_PER_S
        copies = 4.0 * mem.trainable_params / world  # bf16 grads down, bf16 params up
        if setup.sharding in ("zero3", "fsdp"):
            copies += grad_accum * 2 * 2.0 * layout.total / world  # shards uploaded fwd + bwd
        optimizer_s = host_s + copies / (HOST_LINK_GBPS * GB)
        assumptions["cpu_offload_speed"] = (f"CPU Adam at {CPU_ADAM_PARAMS_PER_S:.0e} params/s per node, "
                                            f"host copies at {HOST_LINK_GBPS:g} GB/s")
        host_gb = 12.0 * mem.trainable_params / nodes / GB  # fp32 master weights + Adam m, v
        warnings.append(f"optimizer offloaded to host RAM: ~{host_gb:.0f} GB of RAM per node, "
                        f"+{optimizer_s:.1f} s per optimizer step")
    if mem.spilled_gb > 0:
        optimizer_s += 2.0 * mem.spilled_gb * GB / (HOST_LINK_GBPS * GB)

    micro_s = compute_s + dequant_s + exposed_micro
    step_s = grad_accum * micro_s + exposed_step + optimizer_s
    tokens_per_step = tokens_micro * grad_accum * world
    tokens_per_s = tokens_per_step / step_s
    mfu = flops.model * tokens_per_s / (rate.tflops * 1e12 * world)
    time_s = None if tokens_f is None else tokens_f * epochs_f / tokens_per_s
    assumptions["flops"] = (f"{flops.hardware / 1e9:.1f} GFLOP per token executed "
                            f"({flops.model / 1e9:.1f} useful; "
                            + ("recompute included" if setup.checkpointing else "no recompute") + ")")

    return TrainingEstimate(
        model=spec.name, gpu=acc.name, gpus=gpus, nodes=nodes, method=setup.method, fits=mem.fits,
        binding_constraint=mem.binding_constraint, memory=b, tokens_per_s=tokens_per_s, time_s=time_s,
        mfu=mfu, flops_per_token=flops.hardware, step_time_s=step_s, tokens_per_step=tokens_per_step,
        trainable_params=mem.trainable_params, total_params=mem.total_params,
        assumptions=assumptions, warnings=warnings,
    )
