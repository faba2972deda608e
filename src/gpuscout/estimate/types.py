"""Typed results of the estimator. Every result carries its assumptions and warnings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Memory needed **per GPU**, in GB (1e9 bytes)."""

    weights_gb: float
    kv_cache_gb: float
    activations_gb: float  # activation / workspace peak incl. logits buffer
    overhead_gb: float  # CUDA context, allocator fragmentation, engine reserve
    optimizer_gb: float = 0.0  # training: optimizer state
    gradients_gb: float = 0.0  # training: gradients
    adapters_gb: float = 0.0  # LoRA / QLoRA adapter weights (+ their grads/optimizer)
    usable_gb: float = 0.0  # what the engine may use on this GPU (after gpu_memory_utilization)
    capacity_gb: float = 0.0  # the GPU's memory
    kv_bytes_per_token: float = 0.0  # whole model, all layers, before TP sharding
    # the whole model's weights in this format, one copy (a checkpoint's size); differs from
    # ``weights_gb`` x GPUs where some weights sit whole on every GPU (data-parallel attention) or in
    # host memory (llama.cpp's token embedding). 0: not computed (see ``model_weights_total_gb``)
    model_weights_gb: float = 0.0
    # the weights all the GPUs of one replica hold together where that is not ``weights_gb`` x GPUs: a
    # whole-layer split, whose ``weights_gb`` is its fullest GPU's (0: ``weights_gb`` x GPUs)
    gpus_weights_gb: float = 0.0
    # a whole-layer split: the cache all its GPUs hold together, and what they lack together (each GPU's
    # need past its usable memory summed: the fullest's alone where only it overflows); 0 otherwise, where
    # every GPU holds ``kv_cache_gb`` and lacks ``total_gb - usable_gb`` (the ``*_total_gb`` methods)
    gpus_kv_cache_gb: float = 0.0
    gpus_short_gb: float = 0.0
    # whether the engine keeps the sliding-window layers of a model mixing them with full ones (Gemma 2/3,
    # gpt-oss) at their window; False: every layer holds the whole context (vLLM before 0.9.1, TGI)
    kv_layer_windows: bool = True

    def model_weights_total_gb(self, gpus: int) -> float:
        """The model's weights counted once, for a run on ``gpus`` GPUs that each hold ``weights_gb``."""
        return self.model_weights_gb or self.weights_gb * gpus

    def gpus_weights_total_gb(self, gpus: int) -> float:
        """The weights the ``gpus`` GPUs of one replica hold together (the model's, less what stays in host
        memory; more where some sit whole on every GPU)."""
        return self.gpus_weights_gb or self.weights_gb * gpus

    def gpus_kv_cache_total_gb(self, gpus: int) -> float:
        """The cache the ``gpus`` GPUs of one replica hold together."""
        return self.gpus_kv_cache_gb if self.gpus_weights_gb else self.kv_cache_gb * gpus

    def gpus_short_total_gb(self, gpus: int) -> float:
        """What the ``gpus`` GPUs of one replica lack together to hold their share (0 where each fits): a
        whole-layer split's GPUs each their own, the others each the same."""
        if self.gpus_weights_gb:
            return self.gpus_short_gb
        return max(0.0, self.total_gb - self.usable_gb) * gpus

    @property
    def total_gb(self) -> float:
        return (
            self.weights_gb
            + self.kv_cache_gb
            + self.activations_gb
            + self.overhead_gb
            + self.optimizer_gb
            + self.gradients_gb
            + self.adapters_gb
        )


@dataclass(frozen=True, slots=True)
class FitOption:
    """One setup that would hold one sequence where an estimate does not fit (:attr:`Estimate.fit_options`):
    ``format`` on ``gpus`` x ``gpu``, sized at ``per_gpu_gib`` GiB per GPU. ``parallel``: the split it
    is sized for where it takes more GPUs than asked ("tensor" or "layer"), "" where it keeps the setup's
    own GPUs and split (a narrower format, or ``flags``). ``text`` is made from the rest, as
    ``assumptions["would_fit"]`` says it: "bf16 on 8 x RTX4090 (tensor parallel, 18.1 GiB per GPU)", "int4 on
    1 x A100-SXM4-80GB (38.2 GiB per GPU)", "int4 on 2 x RTX4090 started with --gpu-memory-utilization 0.95
    (21.2 GiB per GPU)"."""

    format: str  # the weight format as the engine names it ("gguf-q4_k_m")
    gpus: int
    gpu: str
    parallel: str
    per_gpu_gib: float
    # launch flags the setup needs besides ("--gpu-memory-utilization 0.95": the setup asked, with a larger
    # memory budget), "" for none
    flags: str = ""
    text: str = field(init=False, default="")

    def __post_init__(self) -> None:
        split = f"{self.parallel} parallel, " if self.parallel else ""
        started = f" started with {self.flags}" if self.flags else ""
        words = (
            f"{self.format} on {self.gpus} x {self.gpu}{started} ({split}{self.per_gpu_gib:.1f} GiB per GPU)"
        )
        object.__setattr__(self, "text", words)


@dataclass(frozen=True, slots=True)
class Estimate:
    """What ``gpuscout.estimate`` returns for one model on ``gpus`` x one accelerator.

    Speeds are at the load asked for (``concurrency`` / ``request_rate`` / ``batch``): ``ttft_ms`` and
    ``tpot_ms`` are means that include queueing and other requests' prefills; ``decode_tokens_per_s`` is
    one sequence's speed there (1000 / ``tpot_ms``). ``supported`` is False when the engine cannot run
    this precision on this accelerator, or refuses the split (tensor parallelism over a count that does
    not divide the attention heads) (``unsupported_reason`` says why, with the rule's source in
    ``assumptions["support"]`` and what would run in ``assumptions["alternatives"]``): every speed is
    then 0, never a guess. So it is when not one sequence of
    the context fits (``fits`` False, ``binding_constraint`` says what tips it over, ``memory`` is what
    one sequence needs, ``assumptions["would_fit"]`` what would hold it, in words, and ``fit_options`` the
    same setups as records). ``binding_limit`` names what
    sets the answer: "kv_cache", "scheduler" (the engine's cap on running sequences, max_num_seqs),
    "prefill", "queueing", "bandwidth", "compute", "overhead" (the step's fixed costs: kernel launches,
    CPU scheduling), "interconnect", "memory" (it does not fit) or "unsupported".
    """

    model: str
    gpu: str
    gpus: int
    precision: str
    engine: str
    task: str
    parallel: str
    batch: int  # concurrent sequences actually used (resolved when "max" was asked)
    context_in: int
    context_out: int
    kv_dtype: str
    fits: bool
    binding_constraint: str  # "fits", or what does not fit: "weights", "kv_cache", "activations"...
    memory: MemoryBreakdown
    max_batch: int  # largest concurrency that fits at this context, every request at its whole length
    decode_tokens_per_s: float  # per sequence
    output_tokens_per_s_total: float  # aggregate at ``batch``
    prefill_tokens_per_s: float
    ttft_ms: float
    bound: str  # "memory" or "compute" (for decode at this batch)
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    supported: bool = True
    unsupported_reason: str = ""
    # the input the refusal is about: "" for the support rules (this engine and precision on this GPU),
    # "gpus" for a layout the engine refuses (a tensor-parallel degree the heads do not divide)
    unsupported_field: str = ""
    support: str = "native"  # how the engine runs the precision here: native, weight-only, fallback-fp16...
    binding_limit: str = ""
    tpot_ms: float = 0.0  # mean time per output token after the first, at this load
    requests_per_s: float = 0.0
    concurrency: float = 0.0  # requests in flight (running + queued), all replicas
    queue_ms: float = 0.0  # mean wait before a request is admitted
    request_rate: float | None = None  # the open-loop arrival rate asked for, requests/s
    replicas: int = 1  # data-parallel copies of the model (``parallel="replicas"``)
    # one decode step at this load, ms: its "total" and the parts it is made of, which overlap (reads and
    # math run together, host work beside the GPU's): "memory" (weight and KV reads at the achieved
    # bandwidth), "compute" (math at the achieved rate), "interconnect" (tensor-parallel all-reduces,
    # layer-split hand-offs: :func:`step_parts` names it by the split), "fixed" (kernel launches,
    # scheduling). Empty when no step is timed.
    step_ms: dict[str, float] = field(default_factory=dict)
    # whether the decode steps at this load replay CUDA graphs (their fixed cost is then the GPU's gaps
    # between many small kernels, not Python launching them): False for an eager engine, or a batch
    # beyond the captured sizes
    cuda_graphs: bool = False
    # whether the engine's efficiencies were fitted on inference runs of this part's generation (the
    # calibration set measures Pascal, Turing, Ampere, Ada, Hopper, CDNA 2 and CDNA 3: a Blackwell, MI355X,
    # V100, TPU, Gaudi or Trainium speed is those efficiencies applied to its datasheet figures, and the
    # warnings say so); see ``gpuscout.knowledge.calibration_coverage``
    speed_calibrated: bool = True
    # what the speed leans on that no calibration row covers for this engine (and era), in a few words
    # each ("MoE layers", "fp8-block kernels"): the "uncalibrated" assumption's parts. Not empty, the
    # speed is not calibrated (``speed_calibrated`` False) whatever the GPU
    uncalibrated: tuple[str, ...] = ()
    # where one sequence does not fit: the setups that would hold it, as ``assumptions["would_fit"]``
    # names them (its text is made from these), more GPUs first, then a narrower format; empty otherwise
    fit_options: Sequence[FitOption] = ()
    # the most sequences one replica runs at once in a steady flow of staggered requests (what ``batch=
    # "max"`` runs), and what sets it: "kv_cache", "scheduler" (max_num_seqs) or "prefill" (the token
    # budget). Above ``max_batch`` where the engine's cache grows as requests generate (``kv_grows``)
    max_running: int = 0
    max_running_limit: str = ""
    # the engine allocates a request's KV cache as it generates (vLLM, SGLang): in a steady flow of
    # staggered requests each holds ``serving.steady_context`` tokens, not its whole length
    kv_grows: bool = False

    def step_summary(self) -> str:
        """'10.1 ms: reads 3.4, math 0.4, all-reduces 3.4, fixed costs 3.4' (parts under 0.05 ms left out;
        they overlap, so they need not add up to the total); "" when no step is timed."""
        if not self.step_ms:
            return ""
        parts = ", ".join(
            f"{label} {self.step_ms[key]:,.1f}"
            for key, label in step_parts(self.parallel)
            if self.step_ms.get(key, 0.0) >= 0.05
        )
        return f"{self.step_ms['total']:,.1f} ms: {parts}"


#: what a decode step's "interconnect" part is, by the split: a tensor split (and each replica's own
#: tensor split) all-reduces every layer's output; a layer split does no all-reduce, it hands the
#: activations from one GPU to the next at each boundary
INTERCONNECT_WORDS = {"tensor": "all-reduces", "replicas": "all-reduces", "layer": "hand-offs between GPUs"}


#: A step's fixed costs, as every face names them (the decode step's parts, the binding limit, diagnose,
#: the FAQ); the values are "overhead" (``Estimate.binding_limit``, ``Diagnosis.bound``) and "fixed"
#: (``Estimate.step_ms``). "scheduler" names only the engine's cap on running sequences (max_num_seqs).
FIXED_COSTS = "fixed costs"
FIXED_COSTS_WHAT = f"{FIXED_COSTS} per step (kernel launches, CPU scheduling)"

#: :attr:`Estimate.binding_limit` in words (the CLI, the warnings); the JSON keeps the values.
BINDING_WORDS = {
    "kv_cache": "KV cache memory",
    "scheduler": "the scheduler's cap on running sequences",
    "prefill": "prefill (prompt processing)",
    "queueing": "queueing (arrivals above capacity)",
    "bandwidth": "memory bandwidth",
    "compute": "compute",
    "overhead": FIXED_COSTS_WHAT,
    "memory": "memory (it does not fit)",
    "unsupported": "not supported",
}

#: What caps the running batch (``max_running_limit``, the load's cap) in words: "KV cache" for the
#: value "kv_cache", "prefill budget" for "prefill" (the tokens one step takes), "scheduler" as it is.
CAP_WORDS = {"kv_cache": "KV cache", "scheduler": "scheduler", "prefill": "prefill budget"}


def binding_words(limit: str, parallel: str = "tensor") -> str:
    """:attr:`Estimate.binding_limit` in words; "interconnect" named as the split moves data
    (:data:`INTERCONNECT_WORDS`: "all-reduces", "hand-offs between GPUs")."""
    if limit == "interconnect":
        return INTERCONNECT_WORDS.get(parallel, "all-reduces")
    return BINDING_WORDS.get(limit, limit.replace("_", " "))


def step_parts(parallel: str) -> tuple[tuple[str, str], ...]:
    """The parts of :attr:`Estimate.step_ms` (key, the words the CLI and the FAQ use) for an estimate of
    ``parallel`` (:attr:`Estimate.parallel`): the "interconnect" part named by :data:`INTERCONNECT_WORDS`."""
    return (
        ("memory", "reads"),
        ("compute", "math"),
        ("interconnect", INTERCONNECT_WORDS.get(parallel, "all-reduces")),
        ("fixed", FIXED_COSTS),
    )


@dataclass(frozen=True, slots=True)
class MemoryNeed:
    """What ``batch`` sequences of ``context`` tokens need in memory on each of ``gpus`` x ``gpu``
    (``gpuscout.estimate.api.memory_needed``), counted whole: where :class:`Estimate` caps a batch at
    what the KV cache holds (the rest queue), this is the memory the whole batch would take, and
    ``fits`` says whether it does. ``max_batch``: sequences of this context that do fit."""

    model: str
    gpu: str
    gpus: int
    precision: str
    engine: str
    batch: int
    context: int
    kv_dtype: str
    fits: bool
    binding_constraint: str  # "fits", what tips it over ("weights", "kv_cache", ...) or "unsupported"
    memory: MemoryBreakdown
    max_batch: int
    supported: bool = True
    assumptions: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """Why a measured decode speed is what it is (``gpuscout diagnose``)."""

    model: str  # the entry sized (``deepseek-v3`` for DeepSeek-R1)
    gpu: str
    gpus: int
    precision: str
    engine: str
    batch: int
    context: int
    measured_tps: float  # per sequence
    # "memory", "compute", "overhead" (neither limit is near), "host-offload" (the model does not fit:
    # what is held in host memory sets the speed) or "above-roofline" (faster than the datasheet allows
    # for this model, precision and batch: the figure measured something else)
    bound: str
    bytes_per_step: float  # per GPU
    flops_per_step: float  # per GPU
    # what the measured speed implies against the GPU's peaks; None where it does not fit and part of
    # each step was read from host memory (what the GPU itself read is not known); above the roofline,
    # what the figure would take
    achieved_bandwidth_gbps: float | None
    peak_bandwidth_gbps: float
    bandwidth_fraction: float | None
    achieved_tflops: float | None
    peak_tflops: float
    compute_fraction: float | None
    roofline_tps: float  # per sequence at 100 % of peak bandwidth and compute
    # gpuscout's estimate for this engine; None where it does not fit (no speed for a setup that does not
    # load, as ``estimate`` gives none)
    expected_tps: float | None
    verdict: str
    suggestions: list[str] = field(default_factory=list)
    assumptions: dict[str, str] = field(default_factory=dict)
    # what the answer assumed of the input: a GPU family name ("A100") read as one variant
    # (``knowledge.accelerators.assumed_variant_warning``), also said at the end of ``verdict``
    warnings: list[str] = field(default_factory=list)
    # whether one sequence of the context fits on the GPUs given, as ``estimate`` plans it; False: the
    # run measured held part of the model in host memory, ``verdict`` says so first, ``expected_tps``
    # is None (no estimate for a setup that does not load) and every suggestion is a setup that fits
    fits: bool = True
    memory: MemoryBreakdown | None = None  # the estimate's plan per GPU (one sequence where it does not fit)
    would_fit: str = ""  # where it does not fit: ``estimate``'s ``assumptions["would_fit"]``
    # where it does not fit: per-sequence tokens/s at most when the share held in host memory crosses
    # PCIe every step (``parallel.host_link_gbps``; 0 where a step reads nothing); layers run on the CPU
    # (llama.cpp) are not bound by it
    pcie_ceiling_tps: float = 0.0
    # the model as the user named it ("deepseek-r1 (as deepseek-v3)"; ``model`` where that is the entry)
    label: str = ""
