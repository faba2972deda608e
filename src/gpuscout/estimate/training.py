"""Training and fine-tuning: does it fit, how many tokens/s, how long for a token budget.

Memory comes from :mod:`gpuscout.estimate.training_memory`, the step time from
:mod:`gpuscout.estimate.training_speed` (FLOPs, bytes and messages at efficiencies fitted on published
training runs, per precision class and method, never per GPU or per model; its ``CALIBRATION`` names
the rows). This module checks the arguments, refuses what cannot run, and assembles the result, with
the host RAM a node needs (``host_ram_gb_per_node``, :func:`host_ram_need`): what CPU offload and paged
optimizers keep there for the node's GPUs, their pinned buffers, a process per GPU and the OS. The
speed is calibrated (``TrainingEstimate.speed_calibrated``) only where those rows measure training on the
part's generation (:mod:`gpuscout.knowledge.calibration_coverage`); elsewhere a warning says so and names
the nearest calibrated part.

Refused with :class:`~gpuscout.errors.ConfigurationRejected` (a configuration the caller chose cannot
run; the advisor skips such an offer, with the reason):

- A platform PyTorch training cannot run on (:func:`framework_support`, the ``pytorch-training`` rows of
  :mod:`gpuscout.knowledge.workload_support`): a Kepler GPU (no current PyTorch binary), an Inferentia
  (AWS trains on Trainium), QLoRA below bitsandbytes' compute-capability floor; the message says why
  and what would run. Where it runs with a caveat (the legacy cu126 wheels, PyTorch/XLA on a TPU,
  bitsandbytes' ROCm build for QLoRA on an MI300X, a rule that is only unverified), a warning says so.
- FP8 training (full or pre-training in ``precision="fp8"``) on a GPU without FP8 tensor cores
  (before Ada / Hopper: compute capability below 8.9). A LoRA base *stored* in FP8 is fine anywhere:
  it is dequantised to 16 bit for the matmuls (slower, said in the warnings).
- An impossible parallel layout: ``gpus x nodes`` not a multiple of ``tp x pp x cp``; ``tp`` wider than
  a node or not dividing the attention heads; ``pp`` above the layer count; ``cp`` not splitting the
  sequence into ``2 cp`` equal chunks; ``ep`` on a dense model, or not dividing both the experts and a
  pipeline stage's ``tp x cp x dp`` GPUs.
- Memory that does not fit, when ``require_fit=True``. By default a configuration that does not fit is
  returned with ``fits=False`` and its memory breakdown (``gpuscout vram`` shows what overflows, and the
  advisor tries the next sharding), and its speed figures are what it would reach if it fitted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from gpuscout.errors import ConfigurationRejected, InvalidInputError, quoted_value
from gpuscout.estimate.arguments import (
    MAX_EPOCHS,
    MAX_NODES,
    MAX_TOKENS,
    int_in,
    positive_float,
    require_language_model,
    resolve_gpu_arg,
    resolve_model_arg,
)
from gpuscout.estimate.hf_attention import training_attention_note
from gpuscout.estimate.memory import capacity_bytes, gib
from gpuscout.estimate.parallel import (
    HOST_STAGED_SHARE,
    PCIE_EXCHANGE_WARNING,
    SCALE_OUT_GBPS,
    collective_link,
    lacks_peer_access,
)
from gpuscout.estimate.precision import ComputeRate, compute_rate, has_bf16, resolve_precision
from gpuscout.estimate.pretrain_batch import optimal_batch, past_optimal_warning
from gpuscout.estimate.runtime import device_runtime, on_runtime
from gpuscout.estimate.training_kernels import ATTENTION_KERNELS, attention_kernel_share
from gpuscout.estimate.training_memory import (
    MAX_GRAD_ACCUM,
    NF4_BITS,
    PARAM_SHARDINGS,
    TrainingMemory,
    TrainingSetup,
    matmul_precision,
    pipeline_stage_layers,
    training_memory,
    validate_setup,
)
from gpuscout.estimate.training_speed import (
    CALIBRATION,
    Fabric,
    SpeedInputs,
    TrainingCalibration,
    step_time,
    training_flops,
)
from gpuscout.estimate.types import MemoryBreakdown
from gpuscout.knowledge import calibration_coverage as coverage
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import as_software_sees
from gpuscout.knowledge.engine_support import PRECISIONS
from gpuscout.knowledge.layout import model_layout
from gpuscout.knowledge.linear_attention import linear_attention_training_refusal
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.knowledge.workload_support import WorkloadRule, check_workload
from gpuscout.wording import plural, token_count

GB = 1e9
BITS_PER_BYTE = 8.0  # providers state network Gbit/s; ``internode_gbps`` is GB/s (``gbit_to_gbyte``)
MAX_INTERNODE_GBPS = 1e6  # the largest ``internode_gbps`` (GB/s per node) taken
NIC_GBPS_PER_FABRIC_GPU = SCALE_OUT_GBPS  # 400 Gbit/s InfiniBand / RoCE per GPU on HGX-class nodes
PCIE_NODE_NETWORK_GBPS = 25.0  # 200 Gbit/s Ethernet for a PCIe box

# --- host RAM per node (``TrainingEstimate.host_ram_gb_per_node``) -------------------------------------
#: The operating system, the container runtime, sshd and monitoring agents, and a floor of page cache for
#: reading the dataset and writing checkpoints: what a node needs before any training process starts.
HOST_OS_GB = 8.0
#: One training process per GPU (torchrun / the deepspeed launcher start one rank per GPU): the Python
#: interpreter with PyTorch and the CUDA libraries it maps (cuBLAS, cuDNN, NCCL: 2-3 GB resident per rank),
#: the tokenised batches and two dataloader workers.
HOST_PER_GPU_PROCESS_GB = 4.0
#: Pinned staging buffers and allocator slack around the state offloaded to host RAM, as a share of it.
#: DeepSpeed's ZeRO-Offload allocates pinned gradient / parameter partition buffers next to the states, and
#: its own estimator (``estimate_zero3_model_states_mem_needs``, DeepSpeed docs "Memory Requirements") pads
#: the CPU figure by 50 % (``additional_buffer_factor=1.5``) as a blanket margin; FSDP's CPU offload pins
#: the shards themselves (no second copy). The states are counted byte for byte here, so the margin is
#: the buffers' and the allocator's, not a guess at the states.
HOST_OFFLOAD_BUFFER_SHARE = 0.10
#: Optimizer steps below which a pre-training run is said to be too wide for its token budget: the
#: learning-rate warm-up alone took 2,000 steps in Llama 2 (Touvron et al. 2023, section 2.2), and a
#: data-parallel batch far past the critical batch size buys speed with tokens (McCandlish et al. 2018,
#: "An Empirical Model of Large-Batch Training": past it, the tokens needed grow with the batch).
PRETRAIN_MIN_STEPS = 2000


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
    mfu: float  # model FLOPs (PaLM convention, no recompute) achieved / dense peak of all GPUs
    flops_per_token: float  # hardware FLOPs per trained token, recompute included
    step_time_s: float
    tokens_per_step: int
    trainable_params: int
    total_params: int
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # compute, memory bandwidth, communication, host (kernel launches), host (CPU offload), memory capacity
    binding_resource: str = "compute"
    step_breakdown_s: dict[str, float] = field(default_factory=dict)  # seconds per step by component
    model_flops_per_token: float = 0.0  # the MFU numerator per token
    parallel: str = ""  # "DP 8" / "TP 4 x PP 2 x DP 8"...
    # host RAM each node needs (GB): what CPU offload and paged optimizers keep there for the node's GPUs,
    # their pinned buffers, a process per GPU and the OS (see ``host_ram_need``)
    host_ram_gb_per_node: float = 0.0
    # whether the speed constants were fitted on training runs of this part's generation (the calibration
    # set measures Ampere, Ada, Hopper, Blackwell B200 and B300 training: an MI300X's or V100's speed is
    # those efficiencies at its datasheet peak); see ``gpuscout.knowledge.calibration_coverage``
    speed_calibrated: bool = True

    @property
    def tokens_per_s_per_gpu(self) -> float:
        return self.tokens_per_s / max(self.gpus * self.nodes, 1)


_CHECKPOINTING_TEXT = {
    "none": "no activation checkpointing (the activations fit)",
    "selective": "selective activation recompute",
    "full": "full activation checkpointing",
}


def describe_layout(
    sharding: str,
    offload: bool,
    recompute: str,
    gpus: int,
    seq_len: int,
    micro_batch: int,
    grad_accum: int = 1,
) -> str:
    """How a training job is laid out, as one would set it up: 'FSDP across 8 GPUs (per-parameter
    sharding), optimizer and parameters in host RAM; full activation checkpointing; micro-batch 1 x 2,048
    tokens per GPU (8 sequences, 16,384 tokens per optimizer step)'. ``sharding`` is "none" (data parallel)
    or a ZeRO / FSDP mode; ``grad_accum`` micro-batches are accumulated per optimizer step ('... per GPU,
    8 accumulated per step (2 x 3 GPUs x 8 = 48 sequences, 196,608 tokens per optimizer step)')."""
    if sharding == "none":
        spread = "data parallel (a full replica per GPU)" if gpus > 1 else "one GPU"
    elif sharding == "fsdp":
        spread = f"FSDP across {gpus} {plural(gpus, 'GPU')} (per-parameter sharding)"
    else:
        spread = f"{sharding.upper()} across {gpus} {plural(gpus, 'GPU')}"
    if offload:
        spread += ", optimizer and parameters in host RAM"
    text = (
        f"{spread}; {_CHECKPOINTING_TEXT[recompute]}; micro-batch {micro_batch} x {seq_len:,} tokens per GPU"
    )
    # the global batch the speed is timed at: a recipe with a smaller one runs smaller micro-steps
    sequences = gpus * micro_batch * grad_accum
    if grad_accum > 1:
        most = " (the most taken)" if grad_accum >= MAX_GRAD_ACCUM else ""  # the batch limit wanted more
        text += (
            f", {grad_accum:,} accumulated per step{most} ({micro_batch} x {gpus:,} {plural(gpus, 'GPU')} x "
            f"{grad_accum:,} = {sequences:,} sequences, {sequences * seq_len:,} tokens per optimizer step)"
        )
    elif gpus > 1:
        text += f" ({sequences:,} sequences, {sequences * seq_len:,} tokens per optimizer step)"
    return text


def pretrain_steps(tokens: float, tokens_per_step: float) -> float:
    """Optimizer steps a pre-training run of ``tokens`` takes at ``tokens_per_step`` (its global batch)."""
    return tokens / tokens_per_step if tokens_per_step > 0 else math.inf


def few_steps_warning(tokens: float, tokens_per_step: float) -> str:
    """What a pre-training run of fewer than :data:`PRETRAIN_MIN_STEPS` optimizer steps is told ("" for
    one of enough): how many steps its token budget makes at its global batch, and the two ways out."""
    steps = pretrain_steps(tokens, tokens_per_step)
    if steps >= PRETRAIN_MIN_STEPS:
        return ""
    if steps < 1:
        count = "less than one optimizer step"
    else:
        count = f"{steps:,.1f} optimizer steps" if steps < 10 else f"{steps:,.0f} optimizer steps"
    return (
        f"the {tokens:,.0f}-token budget is {count} at a global batch of {tokens_per_step:,.0f} tokens "
        f"(GPUs x micro-batch x sequence): fewer than the {PRETRAIN_MIN_STEPS:,} steps a pre-training "
        "run's learning-rate warm-up alone takes (Llama 2); fewer GPUs, a smaller micro-batch or a larger "
        "token budget would give it more"
    )


def gbit_to_gbyte(gbit_per_s: float) -> float:
    """A network bandwidth as providers state it (Gbit/s) in the unit ``internode_gbps`` takes (GB/s).

    At line rate, as the default is (a 400 Gbit/s NIC is 50 GB/s): the step-time model applies no NIC
    efficiency of its own, so a stated figure and the default are compared alike."""
    return gbit_per_s / BITS_PER_BYTE


def default_internode_gbps(acc: Accelerator, gpus: int) -> float:
    """Network GB/s per node when the user gives none.

    NVLink-fabric training nodes (HGX / DGX class) ship one 400 Gbit/s NIC per GPU (50 GB/s each);
    PCIe boxes get a single 200 Gbit/s (25 GB/s) Ethernet link.
    """
    if acc.has_nvlink_class_fabric:
        return NIC_GBPS_PER_FABRIC_GPU * gpus
    return PCIE_NODE_NETWORK_GBPS


def _check_layout(spec: ModelSpec, setup: TrainingSetup, gpus: int) -> None:
    """Refuse a parallel layout that cannot be built (ConfigurationRejected naming the field)."""
    tp, pp, cp, ep, world = setup.tp, setup.pp, setup.cp, setup.ep, setup.world
    mp = tp * pp * cp
    if world % mp:
        raise ConfigurationRejected(
            "parallel",
            f"{world} {plural(world, 'GPU does', 'GPUs do')} not split into TP {tp} x PP {pp} x CP {cp} "
            "replicas",
            accepted=f"gpus x nodes a multiple of {mp}",
        )
    if tp > gpus:
        raise ConfigurationRejected(
            "tp",
            f"tensor parallel {tp} is wider than a node of {gpus} GPUs "
            "(TP needs the GPUs of one NVLink/PCIe domain)",
            accepted=f"1..{gpus}",
        )
    heads, kv = spec.num_attention_heads, spec.num_key_value_heads or spec.num_attention_heads
    if heads % tp or (not spec.is_mla and kv % tp and tp % kv):
        raise ConfigurationRejected(
            "tp",
            f"TP {tp} does not split {heads} attention heads / {kv} KV heads",
            accepted="a divisor of the head count",
        )
    pipeline_stage_layers(spec, setup)  # the ``pp`` argument: a stage needs at least one whole layer
    if cp > 1 and setup.seq_len % (2 * cp):
        raise ConfigurationRejected(
            "parallel",
            f"context parallel {cp} needs seq_len divisible by {2 * cp}",
            accepted=f"seq_len a multiple of {2 * cp}",
        )
    if ep > 1:
        if not spec.is_moe:
            raise ConfigurationRejected(
                "parallel",
                f"expert parallel {ep} on the dense model {spec.name}",
                accepted="ep 1 for a dense model",
            )
        stage = tp * cp * setup.dp
        if spec.num_experts % ep or stage % ep:
            raise ConfigurationRejected(
                "parallel",
                f"EP {ep} must divide the {spec.num_experts} experts and the "
                f"{stage} {plural(stage, 'GPU')} of a pipeline stage (TP x CP x DP)",
                accepted="a common divisor",
            )


@dataclass(frozen=True, slots=True)
class _GemmRates:
    """The tensor rates a training step runs at on one GPU."""

    rate: ComputeRate  # the weight GEMMs' (FP8 where native, else 16-bit; fp32 for fp32)
    rate16: ComputeRate  # attention's (16-bit)
    fp8_native: bool  # FP8 weight GEMMs on FP8 tensor cores
    stored_bytes: float  # bytes per weight of a quantised LoRA base dequantised for each matmul (0: none)


def _gemm_rates(setup: TrainingSetup, acc: Accelerator, warnings: list[str]) -> _GemmRates:
    """The rates, or ConfigurationRejected for FP8 training on a GPU without FP8 tensor cores.

    They are those of the precision the matmuls compute in (``matmul_precision``): a QLoRA base is
    dequantised to bf16 / fp16 / fp32, never multiplied in FP8, whatever ``precision`` says."""
    compute = matmul_precision(setup)
    fmt = resolve_precision("fp32" if compute == "fp32" else "fp8" if compute == "fp8" else "bf16")
    rate = compute_rate(fmt, acc, tf32=False)  # PyTorch leaves TF32 matmuls off by default
    rate16 = compute_rate(resolve_precision("bf16"), acc)
    fp8_native = compute == "fp8" and rate.native and rate.rate_name == "fp8"
    if setup.precision == "fp8" and not fp8_native and not setup.adapters:
        raise ConfigurationRejected(
            "gpu",
            f"FP8 training needs FP8 tensor cores (Ada, Hopper, Blackwell: compute capability 8.9+); "
            f"{acc.name} has none",
            # the 16-bit type the GPU computes in: no bf16 on V100 or T4 (as the precision warnings say)
            accepted=f"precision {'bf16' if has_bf16(acc) else 'fp16'} on this GPU, "
            "or a GPU with FP8 tensor cores",
        )
    if rate16.warning and not fp8_native and compute not in ("fp16", "fp32"):  # a bf16 caveat (V100: as FP16)
        warnings.append(rate16.warning)
    stored = 0.0
    if setup.method == "qlora":
        stored = NF4_BITS / 8
    elif setup.adapters and (setup.precision == "int8" or (setup.precision == "fp8" and not fp8_native)):
        stored = 1.0
        if setup.precision == "fp8":
            warnings.append(
                f"{acc.name} has no FP8 tensor cores: the FP8 base is dequantised to 16 bit "
                "for every matmul (saves memory, costs time)"
            )
    return _GemmRates(rate, rate16, fp8_native, stored)


@dataclass(frozen=True, slots=True)
class FrameworkSupport:
    """What the platform rules say of PyTorch (transformers, PEFT, bitsandbytes) training on one
    accelerator (:func:`framework_support`, from :mod:`gpuscout.knowledge.workload_support`'s
    ``pytorch-training`` rows).

    ``refusal``: why it cannot run there at all ("" where it can), ``instead`` what would, ``sources``
    the deciding rules' URLs: :func:`estimate_training` raises ConfigurationRejected with them.
    ``warnings``: the lines :func:`estimate_training` adds where it runs with a caveat (the legacy cu126
    wheels, PyTorch/XLA on a TPU, bitsandbytes' ROCm build), each in its rule's words, an unverified
    rule's tag said; the refusal's words where it cannot run. ``vouched``: False where the rules cannot
    vouch that the job runs there as sized: it cannot run, or a rule that lets it is not sourced (QLoRA's
    NF4 kernels on a TPU); a list of the hardware a job fits on leaves it out. ``cause``: why, in words
    that name no accelerator (the same for every one it leaves out); "" where vouched."""

    warnings: tuple[str, ...] = ()
    vouched: bool = True
    cause: str = ""
    refusal: str = ""
    instead: str = ""
    sources: tuple[str, ...] = ()

    @property
    def warning(self) -> str | None:
        """The first of ``warnings`` (the platform's where it has one), None where there is none."""
        return self.warnings[0] if self.warnings else None


def _cause(rule: WorkloadRule) -> str:
    """A rule's words as a cause naming no accelerator: a platform row's prefixed with what it is about
    ("PyTorch training: Kepler: ..."); a precision row's name their subject ("QLoRA's NF4 kernels...")."""
    return f"PyTorch training: {rule.said}" if rule.precision == "*" else rule.said


def framework_support(method: str, precision: str, acc: Accelerator) -> FrameworkSupport:
    """What the platform rules say of PyTorch training (``method``: lora, qlora, full, pretrain, in
    ``precision``) on ``acc``: a platform it cannot run on (Kepler: no current binary; Inferentia: AWS
    trains on Trainium), a caveat (the legacy cu126 wheels, PyTorch/XLA on a TPU, the Neuron SDK on
    Trainium, Intel Gaudi's bridge), and the rows of QLoRA's NF4 base (bitsandbytes) or an 8-bit one. The
    one rule set :func:`estimate_training` refuses and warns by, and the CLI's fits table leaves hardware
    out by."""
    key = "nf4" if method == "qlora" else precision if precision in PRECISIONS else ""
    verdict = check_workload("pytorch-training", acc, key)
    refusal = verdict.refusal
    if refusal is not None:
        message = verdict.message()
        return FrameworkSupport(
            (message,),
            vouched=False,
            cause=_cause(refusal),
            refusal=message,
            instead=verdict.instead(),
            sources=verdict.sources,
        )
    caveats = verdict.caveats
    # the precision's unsourced row first (its cause is the one shared by every target it covers)
    unsure = next((r for r in reversed(caveats) if r.tag != "sourced"), None)
    return FrameworkSupport(
        tuple(f"training on {acc.name}: {rule.said}" for rule in caveats),
        vouched=unsure is None,
        cause="" if unsure is None else _cause(unsure),
    )


def _platform_check(setup: TrainingSetup, acc: Accelerator) -> FrameworkSupport:
    """The platform rules for this setup on this GPU: ConfigurationRejected (field ``gpu``) where PyTorch
    training cannot run there, with what would; else what :func:`framework_support` warns of."""
    support = framework_support(setup.method, setup.precision, acc)
    if support.refusal:
        raise ConfigurationRejected("gpu", support.refusal, accepted=support.instead)
    return support


def _memory_notes(
    spec: ModelSpec,
    setup: TrainingSetup,
    mem: TrainingMemory,
    acc: Accelerator,
    capacity_gb: float,
    warnings: list[str],
) -> dict[str, str]:
    """The memory breakdown's assumptions and warnings, with the card's capacity and the model's limits."""
    assumptions = dict(mem.assumptions)
    if setup.precision == "bf16" and not has_bf16(acc):
        # no bfloat16 on the GPU (V100, T4): what the memory notes hold in bf16 runs as fp16, as the
        # precision warning says ("BF16 weights run as FP16"); the notes say what runs
        assumptions = {k: re.sub(r"\bbf16\b", "fp16", v) for k, v in assumptions.items()}
    warnings += mem.warnings
    # in GiB, the unit GPU memory is sold in (the vendor's "80 GB" is 80 GiB)
    reported = acc.usable_memory_gib is not None
    assumptions["capacity"] = f"the card's {acc.memory_gb:g} GiB: {gib(capacity_gb):.1f} GiB usable " + (
        (
            "(less the 1/16 that ECC keeps: derived, not measured)"
            if acc.usable_memory_derived
            else "(as the device reports it)"
        )
        if reported
        else f"({acc.memory_gb:g} GiB less the driver reserve)"
    )
    if setup.seq_len > spec.max_position_embeddings > 0:
        warnings.append(
            f"seq_len {setup.seq_len} exceeds the model's {spec.max_position_embeddings} "
            "positions (needs RoPE scaling)"
        )
    if setup.method == "pretrain":
        assumptions["pretrain"] = "pre-training costs what full training costs per token (random init)"
    if spec.is_moe and setup.ep == 1 and setup.dp > 1:
        assumptions["moe"] = "experts sharded like every other weight (no expert parallelism): ep=1"
    return assumptions


@dataclass(frozen=True, slots=True)
class HostRam:
    """Host RAM one node of a training job needs, GB (1e9 B), and what it is made of."""

    states_gb: float  # offloaded / paged training state of the node's GPUs
    buffers_gb: float  # pinned staging buffers and allocator slack around it
    processes_gb: float  # one training process per GPU
    os_gb: float

    @property
    def total_gb(self) -> float:
        return self.states_gb + self.buffers_gb + self.processes_gb + self.os_gb


def host_ram_need(mem: TrainingMemory, gpus: int) -> HostRam:
    """The host RAM a node of ``gpus`` GPUs needs for the training memory ``mem`` (one GPU's): each GPU's
    process keeps its own offloaded shard (``offloaded_gb``: under ZeRO-3 / FSDP offload a shard of the
    parameters, gradients and optimizer states; under ZeRO-1/2 the master weights and optimizer states;
    under DDP a whole copy) and its spilled paged optimizer state; plus ``HOST_OFFLOAD_BUFFER_SHARE`` of
    that, ``HOST_PER_GPU_PROCESS_GB`` per GPU and ``HOST_OS_GB``."""
    states = (mem.offloaded_gb + mem.spilled_gb) * gpus
    return HostRam(states, states * HOST_OFFLOAD_BUFFER_SHARE, HOST_PER_GPU_PROCESS_GB * gpus, HOST_OS_GB)


def _offload_warning(setup: TrainingSetup, host: HostRam, gpus: int, host_s: float) -> str:
    """What offloading keeps in host RAM, and the total a node needs."""
    params = setup.sharding in PARAM_SHARDINGS
    if setup.adapters:
        what = "frozen base shards and adapter optimizer states" if params else "adapter optimizer states"
    elif params:
        what = "optimizer states, parameters and gradients"
    else:
        what = "optimizer states and master weights"
    return (
        f"{what} offloaded to host RAM: ~{host.total_gb:,.0f} GB of RAM per node "
        f"({host.states_gb:,.0f} GB offloaded + {host.buffers_gb:,.0f} GB pinned buffers + "
        f"{host.processes_gb + host.os_gb:,.0f} GB for the OS and {gpus} training process"
        f"{'es' if gpus != 1 else ''}), +{host_s:.1f} s per optimizer step"
    )


def _parallel_label(setup: TrainingSetup) -> str:
    """ "TP 4 x PP 2 x DP 8", or "1 GPU"."""
    degrees = (("TP", setup.tp), ("PP", setup.pp), ("CP", setup.cp), ("EP", setup.ep), ("DP", setup.dp))
    return " x ".join(f"{k} {v}" for k, v in degrees if v > 1) or "1 GPU"


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
    checkpointing: bool | str = True,
    precision: str = "bf16",
    nodes: int = 1,
    internode_gbps: float | None = None,
    optimizer_in_backward: bool = False,
    tp: int = 1,
    pp: int = 1,
    cp: int = 1,
    ep: int = 1,
    virtual_stages: int = 1,
    loss: str = "chunked",
    attention: str = "flash",
    attention_kernel: str = "current",
    no_sync_accumulation: bool = False,
    adapter_dtype: str = "16bit",
    require_fit: bool = False,
    calibration: TrainingCalibration | None = None,
) -> TrainingEstimate:
    """Estimate memory per GPU, speed and duration of training ``model`` on ``gpus`` x ``nodes`` ``gpu``.

    ``gpus`` is the number of GPUs per node; the job runs on ``gpus * nodes`` GPUs as
    ``tp x pp x cp`` model-parallel replicas, data parallel over the rest (``ep`` experts-parallel
    inside the data x context parallel GPUs). ``micro_batch`` sequences of ``seq_len`` tokens per
    replica and micro-step, ``grad_accum`` micro-steps per optimizer step. ``tokens`` is the training
    set size in tokens (the run trains ``tokens * epochs`` tokens). ``internode_gbps`` is the network
    bandwidth per node in GB/s (not Gbit/s). ``checkpointing``: True/"full", "selective", False/"none".
    ``loss``: "chunked" (fused / chunked cross-entropy) or "hf" (Hugging Face's unchunked fp32 loss).
    ``attention``: "flash" (FlashAttention / SDPA memory-efficient) or "eager" (scores materialised).
    ``attention_kernel``: the flash kernel's generation, "current" (FlashAttention-3 / cuDNN on Hopper and
    datacenter Blackwell, FlashAttention-2 elsewhere) or "fa2" (a kernel written for Ampere's mma.sync:
    half the attention efficiency on Hopper and datacenter Blackwell; see estimate.training_kernels).
    ``sharding``: "none" (DDP), "zero1", "zero2", "zero3", "fsdp" (per-parameter: FSDP2) or "fsdp1"
    (flat parameters: LoRA's frozen base gets gradients). ``no_sync_accumulation``: the step's
    micro-batches accumulate unsharded gradients (FSDP ``no_sync``, Accelerate's default for FSDP).
    ``adapter_dtype`` (LoRA / QLoRA only; ignored by full fine-tuning and pre-training): "16bit", the
    adapters in the compute dtype (as under torch amp autocast, torchtune, NeMo / Megatron), or "fp32",
    PEFT's default on a bf16 / fp16 base without autocast (``get_peft_model`` casts the adapters to fp32
    and LoRA runs its chain on fp32 copies of each adapted matrix's input): 4 B per input element and
    token kept without checkpointing, fp32 adapter traffic and FLOPs (said in the assumptions).
    ``calibration`` replaces the fitted constants (the accuracy benchmark refits them).
    """
    spec = resolve_model_arg(model)
    require_language_model(spec)  # fine-tuning and pre-training here are of language models
    acc = resolve_gpu_arg(gpu)
    gpus = int_in("gpus", gpus, 1, 4096, error=ConfigurationRejected)
    # "A100" read as one of its variants, an MI250X module as its 2 GPUs
    acc, gpus, variant = as_software_sees(gpu, acc, gpus)
    nodes = int_in("nodes", nodes, 1, MAX_NODES, error=ConfigurationRejected)  # the workload's too
    grad_accum = int_in("grad_accum", grad_accum, 1, MAX_GRAD_ACCUM)
    epochs_f = positive_float("epochs", epochs, MAX_EPOCHS)  # a fine-tuning workload's limits
    tokens_f = None if tokens is None else positive_float("tokens", tokens, MAX_TOKENS)
    inter_gbps = (
        default_internode_gbps(acc, gpus)
        if internode_gbps is None
        else positive_float("internode_gbps", internode_gbps, MAX_INTERNODE_GBPS)
    )
    for flag_name, flag in (
        ("cpu_offload", cpu_offload),
        ("optimizer_in_backward", optimizer_in_backward),
        ("no_sync_accumulation", no_sync_accumulation),
        ("require_fit", require_fit),
    ):
        if not isinstance(flag, bool):
            raise InvalidInputError(flag_name, f"must be true or false, got {quoted_value(flag)}")
    if attention_kernel not in ATTENTION_KERNELS:
        raise InvalidInputError(
            "attention_kernel",
            f"unknown value {quoted_value(attention_kernel)}",
            accepted=", ".join(ATTENTION_KERNELS),
        )
    world = gpus * nodes
    setup = validate_setup(
        TrainingSetup(
            method=method,
            seq_len=seq_len,
            micro_batch=micro_batch,
            lora_rank=lora_rank,
            lora_targets=lora_targets,
            optimizer=optimizer,
            sharding=sharding,
            cpu_offload=cpu_offload,
            checkpointing=checkpointing,
            precision=precision,
            world=world,
            optimizer_in_backward=optimizer_in_backward,
            tp=tp,
            pp=pp,
            cp=cp,
            ep=ep,
            virtual_stages=virtual_stages,
            grad_accum=grad_accum,
            loss=loss,
            attention=attention,
            no_sync_accumulation=no_sync_accumulation,
            adapter_dtype=adapter_dtype,
        )
    )
    layout = model_layout(spec)
    if setup.lora_rank >= spec.hidden_size and setup.adapters:
        raise InvalidInputError(
            "lora_rank",
            f"rank {setup.lora_rank} is not below the hidden size {spec.hidden_size}",
            accepted=f"1..{spec.hidden_size - 1}",
        )
    _check_layout(spec, setup, gpus)
    if spec.linear_layers:
        raise ConfigurationRejected("model", *linear_attention_training_refusal(spec))
    cal = calibration or CALIBRATION
    warnings: list[str] = [variant] if variant else []

    platform = _platform_check(setup, acc)  # refuses a platform PyTorch training cannot run on
    rates = _gemm_rates(setup, acc, warnings)
    warnings += platform.warnings
    eager_by_default = training_attention_note(spec, setup.attention)  # Gemma 2, gpt-oss under HF
    if eager_by_default:
        warnings.append(eager_by_default)
    rate, rate16, fp8_native, stored = rates.rate, rates.rate16, rates.fp8_native, rates.stored_bytes

    # --- memory -------------------------------------------------------------------------------------
    capacity_gb = capacity_bytes(acc) / GB
    mem = training_memory(spec, setup, capacity_gb, validated=True)
    if not mem.fits and require_fit:
        raise ConfigurationRejected(
            "gpu",
            f"does not fit: needs {gib(mem.breakdown.total_gb):.1f} GiB per GPU, "
            f"{acc.name} has {gib(capacity_gb):.1f} GiB ({mem.binding_constraint})",
            accepted="more GPUs, sharding, checkpointing or a smaller micro-batch",
        )
    assumptions = _memory_notes(spec, setup, mem, acc, capacity_gb, warnings)
    runtime = device_runtime(acc.vendor)  # "CUDA context" is a HIP (ROCm) one on an AMD card
    assumptions = {k: on_runtime(v, runtime) for k, v in assumptions.items()}

    # --- speed ----------------------------------------------------------------------------------------
    # host-staged where the GPUs lack peer access; the nodes' network is the Fabric's own
    link = collective_link(acc, gpus, in_one_node=True)
    fabric = Fabric(link, gpus, nodes, inter_gbps)
    b = mem.breakdown
    param_bytes = 4.0 if setup.precision == "fp32" else 2.0
    if setup.adapters and stored:
        param_bytes = stored
    inputs = SpeedInputs(
        acc=acc,
        fabric=fabric,
        mm_tflops=rate.tflops,
        attn_tflops=rate16.tflops,
        precision_class="fp8" if fp8_native else "16bit",
        stored_bytes=stored,
        grad_accum=grad_accum,
        # what the optimizer step reads and writes: the trained weights, their gradients and states
        opt_bytes=((b.adapters_gb if setup.adapters else b.weights_gb + b.gradients_gb) + b.optimizer_gb)
        * GB,
        trainable=float(mem.trainable_params),
        param_bytes=param_bytes,
        spilled_gb=mem.spilled_gb,
        nodes=nodes,
        attention_kernel=attention_kernel,
        # fp32 adapters: their FLOPs at the FP32 (non-tensor) rate, TF32 being off in PyTorch by default
        adapter_tflops=(acc.fp32_tflops or 0.0) if setup.fp32_adapters else 0.0,
    )
    flops = training_flops(spec, layout, setup)
    st = step_time(spec, layout, setup, inputs, cal, flops)
    host = host_ram_need(mem, gpus)
    assumptions["host_ram"] = (
        f"{host.total_gb:,.0f} GB of host RAM per node: {host.states_gb:,.0f} GB offloaded or paged training "
        f"state + {HOST_OFFLOAD_BUFFER_SHARE:.0%} pinned buffers + {HOST_PER_GPU_PROCESS_GB:g} GB per "
        f"training process ({gpus}) + {HOST_OS_GB:g} GB for the OS"
    )
    if setup.cpu_offload:
        warnings.append(_offload_warning(setup, host, gpus, st.host_s))
    if st.launch_bound:
        warnings.append(
            f"host-bound: launching a micro-step's kernels takes longer than the GPU work at micro-batch "
            f"{setup.micro_batch} x {setup.seq_len:,} tokens; a larger micro-batch (or {runtime.graphs} / "
            "torch.compile) keeps the GPU busier"
        )
    tokens_per_step = setup.micro_batch * setup.seq_len * grad_accum * setup.dp
    tokens_per_s = tokens_per_step / st.total_s
    mfu = flops.model * tokens_per_s / (rate.tflops * 1e12 * world)
    time_s = None if tokens_f is None else tokens_f * epochs_f / tokens_per_s
    if setup.method == "pretrain" and tokens_f is not None:
        few = few_steps_warning(tokens_f * epochs_f, tokens_per_step)
        if few:
            warnings.append(few)
        optimal = optimal_batch(spec, setup.seq_len, tokens_f * epochs_f)
        past = past_optimal_warning(tokens_per_step, optimal, setup.micro_batch, grad_accum)
        if past:
            warnings.append(past)
        assumptions["global_batch"] = (
            f"{tokens_per_step:,} tokens per optimizer step "
            f"({pretrain_steps(tokens_f * epochs_f, tokens_per_step):,.0f} steps); "
            f"{token_count(optimal.tokens)} is {optimal.words()}"
        )
    const = cal.constants(inputs.precision_class)
    attn_share = attention_kernel_share(acc, attention_kernel) if setup.attention == "flash" else 1.0
    peak_name = "FP8" if fp8_native else rate.rate_name
    assumptions["efficiency"] = (
        f"weight GEMMs at {const.gemm_efficiency:.0%} of the {rate.tflops:g} TFLOPS {peak_name} peak, "
        f"attention at {cal.attention_efficiency * attn_share:.0%} of {rate16.tflops:g}, element-wise "
        f"{const.elementwise_bytes:g} B per token, layer and hidden unit at {acc.bandwidth_gbps:g} GB/s "
        "(fitted on published runs; see estimate.training_speed.CALIBRATION)"
    )
    assumptions["flops"] = (
        f"{flops.hardware / 1e9:.1f} GFLOP per token executed "
        f"({flops.model / 1e9:.1f} model FLOPs, PaLM convention; checkpointing "
        f"{setup.recompute})"
    )
    # calibrated where the constants' fit has training runs on this generation (A100, L40S, H100 / H200,
    # B200, B300 in benchmarks/data/measurements.csv): see gpuscout.knowledge.calibration_coverage
    speed_calibrated = coverage.speed_calibrated(acc, "training")
    if not speed_calibrated:
        warnings.append(coverage.uncalibrated_warning(acc, "training"))
    assumptions.update({f"speed_{k}": v for k, v in st.notes.items()})
    if world > 1:
        assumptions["communication"] = f"{setup.dp} data-parallel replicas via {fabric.intra.label}" + (
            f" and {inter_gbps:g} GB/s per node between {nodes} nodes" if nodes > 1 else ""
        )
        if nodes > 1 and internode_gbps is None:
            warnings.append(f"inter-node bandwidth not given; assumed {inter_gbps:g} GB/s per node")
        if link.kind == "pcie" and nodes == 1 and setup.dp * setup.tp > 1:
            warnings.append(PCIE_EXCHANGE_WARNING)
            if lacks_peer_access(acc):
                warnings.append(
                    f"{acc.full_name or acc.name} cards have no GPU peer-to-peer access: NCCL stages the "
                    "gradient and parameter exchange through host memory (timed at "
                    f"{HOST_STAGED_SHARE:.0%} of the PCIe bandwidth, an assumption; no calibration row "
                    "measures it)"
                )
    breakdown = {
        "gemm": st.gemm_s,
        "attention": st.attention_s,
        "memory_bound": st.memory_s,
        "communication": st.communication_s,
        "pipeline_bubble": st.bubble_s,
        "host": st.host_s,
    }
    return TrainingEstimate(
        model=spec.name,
        gpu=acc.name,
        gpus=gpus,
        nodes=nodes,
        method=setup.method,
        fits=mem.fits,
        binding_constraint=mem.binding_constraint,
        memory=b,
        tokens_per_s=tokens_per_s,
        time_s=time_s,
        mfu=mfu,
        flops_per_token=flops.hardware,
        step_time_s=st.total_s,
        tokens_per_step=tokens_per_step,
        trainable_params=mem.trainable_params,
        total_params=mem.total_params,
        assumptions=assumptions,
        warnings=warnings,
        binding_resource=st.binding if mem.fits else "memory capacity",
        step_breakdown_s=breakdown,
        model_flops_per_token=flops.model,
        parallel=_parallel_label(setup),
        host_ram_gb_per_node=host.total_gb,
        speed_calibrated=speed_calibrated,
    )
