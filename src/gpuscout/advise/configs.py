"""The minimum configuration of an offer that runs a workload, and what the estimator predicts for it.

This module holds what every workload kind shares (``ConfigEval``, ``ConfigKey``, the
``WorkloadEvaluator`` protocol and its base class); the evaluators of each kind live in
:mod:`.inference_configs` (serve, batch tokens, batch images) and :mod:`.training_configs`, and
:func:`gpuscout.advise.evaluators.evaluator_for` picks one.

A *configuration* depends on the accelerator, the GPUs per instance, the intra-node fabric and whether
an inter-node fabric is stated, never on the price: ``ConfigKey`` captures exactly that, so the
(expensive) estimates run once per distinct key rather than once per offer.

Rules:
- serving and batch inference: per instance, ``replicas`` copies of the model each sharded ``tp`` ways
  (``tp`` a power of two dividing the instance's GPUs). The smallest ``tp`` that fits and meets the
  latency targets is used unless a larger one needs fewer instances ("one fast GPU per replica beats a
  split model"). More load than one instance sustains -> more instances (independent replicas).
- fine-tuning and pre-training: all the instance's GPUs work together (data parallel / sharded); more
  than one instance only with an inter-node fabric stated for the offer.
- GPUs talk over the fabric the source states; an NVLink-class part in a box listed as PCIe, or whose
  fabric the source does not state, is costed over PCIe (``fabric_accelerator``) and the row says so.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends
from gpuscout.advise.types import EstimateSummary
from gpuscout.advise.workload import AnyWorkload
from gpuscout.catalog.offer import Interconnect, Offer
from gpuscout.errors import GpuscoutError
from gpuscout.estimate.parallel import host_pcie_generation
from gpuscout.estimate.types import Estimate, MemoryBreakdown
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.accelerators import software_devices

#: PCIe x16 between GPUs of a box without NVLink, bidirectional GB/s as datasheets quote it, per generation
PCIE_X16_GBPS = {3: 32.0, 4: 64.0, 5: 128.0}

ConfigKey = tuple[str, int, str, bool]

#: Why a configuration is rejected, by kind (``ConfigEval.reject_kind``): what the binding-constraint
#: diagnosis counts when no offer passes.
REJECT_KINDS: tuple[str, ...] = (
    "unknown-gpu",  # the offer's accelerator is not in the knowledge table
    "unsupported",  # the engine cannot run the precision on this hardware (support rules)
    "fit",  # the model (and its KV cache / training state) does not fit the instance
    "headroom",  # training fits with less memory headroom than the stated margin
    "latency",  # serving misses the latency targets even at one user per replica
    "instances",  # more instances than the advisor proposes
    "fabric",  # multi-node training without a stated inter-node fabric
    "volume",  # serving: the users stated cannot generate the monthly volume stated, one per replica
    "estimator",  # the estimator refused this configuration for another reason
)


def config_key(offer: Offer) -> ConfigKey:
    """What a configuration depends on: accelerator, GPUs per instance, intra-node fabric, inter-node."""
    return (offer.accelerator, offer.gpu_count, offer.interconnect, bool(offer.internode))


@dataclass(frozen=True, slots=True)
class ConfigEval:
    """The chosen configuration for one ``ConfigKey`` and its predicted performance."""

    key: ConfigKey
    fits: bool
    rejected: str | None  # why this configuration cannot run the workload
    accelerator: Accelerator | None
    instances: int = 1
    tp: int = 1
    replicas_per_instance: int = 1
    gpus_per_instance: int = 1
    nodes: int = 1
    summary: EstimateSummary | None = None
    time_s: float = 0.0  # job runtime at ``instances``; serve: active seconds per day
    download_gb_per_instance: float = 0.0  # weights (+ dataset) fetched once per instance
    # batch: GB of input the instances split between them (``advise.cost.split_dataset_gb``): each fetches
    # its share, ``split_data_gb / instances``, which ``download_gb_per_instance`` includes
    split_data_gb: float = 0.0
    # weights loaded into GPU memory at each start; for training, the model's weights as fetched (its
    # checkpoint's own format: DeepSeek-V3's FP8, gpt-oss's MXFP4 experts), though pre-training loads none
    # at start (advise.cost.start_weights_gb)
    load_gb: float = 0.0
    # training: GB of the trained weights a full run leaves (bf16 unless the workload says); None: ``load_gb``
    output_weights_gb: float | None = None
    checkpoint_gb: float = 0.0
    # training: seconds between the run's checkpoints on on-demand capacity (the workload's, or Young's for
    # its GPUs' failures: ``cost.checkpoint_interval_s``; inf: none within the run); None otherwise
    checkpoint_interval_s: float | None = None
    # training: why no more nodes were tried ("16 nodes or more would train in fewer than 2,000 optimizer
    # steps ..."), said where a deadline leaves the row out; "" otherwise
    wider_refused: str = ""
    output_tokens: float = 0.0  # serve: per month; batch: total
    images: float = 0.0
    train_tokens: float = 0.0
    estimate: Estimate | None = None  # the inference estimate at the operating point
    pcie_tp_slowdown: float | None = None  # decode speed lost to PCIe vs the accelerator's NVLink
    warnings: tuple[str, ...] = ()
    cap_batch: int = 0  # serve: users one replica takes (before spreading the load)
    detailed: bool = True  # serve: False until ``Evaluator.detail`` adds the operating point
    split_why: str | None = None  # why the model is split (tp > 1) as it is, rather than on one GPU
    # the tp GPUs hold whole layers, not TP shards: they take turns (llama.cpp, HF transformers) or, where
    # ``parallel`` is "pipeline", each works on a batch of its own
    layer_split: bool = False
    reject_kind: str = ""  # one of REJECT_KINDS when ``rejected``
    fabric_assumed: bool = False  # GPUs work together over a fabric the source does not state (PCIe assumed)
    substitution: str | None = None  # what differs from what was asked (engine, precision, GPU count)
    training: str = ""  # fine-tuning / pre-training: how the GPUs share the work (sharding, offload, batch)
    # training: ``Config.parallel`` ("data", "fsdp", "zero1".."zero3", "none"); inference: "pipeline" where
    # the advisor chose a pipeline over the engine's own split (tensor parallel), else "" (tensor or layer,
    # from ``layer_split``)
    parallel: str = ""
    # serve: the fewest GPUs of this model that carry the load within the targets, over the splits tried
    # (replicas of ``tp`` GPUs, on any number of instances); 0 where a job's GPUs all shorten it
    gpus_needed: int = 0
    # training with a node count to choose: the row a spot price runs, its count chosen with the reclaims
    # its nodes add (more nodes are stopped more often); None: the same as on demand
    on_spot: ConfigEval | None = None

    @property
    def gpus_used(self) -> int:
        """GPUs doing work: a serving or batch split that does not divide an instance's GPUs
        (:func:`tp_degrees`) leaves the rest idle; training uses every GPU of its nodes."""
        return self.instances * (self.gpus_per_instance - self.idle_gpus_per_instance)

    @property
    def rents_surplus(self) -> bool:
        """A serving configuration that rents more GPUs than its load needs (``gpus_needed``): its extra
        replicas, or its wider split, only shorten requests (it does not set the balanced pick's window)."""
        return 0 < self.gpus_needed < self.instances * self.gpus_per_instance

    @property
    def one_copy_gb(self) -> float:
        """GB of one copy of what an instance fetches, with the whole of the input its instances split
        (the weights and the dataset, as kept after a batch job)."""
        n = max(1, self.instances)
        return self.download_gb_per_instance + self.split_data_gb * (1.0 - 1.0 / n)

    @property
    def idle_gpus_per_instance(self) -> int:
        if self.training or self.summary is None or self.summary.throughput_unit == "img/s":
            return 0
        return max(0, self.gpus_per_instance - self.tp * self.replicas_per_instance)


def with_instances(ev: ConfigEval, k: int) -> ConfigEval:
    """``ev`` run on ``k`` instances rather than ``ev.instances``: a batch's instances work
    independently, so the work (and its time) divides by ``k``, the throughput multiplies by it, and each
    instance fetches its share of the input they split (``split_data_gb / k``)."""
    n = ev.instances
    summary = ev.summary
    if summary is not None:
        summary = dataclasses.replace(summary, throughput=summary.throughput * k / n)
    download = ev.download_gb_per_instance + ev.split_data_gb * (1.0 / k - 1.0 / n)
    return dataclasses.replace(
        ev, instances=k, time_s=ev.time_s * n / k, summary=summary, download_gb_per_instance=download
    )


def instances_for_split_deadline(
    time_1: float, split_gb: float, deadline_hours: float | None, warmup_s: float, a: Assumptions
) -> int:
    """:func:`instances_for_deadline` for a batch whose instances also split ``split_gb`` of input: each
    fetches its share before it works, which is divisible work like the job's own (``split_gb /
    download_gbps`` seconds on one instance); ``warmup_s`` is the rest of the warm-up (boot, the
    weights, any data every instance fetches whole)."""
    return instances_for_deadline(time_1 + split_gb / a.download_gbps, deadline_hours, warmup_s)


def reject(
    key: ConfigKey, acc: Accelerator | None, why: str, fits: bool = False, kind: str = "fit"
) -> ConfigEval:
    """A configuration that cannot run the workload, with why and the kind of reason (REJECT_KINDS)."""
    return ConfigEval(key=key, fits=fits, rejected=why, accelerator=acc, reject_kind=kind)


def known_ram(offer: Offer) -> float | None:
    """The offer's host RAM in GB, or None when it does not list a usable figure."""
    ram = offer.ram_gb
    return float(ram) if ram is not None and ram > 0 and math.isfinite(ram) else None


def reject_kind_of(why: str) -> str:
    """The kind of an estimator's refusal message (the diagnosis counts kinds)."""
    text = why.lower()
    if text.startswith("volume:"):
        return "volume"
    if "not supported" in text or "unsupported" in text or "cannot run" in text:
        return "unsupported"
    if "fit" in text or "memory" in text or "oom" in text:
        return "fit"
    return "estimator"


def tp_degrees(gpu_count: int) -> list[int]:
    """Tensor-parallel degrees tried on an instance: the powers of two up to its GPU count (a split must
    also divide the model's attention heads, which the estimator checks: Qwen2.5-7B's 28 heads take 1, 2
    and 4; a 40-head model could also split 5 or 10 ways, which is not tried). One that does not divide
    the count leaves GPUs idle,
    paid for: 10 GPUs run one TP8 replica and 2 idle (or five TP2 replicas), 3 GPUs one TP2 replica
    and 1 idle."""
    out = []
    t = 1
    while t <= gpu_count:
        out.append(t)
        t *= 2
    return out


_NVLINK = Interconnect.NVLINK.value
_UNSTATED = Interconnect.UNKNOWN.value
_ON_PCIE: dict[Accelerator, Accelerator] = {}  # NVLink-class part -> the same part talking over PCIe


def fabric_accelerator(acc: Accelerator, interconnect: str) -> Accelerator:
    """The accelerator as installed in the offer: an NVLink part in a box listed as PCIe talks over PCIe
    (of its own generation: a V100 box Gen3, an H100 box Gen5), and so does one whose fabric the source
    does not state (an unstated NVLink is never assumed)."""
    if interconnect != _NVLINK and acc.has_nvlink_class_fabric:
        pcie = _ON_PCIE.get(acc)
        if pcie is None:
            gen = host_pcie_generation(acc)
            pcie = _ON_PCIE[acc] = dataclasses.replace(
                acc, interconnect=f"PCIe Gen{gen} x16", interconnect_gbps=PCIE_X16_GBPS.get(gen, 64.0)
            )
        return pcie
    return acc


def fabric_unstated(key: ConfigKey, gpus_together: int) -> bool:
    """Whether ``gpus_together`` GPUs of this offer exchange data over a fabric its source does not state."""
    return gpus_together > 1 and key[2] == _UNSTATED


class WorkloadEvaluator(Protocol):
    """Evaluates the configurations of one workload (one implementation per workload kind): the
    minimum configuration of an offer that runs it, and its predicted performance, memoised per
    ``ConfigKey``. ``detail`` adds what the trade-off needs (serve's operating point), ``complete``
    what only a shown row needs (serve's sustainable load)."""

    estimator_calls: int
    #: whether an offer's evaluation depends on its host RAM (``Offer.ram_gb``) besides its ``ConfigKey``
    #: and ``memo_extra``: the ranking then memoises per RAM figure too
    host_ram_matters: bool

    def evaluate(self, offer: Offer) -> ConfigEval: ...

    def detail(self, ev: ConfigEval) -> ConfigEval: ...

    def complete(self, ev: ConfigEval) -> ConfigEval: ...


W = TypeVar("W", bound=AnyWorkload)


class BaseEvaluator(Generic[W]):
    """What every kind's evaluator shares: accelerator look-ups, the fabric as installed, and one
    evaluation per ``ConfigKey`` (and ``memo_extra``, where a kind's configuration depends on more of
    the offer). A kind implements ``_configure`` (or ``_configure_for``, given the extra)."""

    host_ram_matters = False

    def __init__(self, workload: W, backends: Backends, assumptions: Assumptions) -> None:
        self.w: W = workload
        self.be = backends
        self.a = assumptions
        self._acc: dict[str, Accelerator | None] = {}
        self._acc_err: dict[str, str] = {}
        self._configs: dict[tuple[ConfigKey, Hashable], ConfigEval] = {}  # per (key, memo_extra)
        self.estimator_calls = 0

    def accelerator(self, name: str) -> Accelerator | None:
        if name not in self._acc:
            try:
                self._acc[name] = self.be.accelerator(name)
            except GpuscoutError as exc:
                self._acc[name] = None
                self._acc_err[name] = str(exc)
        return self._acc[name]

    def evaluate(self, offer: Offer) -> ConfigEval:
        return self._evaluated(config_key(offer), self.memo_extra(offer))

    def memo_extra(self, offer: Offer) -> Hashable:
        """What an offer's configuration depends on besides its ``ConfigKey`` (a kind's hook: training's
        stated inter-node bandwidth): offers that differ in it are evaluated apart, and ``_configure_for``
        is given it. None, nothing, by default."""
        return None

    def _evaluated(self, key: ConfigKey, extra: Hashable) -> ConfigEval:
        """The evaluation of ``key`` for the offers whose ``memo_extra`` is ``extra``, once per pair."""
        ev = self._configs.get((key, extra))
        if ev is None:
            acc = self.accelerator(key[0])
            if acc is None:
                ev = reject(key, None, f"unknown accelerator {key[0]!r}", kind="unknown-gpu")
            else:
                # a module software sees as several GPUs (an MI250X: 2 GCDs) is configured as those GPUs
                device, devices, _ = software_devices(acc, key[1])
                as_seen = key if device is acc else (device.name, devices, key[2], key[3])
                ev = self._configure_for(as_seen, fabric_accelerator(device, key[2]), extra)
                note = self.substitution_for(acc)
                if note is not None and ev.rejected is None:
                    ev = dataclasses.replace(ev, substitution=note)
                elif note is not None:  # what was tried instead fails too: say both
                    ev = dataclasses.replace(ev, rejected=f"{ev.rejected} ({self._fallback_failed(acc, ev)})")
            self._configs[(key, extra)] = ev
        return ev

    def substitution_for(self, acc: Accelerator) -> str | None:
        """What was changed (engine, precision) so the workload runs on ``acc``; None when nothing was."""
        return None

    def fallback_for(self, acc: Accelerator) -> tuple[str, str] | None:
        """(what was asked and does not run on ``acc``, what runs in its place): ("vllm does not run bf16
        on V100-SXM2-16GB", "llama.cpp with GGUF BF16/F16 (native)"); None where nothing was changed."""
        return None

    def _fallback_failed(self, acc: Accelerator, ev: ConfigEval) -> str:
        """What a rejection caused by the run put in place of the one asked adds: "vllm does not run bf16
        on V100-SXM2-16GB; with the fallback, llama.cpp with GGUF BF16/F16 (native), it still does not
        fit" ("runs llama.cpp … instead" after "does not fit" read as if the row ran)."""
        fallback = self.fallback_for(acc)
        if fallback is None:  # a kind that says no more than its note
            return self.substitution_for(acc) or ""
        asked, instead = fallback
        still = "it still does not fit" if ev.reject_kind == "fit" else "it is still left out"
        return f"{asked}; with the fallback, {instead}, {still}"

    def _configure_for(self, key: ConfigKey, acc: Accelerator, extra: Hashable) -> ConfigEval:
        """The configuration of ``key`` on ``acc`` (as installed) for offers whose ``memo_extra`` is
        ``extra``; a kind with no such extra implements ``_configure`` instead."""
        return self._configure(key, acc)

    def _configure(self, key: ConfigKey, acc: Accelerator) -> ConfigEval:
        raise NotImplementedError

    def detail(self, ev: ConfigEval) -> ConfigEval:
        """``ev`` with what the trade-off needs (serve: the operating point); jobs have it already."""
        return ev

    def complete(self, ev: ConfigEval) -> ConfigEval:
        """``ev`` with what only a shown row needs (serve: the load it sustains)."""
        return self.detail(ev)


def job_warmup_s(download_gb: float, load_gb: float, a: Assumptions) -> float:
    """Seconds a job's instance spends before its work starts: boot, download (weights and data), load."""
    return a.boot_s + download_gb / a.download_gbps + load_gb / a.load_gbps


def instances_for_deadline(time_1: float, deadline_hours: float | None, warmup_s: float = 0.0) -> int:
    """Instances needed to finish work that takes ``time_1`` seconds on one within the deadline, each
    spending ``warmup_s`` before it starts working (0 when the warm-up alone reaches the deadline: no
    number of instances meets it)."""
    if deadline_hours is None:
        return 1
    working = deadline_hours * 3600.0 - warmup_s
    if working <= 0:
        return 0
    return max(1, math.ceil(time_1 / working - 1e-9))


def deadline_reject(
    key: ConfigKey, acc: Accelerator, inst: int, warm_s: float, max_instances: int
) -> ConfigEval:
    """A row out for its deadline: the warm-up alone reaches it (``inst`` 0), or it needs more than
    ``max_instances`` instances."""
    from gpuscout.advise.reasons import duration

    if inst <= 0:
        why = f"the warm-up alone (boot, download, load: {duration(warm_s)}) reaches the deadline"
        return reject(key, acc, why, fits=True, kind="instances")  # no number of instances meets it
    why = f"deadline needs {inst} instances (> {max_instances})"
    return reject(key, acc, why, fits=True, kind="instances")


def split_why(alone: str) -> str:
    """Why one GPU was not enough, from what the single-GPU attempt returned."""
    if alone.endswith(("instance", "instances")):
        return f"one GPU per replica would need {alone}"
    if "latency" in alone:
        return "one GPU misses the latency target"
    if alone.startswith("volume:"):  # the users stated cannot generate the volume one GPU per replica
        return "one GPU per replica is too slow for the users stated to generate the monthly volume"
    what = alone.removeprefix("does not fit: ").replace("_", " ") or "the model"
    return f"{what} do not fit one GPU" if what == "weights" else f"{what} does not fit one GPU"


def capacity_gb(memory: MemoryBreakdown, acc: Accelerator) -> float:
    """The GPU memory the estimator sized against (GB, 1e9 B), else the datasheet figure."""
    return memory.capacity_gb if memory.capacity_gb > 0 else acc.memory_gb


def memory_headroom(memory: MemoryBreakdown, acc: Accelerator) -> float:
    """Share of the GPU's memory a layout leaves free (what a training layout is held to:
    ``Assumptions.min_training_headroom``)."""
    cap = capacity_gb(memory, acc)
    return 1.0 - memory.total_gb / cap if cap > 0 else 0.0


def tpot_ms(e: Estimate) -> float:
    """Mean time per output token at the estimate's load (the estimator's figure when it gives one)."""
    given = float(getattr(e, "tpot_ms", 0.0) or 0.0)
    if given > 0:
        return given
    return 1000.0 / e.decode_tokens_per_s if e.decode_tokens_per_s > 0 else math.inf


def request_latency_s(e: Estimate, output_tokens: int) -> float:
    """Seconds one request takes: time to first token + the output at this decode speed."""
    return e.ttft_ms / 1000.0 + output_tokens * tpot_ms(e) / 1000.0
