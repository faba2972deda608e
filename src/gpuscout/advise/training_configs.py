"""The evaluator of fine-tuning and pre-training: all the instance's GPUs work together (data parallel
or sharded); more than one instance only with an inter-node fabric stated for the offer. Data parallel
first, then FSDP, then FSDP with the optimizer and parameters offloaded to host RAM, each with no, selective
or full activation checkpointing, and (unless the workload fixes it) 1, 2, 4... sequences per GPU per
step while a doubling still pays: the fastest layout that fits is the row's. A pre-training run's
micro-batch keeps its global batch within ``batch_limits.batch_limit`` (the step floor and the compute-optimal
batch, or the workload's ``global_batch_tokens``); node counts past it are not tried.

A layout whose memory leaves less than ``Assumptions.min_training_headroom`` (5 %) of the GPU free
does not count as fitting: activation peaks, allocator fragmentation and a longer batch than average
turn such a run into an out-of-memory at step 1,000. With a deadline, nodes are added (over a stated
inter-node fabric) until the run finishes in time.

Node count: among the counts that meet the deadline, the fastest whose cost is within ``COST_TOLERANCE``
of the cheapest's (:func:`_node_count`), each run's node-time billed as the offer's provider bills it (its
increment and minimum charge, as the ranked cost: :class:`NodeBilling`), so offers of one configuration
that bill differently are evaluated apart. The row's ``training`` text says the choice and the run it was
chosen against.

Checkpoints: the run's time includes writing them (:func:`checkpoint_save_s`): one every
``checkpoint_interval_min``, or where the workload gives none Young's interval for the row's save time
and its GPUs' failure rate (``cost.checkpoint_interval_s``; a spot row adds its reclaims), each node
writing its share (``checkpoint_gb / nodes``) at the assumed ``checkpoint_write_gbps`` (a network
volume per node, 1 GB/s; ``--checkpoint-write-gbps``), and the final weights (or adapter) once at the end.

Warm-up: fine-tuning fetches and loads the base model's weights (and the data); pre-training starts from
random weights and fetches only its data (``cost.start_weights_gb``).

Host RAM: an offload layout keeps the training state in the node's RAM (the estimate's
``host_ram_gb_per_node``: a 70B full fine-tune on one node ~1.3 TB). It is taken only on an offer whose
``ram_gb`` holds that (per node: more nodes shard it further); else the best layout that does not offload,
and when none fits the GPUs the offer is rejected naming the RAM needed and the RAM it has. An offer that
does not list its RAM is taken to have what the median host has, 2.15x its GPU memory
(``Assumptions.unlisted_host_ram_per_gpu_memory``): it keeps an offload layout that needs no more, its
row saying how much RAM to check for; a layout that needs more (1.3 TB on an 8x V100 16 GB box) is weighed
as on an offer with that RAM, and a rejection says the RAM was assumed. What fits is worked out per
``ConfigKey`` as for every kind; an offer's RAM then only picks among the layouts
(``TrainingEvaluator.evaluate``), so two offers of one configuration with different RAM may differ.

Network between nodes: a layout on several nodes is timed over the inter-node bandwidth the offer states
(:func:`stated_internode`: ``extra["internode_gbps"]``, Gbit/s per instance as the provider states it,
passed to the estimator in GB/s), so two offers of one ``ConfigKey`` with different stated figures are
evaluated apart (and ranked apart: ``Ranker`` groups offers by it too). Where the offer states none the
estimator's default is used and its row warns of it. Either way the row's ``training`` text says the
figure and where it comes from.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, TrainingResult
from gpuscout.advise.batch_limits import (
    BatchLimit,
    batch_limit,
    batch_warnings,
    global_batch_words,
    grad_accum,
    micro_batch_cap,
    past_limit,
    untried_words,
)
from gpuscout.advise.billing import UNKNOWN_INCREMENT_S, billed_seconds
from gpuscout.advise.configs import (
    BaseEvaluator,
    ConfigEval,
    ConfigKey,
    capacity_gb,
    config_key,
    fabric_unstated,
    job_warmup_s,
    known_ram,
    memory_headroom,
    reject,
    reject_kind_of,
)
from gpuscout.advise.cost import (
    ADAPTER_CHECKPOINT_BYTES_PER_PARAM,
    checkpoint_interval_s,
    checkpoint_saves,
    fetched_dataset_gb,
    reload_seconds,
    save_seconds,
    spot_reclaims_rounding_s,
    start_weights_gb,
    trained_output_gb,
    training_interruptions,
)
from gpuscout.advise.internode import StatedInternode
from gpuscout.advise.pareto import COST_TOLERANCE
from gpuscout.advise.reasons import duration
from gpuscout.advise.spot import deadline_miss
from gpuscout.advise.synthetic import dense_model
from gpuscout.advise.types import EstimateSummary
from gpuscout.advise.workload import FinetuneWorkload, PretrainWorkload
from gpuscout.catalog.offer import Offer
from gpuscout.errors import ConfigurationRejected, GpuscoutError
from gpuscout.estimate.arguments import resolve_model_arg
from gpuscout.estimate.memory import gib
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.knowledge.linear_attention import linear_attention_training_refusal
from gpuscout.knowledge.model_types import ModelSpec
from gpuscout.wording import plural

if TYPE_CHECKING:
    from gpuscout.estimate.pretrain_batch import OptimalBatch

#: Bytes per parameter of a full-training checkpoint: bf16 weights + fp32 master + Adam moments.
FULL_CHECKPOINT_BYTES_PER_PARAM = 14.0
#: LoRA/QLoRA adapters as a share of the base model's bf16 size when the estimator gives no figure.
ADAPTER_SHARE = 0.01


#: a more involved layout (sharding, offload, recompute) must be this much faster to be preferred: within
#: it the speeds are the same to the estimate's precision, and the simpler setup is the one to run
SIMPLER_WITHIN = 0.02
#: activation checkpointing tried per layout, cheapest first: none, selective recompute, full per layer
CHECKPOINTING_CHOICES = ("none", "selective", "full")
#: micro-batches tried when the workload fixes none, smallest first (each doubling is kept only while it is
#: over ``SIMPLER_WITHIN`` faster and fits with the headroom margin)
MICRO_BATCH_CHOICES = tuple(2**k for k in range(13))  # 1 ... 4096, the workload field's bound


def adapter_dtype_words(w: FinetuneWorkload | PretrainWorkload) -> str | None:
    """The LoRA / QLoRA adapters' dtype a row assumes (``FinetuneWorkload.adapter_dtype``), in the words of
    its assumptions; None where no adapters are trained (full fine-tuning, pre-training)."""
    if not isinstance(w, FinetuneWorkload) or w.method == "full":
        return None
    if w.fp32_run:
        return "fp32, as the whole run (--precision fp32)"
    if w.fp32_adapters:
        return (
            "fp32: PEFT's default (get_peft_model's autocast_adapter_dtype=True, no torch autocast); each "
            "adapted layer runs its adapter on an fp32 copy of its input and keeps it for the backward "
            "pass: slower and more memory than 16-bit adapters (--adapter-dtype 16bit)"
        )
    return (
        "16-bit, in the compute dtype (torch autocast, torchtune, NeMo; PEFT with "
        "autocast_adapter_dtype=False); PEFT's default without torch autocast keeps them in fp32: slower, "
        "more memory (adapter dtype fp32)"
    )


def host_ram_needed(result: TrainingResult) -> float | None:
    """The host RAM per node (GB) the estimate says its layout needs; None when the estimator gives none."""
    need = getattr(result, "host_ram_gb_per_node", None)  # the real estimator's; a stand-in may lack it
    return float(need) if isinstance(need, int | float) and need > 0 else None


def training_parallel(sharding: str, gpus: int) -> str:
    """How a training layout's ``gpus`` share the job, in ``Config.parallel``'s words: "data" (DDP, a
    full replica per GPU), the sharding ("fsdp", "zero1".."zero3"), "none" on one GPU: not "tensor",
    which no training row is (tp 1)."""
    if sharding == "none":
        return "data" if gpus > 1 else "none"
    return sharding


class _Trained(NamedTuple):
    """What ``_train_call`` found on some nodes: the fastest layout that fits (or why none does)."""

    result: TrainingResult | None
    why: str
    kind: str
    how: str
    offload: bool = False  # the layout keeps the training state in host RAM
    ram_short: float | None = None  # host RAM per node an offload layout needed that the offer lacks
    # how the GPUs share the job, as ``Config.parallel`` says it: "data" (a full replica per GPU), "fsdp",
    # "zero1".."zero3", or "none" (one GPU)
    parallel: str = ""
    micro_batch: int | None = None  # sequences per GPU per micro-step (None: no layout)
    accum: int = 1  # micro-batches accumulated per optimizer step (``batch_limits.grad_accum``)


_Call = tuple[Accelerator, int, int, str, bool, str, int, float | None, int]

_Run = tuple[int, TrainingResult, _Trained]


#: Why a training row's time is on one node only where its offer states no inter-node fabric (the
#: ``ConfigEval.wider_refused`` a deadline's refusal adds): more nodes were never tried on it.
SINGLE_NODE_ONLY = "single node only: no inter-node fabric stated for this offer"

#: (run, wall-clock seconds: the estimator's training time plus the checkpoint saves)
_Timed = tuple[_Run, float]

_PER = {1: "per second", 60: "per minute", 3600: "per hour"}


class NodeBilling(NamedTuple):
    """How the offers a node count is chosen for are billed: their provider's billing increment and
    minimum charge (``ProviderTerms``), as their ranked cost is (``cost.cost_model``). An unknown
    increment (None) is taken as per hour, as ``billing.billed_seconds`` takes it."""

    increment_s: int | None = None
    minimum_s: int | None = None
    kind: str | None = None  # the provider's kind (``ProviderTerms.kind``): its spot reclaim rate

    def node_seconds(self, nodes: int, wall_s: float, warm_s: float) -> float:
        """What a run costs at any price: its nodes' billed seconds, each node's warm-up and run billed
        as this provider bills them (rounded up to the increment, raised to the minimum)."""
        return nodes * billed_seconds(warm_s + wall_s, self.increment_s, self.minimum_s)

    def words(self) -> str:
        """'per second', 'per hour', 'per 15 s'; 'per hour (increment unknown)'."""
        if self.increment_s is None:
            return f"{_PER[UNKNOWN_INCREMENT_S]} (increment unknown)"
        return _PER.get(self.increment_s, f"per {self.increment_s:,} s")


class _OfferExtra(NamedTuple):
    """What a training offer's evaluation depends on besides its ``ConfigKey`` (``memo_extra``): the
    inter-node bandwidth it states, and how it is billed where a node count is chosen (else None)."""

    network: StatedInternode | None
    billing: NodeBilling | None


def _timed(runs: list[_Run], wall: Callable[[_Run], float] | None) -> list[_Timed]:
    return [(x, wall(x) if wall is not None else (x[1].time_s or 0.0)) for x in runs]


def _node_count(
    runs: list[_Run],
    warm_s: float,
    deadline_s: float | None,
    wall: Callable[[_Run], float] | None = None,
    billing: NodeBilling = NodeBilling(),
) -> _Run | None:
    """The node count a configuration trains on, among the ``runs`` that fit (node count ascending);
    ``wall``: a run's wall-clock seconds (default: the estimator's training time); ``billing``: how the
    offers are billed (default: an unknown increment, taken as per hour).

    Nodes are billed together, so a run's cost at any price is proportional to its billed node-seconds,
    ``nodes x (warm-up + run)``, each node's time billed as the offer's provider bills it (``billing``:
    per second, a count whose nodes each work a few minutes costs those minutes; per hour, an hour
    each). Among the runs that meet the deadline, the choice is the fastest whose cost is within
    ``COST_TOLERANCE`` (5 %: the estimate is no finer) of the cheapest run's (:func:`_overpay`): time is
    bought only where it is free. Pre-training 8B on 8x H100 (p5, billed per second) bills 698
    node-hours on 1 node (29 days), 661 on 32 (21 h) and 660 on 64 (10 h): 64 are taken.
    Where more nodes let the layout drop an offload they cost less and finish sooner: 70B full
    fine-tuning on 8x H100 trains 12 h on 1 node with the optimizer in host RAM (18 h were its 988 GB
    checkpoints written from one node every 30 min at 1 GB/s) and 48 min on 4 without (3.7 node-hours
    against 18); 8 nodes finish in 23 min but bill 9.0 % more node-time, so 4 are taken. A deadline
    never picks a dearer run than no deadline when that one meets it too. None within the tolerance both
    ways: the run that overpays least. None meets the deadline: the fastest (its row is then out for the
    deadline, with the time it takes)."""
    chosen = _choose(_timed(runs, wall), warm_s, deadline_s, billing)
    return chosen[0] if chosen is not None else None


def _overpay(
    timed: list[_Timed], warm_s: float, billing: NodeBilling, extra_s: Mapping[int, float] | None = None
) -> dict[int, float]:
    """Per node count: how much dearer its run is than the cheapest of ``timed`` (0.05: 5 %), billed as
    ``billing`` says (the offer's own billing, as its ranked cost), with ``extra_s`` node-seconds more per
    node count (a spot run's: the increments its reclaims leave unused)."""
    more = extra_s or {}
    costs = {run[0]: billing.node_seconds(run[0], t, warm_s) + more.get(run[0], 0.0) for run, t in timed}
    least = min(costs.values())
    return {n: cost / least - 1.0 if least > 0 else 0.0 for n, cost in costs.items()}


def _in_time(
    timed: list[_Timed], warm_s: float, deadline_s: float | None, risky: frozenset[int] = frozenset()
) -> list[_Timed]:
    """The runs of ``timed`` that finish within ``deadline_s`` (None: all), their warm-up counted: the
    deadline is on the time to the result, as the ranker holds a row to it (``rank._job_time``); a spot
    run's node counts in ``risky`` are not, its reclaims too likely to make it miss the deadline
    (``Assumptions.max_deadline_miss``)."""
    return [x for x in timed if deadline_s is None or (x[1] + warm_s <= deadline_s and x[0][0] not in risky)]


def _choose(
    timed: list[_Timed],
    warm_s: float,
    deadline_s: float | None,
    billing: NodeBilling,
    extra_s: Mapping[int, float] | None = None,
    risky: frozenset[int] = frozenset(),
) -> _Timed | None:
    """``_node_count``'s choice, with its wall-clock seconds (``extra_s``: as :func:`_overpay`;
    ``risky``: as :func:`_in_time`)."""
    if not timed:
        return None
    in_time = _in_time(timed, warm_s, deadline_s, risky)
    if not in_time:
        return min(timed, key=lambda x: (x[1], x[0][0]))
    over = _overpay(in_time, warm_s, billing, extra_s)
    free = [x for x in in_time if over[x[0][0]] <= COST_TOLERANCE]
    if not free:
        return min(in_time, key=lambda x: (over[x[0][0]], x[1], x[0][0]))
    return min(free, key=lambda x: (x[1], x[0][0]))


def _node_choice(
    timed: list[_Timed],
    chosen: _Timed,
    warm_s: float,
    deadline_s: float | None,
    billing: NodeBilling,
    extra_s: Mapping[int, float] | None = None,
    risky: frozenset[int] = frozenset(),
) -> str:
    """What the row's ``training`` text says of its node count, when there was a choice: the rule, and
    the runs it was weighed against, with their time and cost billed as the offer is (``billing``): the
    cheapest when it is not the chosen run, and the fewest nodes when they cost about the same (slower,
    within the tolerance); where neither is shown, the cheapest faster run (over the tolerance), else
    the fewest nodes. ``extra_s`` (a spot row's): node-seconds its reclaims add to each count's bill,
    whose times in ``timed`` hold their rework; the words then say reclaims are counted."""
    in_time = _in_time(timed, warm_s, deadline_s, risky)
    if chosen not in in_time or len(in_time) < 2:
        return ""
    over = _overpay(in_time, warm_s, billing, extra_s)
    more = extra_s or {}
    (n, _, _), t = chosen
    cheapest = min(in_time, key=lambda x: (over[x[0][0]], x[0][0]))
    fewest = in_time[0]
    others: list[tuple[_Timed, str]] = []
    if over[n] > 0 and cheapest is not chosen:
        others.append((cheapest, "the cheapest, "))
    if (
        fewest is not chosen
        and over[fewest[0][0]] <= COST_TOLERANCE
        and all(fewest is not o for o, _ in others)
    ):
        others.append((fewest, ""))
    if not others:
        faster = [x for x in in_time if x[1] < t]
        if faster:
            others.append((min(faster, key=lambda x: (over[x[0][0]], x[1])), "faster, "))
        elif fewest is not chosen:
            others.append((fewest, ""))  # the cheapest and the fastest: against the fewest nodes
        else:
            return ""
    billed = billing.node_seconds(n, t, warm_s) + more.get(n, 0.0)
    per = billing.words() + (", its spot reclaims counted" if extra_s is not None else "")

    def pct(x: float) -> str:
        if abs(x) < 0.0005:
            return "the same"
        share = f"{abs(x):.1%}" if abs(x) < 0.1 else f"{abs(x):.0%}"
        return f"{share} more" if x > 0 else f"{share} less"

    def weighed(other: _Timed, what: str) -> str:
        m, t_other = other[0][0], other[1]
        cost = billing.node_seconds(m, t_other, warm_s) + more.get(m, 0.0)
        change = cost / billed - 1.0 if billed > 0 else 0.0
        # the time to the result, warm-up included, as the row's own time reads
        took = duration(t_other + warm_s)
        return f"{what}{m} {plural(m, 'node')}: {took}, {pct(change)} node-time billed {per}"

    deadline = " that meets the deadline" if deadline_s is not None else ""
    rule = (
        f"the fastest node count{deadline} within {COST_TOLERANCE:.0%} of the cheapest's cost"
        if over[n] <= COST_TOLERANCE
        else f"no faster node count{deadline} within {COST_TOLERANCE:.0%} of the cheapest's cost"
    )
    return f"{n} {plural(n, 'node')}: {rule} ({'; '.join(weighed(o, w) for o, w in others)})"


def checkpoint_save_s(
    run_s: float, nodes: int, checkpoint_gb: float, output_gb: float, interval_s: float, write_gbps: float
) -> float:
    """Seconds a run spends writing checkpoints: every ``interval_s`` each node writes its share of the
    checkpoint (``checkpoint_gb / nodes``, a sharded checkpoint) at ``write_gbps``, and at the end the
    trained output (``output_gb``: the weights or the adapter, gathered) is written once."""
    if write_gbps <= 0:
        return 0.0
    each = save_seconds(checkpoint_gb, nodes, write_gbps)
    during = checkpoint_saves(run_s, interval_s) * each if each > 0 else 0.0
    return during + output_gb / write_gbps


def describe_saves(
    run_s: float,
    nodes: int,
    checkpoint_gb: float,
    output_gb: float,
    interval_s: float,
    write_gbps: float,
    output: str,
    *,
    chosen: bool = False,
) -> str:
    """The row's words for :func:`checkpoint_save_s`; ``chosen``: the interval is Young's for this row
    (:func:`checkpoint_interval_s`), not the workload's."""
    saved = checkpoint_saves(run_s, interval_s)
    k = int(saved) if math.isfinite(saved) else 0
    total = checkpoint_save_s(run_s, nodes, checkpoint_gb, output_gb, interval_s, write_gbps)
    per_node = checkpoint_gb / max(1, nodes)
    share = f", {per_node:,.3g} GB per node" if nodes > 1 else ""
    every = f"every {duration(interval_s)}" if math.isfinite(interval_s) else "none needed"
    if chosen:
        every += " on on-demand capacity: Young's interval for its GPUs' failures"
    saves = (
        f"{k:,} {plural(k, 'save')} of {checkpoint_gb:,.3g} GB ({every}){share} at {write_gbps:g} GB/s "
        f"({duration(per_node / write_gbps)} each)"
        if k
        else f"none within the run ({every})"
    )
    return (
        f"checkpoints: {saves}, then the {output} ({output_gb:,.3g} GB, {duration(output_gb / write_gbps)}): "
        f"{duration(total)} added to the run"
    )


def _rounded_up(w: FinetuneWorkload | PretrainWorkload, nodes: int, g: int) -> str | None:
    """What a pre-training row says when the GPUs it rents are not the ``gpus`` asked: instances are rented
    whole, so ``gpus`` is rounded up to the fewest instances of ``g`` that hold it, and the job trains on
    every GPU rented (a rank per GPU, as torchrun starts them: a paid GPU left idle would only slow the
    run at the same price). Its time and cost are those of the GPUs it trains on. None when they match."""
    if not isinstance(w, PretrainWorkload) or w.gpus is None or nodes * g == w.gpus:
        return None
    used = nodes * g
    return (
        f"trains on {used:,} GPUs, not the {w.gpus:,} asked: instances are rented whole and every GPU "
        f"rented trains (time and cost for {used:,})"
    )


def stated_internode(offer: Offer) -> StatedInternode | None:
    """The inter-node bandwidth ``offer`` states: its ``extra["internode_gbps"]``, Gbit/s per instance
    (``gpuscout.catalog.fabrics.internode_extra`` writes it for the instance types whose documentation
    states one), with ``extra["internode_source"]``. ``None`` where it states none, the figure is not a
    positive number (or is past the estimator's bound), or the offer names no inter-node fabric (the
    advisor joins no such instances)."""
    if not offer.internode or not offer.extra:
        return None
    text = offer.extra.get("internode_gbps", "")
    if not text:
        return None
    try:
        gbit = float(text)
    except ValueError:
        return None
    from gpuscout.estimate.training import MAX_INTERNODE_GBPS, gbit_to_gbyte  # the estimator's bound

    if not (math.isfinite(gbit) and 0.0 < gbit_to_gbyte(gbit) <= MAX_INTERNODE_GBPS):
        return None
    return StatedInternode(offer.internode, gbit, offer.extra.get("internode_source") or offer.source)


def _internode_gbps(network: StatedInternode | None, nodes: int) -> float | None:
    """The network GB/s per node to give the estimator: the offer's stated figure on several nodes, else
    None (the estimator's default, which it warns of)."""
    return network.gbyte_per_s if network is not None and nodes > 1 else None


def describe_network(network: StatedInternode | None, nodes: int, assumed_gbps: float) -> str:
    """What the row's nodes are joined at: the offer's stated figure and its source, or the assumed one."""
    if network is not None:
        return f"{nodes} nodes joined at {network.describe()}"
    return (
        f"{nodes} nodes joined at an assumed {assumed_gbps:,.4g} GB/s per node "
        "(the offer states no inter-node bandwidth)"
    )


class TrainingEvaluator(BaseEvaluator[FinetuneWorkload | PretrainWorkload]):
    """Fine-tuning and pre-training: all the instance's GPUs together; several instances only over a
    stated inter-node fabric."""

    host_ram_matters = True  # an offload layout needs the offer's host RAM

    def __init__(
        self, workload: FinetuneWorkload | PretrainWorkload, backends: Backends, assumptions: Assumptions
    ) -> None:
        super().__init__(workload, backends, assumptions)
        # the model the estimator sees: a registry name, or a stand-in when pretraining "N billion params"
        self.model: str | ModelSpec = workload.model
        if isinstance(workload, PretrainWorkload) and workload.params_b is not None:
            self.model = dense_model(workload.params_b, workload.model)
        self._refuse_unmodelled_training()
        # per (configuration, ``memo_extra``): the host RAM per node its (RAM-blind) layout needs, when
        # that layout offloads
        self._offload_need: dict[tuple[ConfigKey, _OfferExtra], float] = {}
        # per (configuration, ``memo_extra``, the offer's RAM or None): the evaluation an offer with it gets
        # (a RAM the offer does not list: the one assumed for it, and True)
        self._by_ram: dict[tuple[ConfigKey, _OfferExtra, float | None, bool], ConfigEval] = {}
        self._billing: dict[str, NodeBilling] = {}  # per billing-terms name
        self._estimates: dict[_Call, TrainingResult] = {}  # one estimate per layout, whatever the RAM
        self._optimal: tuple[OptimalBatch | None] | None = None  # (the run's compute-optimal batch,), once

    def _refuse_unmodelled_training(self) -> None:
        """A model the training estimator refuses whatever the offer (linear-attention layers): said once,
        for the model, rather than as every offer's rejection. A name the table does not resolve is the
        backends' to resolve or refuse."""
        try:
            spec = resolve_model_arg(self.model)
        except GpuscoutError:
            return
        if spec.linear_layers:
            raise ConfigurationRejected("model", *linear_attention_training_refusal(spec))

    @property
    def optimal(self) -> OptimalBatch | None:
        """A pre-training run's compute-optimal global batch (``Backends.pretrain_batch``); None for a
        fine-tune, or where the backends give none."""
        if self._optimal is None:
            w, find = self.w, self.be.pretrain_batch
            found = None
            if isinstance(w, PretrainWorkload) and find is not None:
                found = find(self.model, w.seq_len, w.token_budget)
            self._optimal = (found,)
        return self._optimal[0]

    @property
    def limit(self) -> BatchLimit | None:
        """The widest global batch a layout the advisor chooses may take (``batch_limits.batch_limit``)."""
        return batch_limit(self.w, self.optimal)

    def evaluate(self, offer: Offer) -> ConfigEval:
        """The configuration's evaluation as this offer's host RAM allows: an offload layout only where the
        offer has the RAM it needs (else the best layout without offload, or a rejection naming both
        figures); where the offer lists no RAM, the layout with a warning saying how much it needs. Several
        nodes are timed over the inter-node bandwidth the offer states (else the estimator's default), and
        their count chosen as the offer is billed."""
        extra = self.memo_extra(offer)
        ev = self._evaluated(config_key(offer), extra)
        need = self._offload_need.get((ev.key, extra))
        if ev.rejected is not None or need is None or ev.accelerator is None:
            return ev
        ram = known_ram(offer)
        if ram is not None and need <= ram:
            return ev
        assumed = ram is None
        if ram is None:  # as much as hosts with this GPU memory usually have
            ram = self.a.unlisted_host_ram_per_gpu_memory * offer.gpu_memory_gb * offer.gpu_count
        memo = (ev.key, extra, ram, assumed)
        by_ram = self._by_ram.get(memo)
        if by_ram is None:
            if assumed and need <= ram:
                note = (
                    f"host RAM not listed for this offer: this layout keeps the training state in host "
                    f"RAM and needs ~{need:,.0f} GB per node; check the instance has it"
                )
                spot = ev.on_spot
                if spot is not None:
                    spot = dataclasses.replace(spot, warnings=(*spot.warnings, note))
                by_ram = dataclasses.replace(ev, warnings=(*ev.warnings, note), on_spot=spot)
            else:
                by_ram = self._configure_with(ev.key, ev.accelerator, ram, extra, ram_assumed=assumed)
            self._by_ram[memo] = by_ram
        return by_ram

    def memo_extra(self, offer: Offer) -> _OfferExtra:
        """The inter-node bandwidth the offer states, and (where the node count is chosen: an inter-node
        fabric, no fixed size) how it is billed: offers of one ``ConfigKey`` that differ in either are
        evaluated apart, several nodes timed over each figure and their count chosen as each is billed.
        The ranking groups offers by it (``Ranker``)."""
        w = self.w
        fixed = isinstance(w, PretrainWorkload) and (w.gpus is not None or w.nodes is not None)
        billing = None if fixed or not offer.internode else self.billing(offer)
        return _OfferExtra(stated_internode(offer), billing)

    def billing(self, offer: Offer) -> NodeBilling:
        """How ``offer`` is billed: its billing terms' (else its provider's) increment and minimum charge,
        as the ranking costs it; unknown terms: an unknown increment (per hour)."""
        name = offer.billing_terms or offer.provider
        found = self._billing.get(name)
        if found is None:
            try:
                terms = self.be.provider_terms(name)
                found = NodeBilling(terms.billing_increment_s, terms.minimum_charge_s, terms.kind)
            except GpuscoutError:
                found = NodeBilling()
            self._billing[name] = found
        return found

    def _estimate(
        self,
        acc: Accelerator,
        gpus: int,
        nodes: int,
        sharding: str,
        offload: bool,
        recompute: str,
        mb: int,
        internode_gbps: float | None = None,
        accum: int = 1,
    ) -> TrainingResult:
        """The estimator's figures for one layout (once per layout: offers of one configuration with
        different RAM choose among the same layouts). ``internode_gbps``: the network GB/s per node the
        offer states (several nodes only), None for the estimator's default; ``accum`` the micro-batches
        accumulated per optimizer step (``batch_limits.grad_accum``)."""
        call: _Call = (acc, gpus, nodes, sharding, offload, recompute, mb, internode_gbps, accum)
        found = self._estimates.get(call)
        if found is None:
            w = self.w
            # the adapters' dtype: fine-tuning's (LoRA / QLoRA; the estimator ignores it for full)
            adapters: dict[str, str] = {}
            if isinstance(w, FinetuneWorkload):
                method, tokens, epochs = w.method, w.dataset_tokens, w.epochs
                adapters["adapter_dtype"] = w.adapter_dtype
            else:
                method, tokens, epochs = "full", w.token_budget, 1.0
            accumulated = {"grad_accum": accum} if accum > 1 else {}
            self.estimator_calls += 1
            found = self.be.training(
                self.model,
                acc,
                gpus=gpus,
                nodes=nodes,
                method=method,
                seq_len=w.seq_len,
                micro_batch=mb,
                tokens=tokens,
                epochs=epochs,
                precision=w.precision,
                sharding=sharding,
                cpu_offload=offload,
                checkpointing=recompute,
                internode_gbps=internode_gbps,
                **adapters,
                **accumulated,
            )
            self._estimates[call] = found
        return found

    def _headroom(self, result: TrainingResult, acc: Accelerator) -> float:
        """Share of the GPU's memory this layout leaves free."""
        return memory_headroom(result.memory, acc)

    def _train_call(
        self,
        acc: Accelerator,
        gpus: int,
        nodes: int,
        ram_gb: float | None = None,
        network: StatedInternode | None = None,
        max_micro_batch: int | None = None,
        ram_assumed: bool = False,
    ) -> _Trained:
        """The fastest layout on ``nodes`` x ``gpus`` that fits with the memory headroom margin, among data
        parallel, FSDP and FSDP with host offload, each with no, selective or full activation checkpointing
        (recomputing costs time; it is only worth paying when the activations would not fit otherwise), at
        the workload's micro-batch or the one past which doubling no longer pays; with ``ram_gb``, host
        offload only where a node's RAM holds what it keeps there; on several nodes, over ``network`` (the
        offer's stated inter-node bandwidth) or the estimator's default; at most ``max_micro_batch``
        sequences per GPU where the micro-batch is the advisor's to choose (a pre-training run's global
        batch limit: ``batch_limits.micro_batch_cap``); ``ram_assumed``: the offer lists no RAM and
        ``ram_gb`` is the one assumed for it (a refusal says so)."""
        from gpuscout.estimate.training import describe_layout  # the estimator's, loaded with it

        w = self.w
        internode_gbps = _internode_gbps(network, nodes)
        # Simplest first: plain data parallel, then FSDP, then FSDP with the optimizer and parameters
        # offloaded to host RAM (how a 70B full fine-tune runs on one 8x80 GB node); a later layout is
        # taken only when it is faster.
        options = [("none", False)]
        if gpus * nodes > 1:
            options += [("fsdp", False), ("fsdp", True)]
        # the user's micro-batch, or doubling ones until the next stops paying (launch-bound steps at
        # short sequences run several times faster with more sequences per step) or stops fitting
        micro_batches = (w.micro_batch,) if w.micro_batch is not None else MICRO_BATCH_CHOICES
        if w.micro_batch is None and max_micro_batch is not None:
            micro_batches = tuple(m for m in micro_batches if m <= max_micro_batch) or micro_batches[:1]
        margin = self.a.min_training_headroom
        why, kind = "does not fit", "fit"
        ram_short: float | None = None

        limit = self.limit  # a pre-training run accumulates micro-batches up to it

        def fitting(sharding: str, offload: bool, recompute: str, micro_batch: int) -> TrainingResult | None:
            """The estimate of one layout if it fits with the headroom margin (else None, noting why)."""
            nonlocal why, kind, ram_short
            accum = grad_accum(w, limit, gpus * nodes, micro_batch)
            result = self._estimate(
                acc, gpus, nodes, sharding, offload, recompute, micro_batch, internode_gbps, accum
            )
            if not result.fits:
                return None
            need = host_ram_needed(result) if offload and ram_gb is not None else None
            if need is not None and ram_gb is not None and need > ram_gb:
                ram_short = need  # the GPUs would hold it, the node's RAM would not
                return None
            headroom = self._headroom(result, acc)
            if headroom >= margin:
                return result
            if kind != "headroom":  # the first layout that fits, but too tightly, says why
                cap = capacity_gb(result.memory, acc)
                why = (
                    f"only {max(headroom, 0.0):.0%} memory headroom ({gib(result.memory.total_gb):.1f} of "
                    f"{gib(cap):.1f} GiB per GPU; the margin is {margin:.0%}): an out-of-memory risk"
                )
                kind = "headroom"
            return None

        best: tuple[TrainingResult, str, bool, str, int] | None = None
        try:
            for sharding, offload in options:
                # recomputing only slows a step, and more sequences per step only need more memory: at
                # each micro-batch the least recompute that fits, starting from the last one's
                level = 0
                previous: tuple[float, int] | None = None  # (tokens/s, recompute level), last micro-batch
                for micro_batch in micro_batches:
                    result = None
                    while level < len(CHECKPOINTING_CHOICES):
                        result = fitting(sharding, offload, CHECKPOINTING_CHOICES[level], micro_batch)
                        if result is not None:
                            break
                        level += 1
                    if result is None:
                        break  # nothing fits at this micro-batch, nor at a larger one
                    if best is None or result.tokens_per_s > best[0].tokens_per_s * (1.0 + SIMPLER_WITHIN):
                        recompute = CHECKPOINTING_CHOICES[level]
                        accum = grad_accum(w, limit, gpus * nodes, micro_batch)
                        how = describe_layout(
                            sharding, offload, recompute, gpus * nodes, w.seq_len, micro_batch, accum
                        )
                        parallel = training_parallel(sharding, gpus * nodes)
                        best = (result, how, offload, parallel, micro_batch)
                    if (
                        previous is not None
                        and previous[1] == level
                        and result.tokens_per_s <= previous[0] * (1.0 + SIMPLER_WITHIN)
                    ):
                        break  # twice the sequences per step, recomputed alike, no longer pays
                    previous = (result.tokens_per_s, level)
        except ConfigurationRejected as exc:  # this configuration only; other errors abort
            return _Trained(None, str(exc), reject_kind_of(str(exc)), "")
        if best is not None:
            ranks = gpus * nodes
            accum = grad_accum(w, limit, ranks, best[4])
            return _Trained(
                best[0], "", "", best[1], best[2], parallel=best[3], micro_batch=best[4], accum=accum
            )
        if ram_short is not None and ram_gb is not None:
            without = "does not fit without host offload" if kind == "fit" else why  # or its headroom
            per_node = "per node" if nodes == 1 else f"per node on {nodes} nodes"
            why = (
                f"{without}, and offloading the optimizer and parameters needs ~{ram_short:,.0f} GB of "
                f"host RAM {per_node}; "
                + (
                    f"the offer lists no RAM, and hosts with its GPU memory usually have about "
                    f"{ram_gb:,.0f} GB ({self.a.unlisted_host_ram_per_gpu_memory:g}x it)"
                    if ram_assumed
                    else f"the offer has {ram_gb:,.0f} GB"
                )
            )
            return _Trained(None, why, "fit", "", ram_short=ram_short)
        return _Trained(None, why, kind, "")

    def _spot_timed(
        self,
        timed: list[_Timed],
        extra: _OfferExtra,
        gpus: int,
        checkpoint_of: Callable[[TrainingResult], float],
        interval_of: Callable[[int, float], float],
        download_gb: float,
        load_gb: float,
        warm_s: float = 0.0,
    ) -> tuple[list[_Timed], dict[int, float], frozenset[int]]:
        """The runs of ``timed`` (a choice of node counts) with the time a spot row adds to each: its
        nodes' reclaims (at the provider kind's rate, ``nodes`` times as often for the run) and failures,
        with the rework, restarts, reloads and extra checkpoint saves the cost model counts
        (``cost.training_interruptions``); and per node count the node-seconds its reclaims bill beyond that
        (the increments they leave unused: ``cost.spot_reclaims_rounding_s``). Empty where no spot row
        is asked for, or no count to choose. Under a deadline, the node counts whose reclaims make them
        miss it more often than ``Assumptions.max_deadline_miss`` allows (``spot.deadline_miss``, the
        cost model's ``CostModel.deadline_miss``; ``warm_s`` the warm-up before the run) are returned apart:
        more nodes finish sooner but are stopped more often, so a spot run's cheapest count is lower
        (pre-training 8B on p5 spot: 32 nodes, where on demand 64 cost about what 32 do)."""
        billing = extra.billing
        if not self.w.spot_ok or billing is None or len(timed) < 2:
            return [], {}, frozenset()
        rate = self.a.interruption_rate(billing.kind)
        if rate <= 0:
            return [], {}, frozenset()
        out: list[_Timed] = []
        rounding: dict[int, float] = {}
        risky: set[int] = set()
        deadline = self.w.deadline_hours
        for run, wall in timed:
            n, result, _ = run
            ckpt = checkpoint_of(result)
            risk, saves_s = training_interruptions(
                self.w,
                self.a,
                time_s=wall,
                nodes=n,
                gpus_per_node=gpus,
                checkpoint_gb=ckpt,
                on_demand_interval_s=interval_of(n, ckpt),
                reload_s=reload_seconds(self.w, self.a, ckpt, n, download_gb, load_gb),
                reclaims_per_node_hour=rate,
            )
            out.append((run, wall + risk.lost_s + saves_s))
            rounding[n] = spot_reclaims_rounding_s(risk, billing.increment_s)
            if deadline is not None:
                slack = deadline * 3600.0 - (wall + saves_s + warm_s)
                if deadline_miss(risk, slack) > self.a.max_deadline_miss:
                    risky.add(n)
        return out, rounding, frozenset(risky)

    def _configure_for(self, key: ConfigKey, acc: Accelerator, extra: Hashable) -> ConfigEval:
        """The configuration whatever the offer's RAM (``evaluate`` then checks an offload layout's), for
        ``extra`` (``memo_extra``: the inter-node bandwidth the offer states, None for the estimator's
        default, and how it is billed)."""
        offer_extra = extra if isinstance(extra, _OfferExtra) else _OfferExtra(None, None)
        return self._configure_with(key, acc, None, offer_extra)

    def _configure_with(
        self,
        key: ConfigKey,
        acc: Accelerator,
        ram_gb: float | None,
        extra: _OfferExtra,
        *,
        ram_assumed: bool = False,
    ) -> ConfigEval:
        """The configuration on an offer with ``ram_gb`` of host RAM per node (None: not checked;
        ``ram_assumed``: the one assumed for an offer that lists none) and
        ``extra``: the inter-node bandwidth it states (None: the estimator's default), and how it is
        billed (the node count's choice)."""
        network = extra.network
        billing = extra.billing or NodeBilling()  # None: one node count only, no choice to bill
        w = self.w
        g = key[1]
        fabric = key[3]
        if isinstance(w, PretrainWorkload) and (w.gpus is not None or w.nodes is not None):
            n = w.nodes if w.nodes is not None else math.ceil((w.gpus or g) / g)
            candidates = [n]
        else:
            candidates = [1]
            n = 2
            while fabric and n <= w.max_nodes:
                candidates.append(n)
                n *= 2
        # more nodes were not tried for want of a stated inter-node fabric alone (said where a deadline
        # leaves the row out: its time on one node is not what more nodes would take)
        fixed = isinstance(w, PretrainWorkload) and (w.gpus is not None or w.nodes is not None)
        single_node_only = not fixed and not fabric and w.max_nodes > 1
        why, kind = "does not fit", "fit"
        ram_bound = False  # the last refusal was the node's host RAM (more nodes would shard it)
        too_wide = 0  # the first node count left untried for training in too few optimizer steps
        deadline_s = w.deadline_hours * 3600.0 if w.deadline_hours is not None else None
        params_b = w.params_b if isinstance(w, PretrainWorkload) and w.params_b else self.be.params_b(w.model)
        # the model's weights (bf16 unless the workload says): what full training leaves
        weights = w.download_weights_gb if w.download_weights_gb is not None else params_b * 2.0
        # what fine-tuning fetches and loads: the checkpoint as published (DeepSeek-V3's FP8, 673 GB, not a
        # bf16 copy of 1,342 GB; gpt-oss-120b's MXFP4 experts, 65 GB), dequantized on load
        published = self.be.published_weights_gb
        loaded = (
            published(w.model)
            if w.download_weights_gb is None and published is not None and isinstance(self.model, str)
            else weights
        )
        fetched = start_weights_gb(w, loaded)  # pre-training from scratch: none
        # what each node downloads before it starts: the weights and a fine-tune's data (a pre-training
        # corpus is streamed: cost.streamed_dataset_gb)
        downloaded = fetched + fetched_dataset_gb(w)
        warm = job_warmup_s(downloaded, fetched, self.a)

        def checkpoint_of(result: TrainingResult) -> float:
            """GB of one checkpoint: the workload's figure, else the adapter with its optimizer state
            (LoRA/QLoRA), else the full training state (bf16 weights + fp32 master + Adam moments)."""
            if w.checkpoint_gb is not None:
                return w.checkpoint_gb
            if isinstance(w, FinetuneWorkload) and w.method != "full":
                # the whole adapter and its optimizer state (not one GPU's shard of it)
                trainable = result.trainable_params or params_b * 1e9 * ADAPTER_SHARE
                return trainable * ADAPTER_CHECKPOINT_BYTES_PER_PARAM / 1e9
            return params_b * FULL_CHECKPOINT_BYTES_PER_PARAM

        write_gbps = self.a.checkpoint_write_gbps  # per node, to where the checkpoints are kept

        def interval_of(n: int, ckpt: float) -> float:
            """Seconds between checkpoints on ``n`` nodes: the workload's, else Young's for one save's time
            and the GPUs' failures (on-demand; a spot row counts its reclaims on top: ``cost``)."""
            return checkpoint_interval_s(w, self.a, ckpt, n, g)

        def wall(run: _Run) -> float:
            """The run's wall-clock seconds: training plus writing its checkpoints and output."""
            n, r, _ = run
            ckpt = checkpoint_of(r)
            run_s = r.time_s or 0.0
            output = trained_output_gb(w, weights, ckpt)
            return run_s + checkpoint_save_s(run_s, n, ckpt, output, interval_of(n, ckpt), write_gbps)

        limit = self.limit  # the widest global batch a layout may take (pre-training)
        runs: list[_Run] = []  # every node count that runs it
        for n in candidates:
            if n > 1 and not fabric:
                return reject(
                    key,
                    acc,
                    f"{n} nodes need an inter-node fabric (none stated for this offer)",
                    kind="fabric",
                )
            searched = n > 1 and len(candidates) > 1  # a node count the advisor added
            cap = micro_batch_cap(w, limit, g * n)
            if cap == 0 and searched:  # even one sequence per GPU is past the limit, and wider only worse
                too_wide = n
                break
            trained = self._train_call(acc, g, n, ram_gb, network, cap, ram_assumed=ram_assumed)
            r = trained.result
            if r is None and trained.kind == "unsupported":
                # the platform cannot run the training at all (the estimator's support rules): no node
                # count changes that, and its reason is the row's
                return reject(key, acc, trained.why, kind="unsupported")
            if r is None:
                ram_bound = trained.ram_short is not None  # its text says the nodes
                why = trained.why if n == 1 or ram_bound else f"{trained.why} on {n} nodes"
                kind = trained.kind
                continue
            if r.time_s is None or r.time_s <= 0:
                why, kind = "the estimator gives no training time", "estimator"
                continue
            if searched and past_limit(limit, r):
                # a micro-batch the workload fixed: wider still only widens the global batch
                too_wide = n
                break
            runs.append((n, r, trained))
        timed = _timed(runs, wall)
        if runs and not any(math.isfinite(t) for _, t in timed):  # a checkpoint every nanosecond
            why = f"writing a checkpoint every {w.checkpoint_interval_min or 0:g} min leaves no time to train"
            return reject(key, acc, why, fits=True, kind="estimator")
        timed = [x for x in timed if math.isfinite(x[1])]
        choice = _choose(timed, warm, deadline_s, billing)
        if choice is None:
            if kind == "fit" and not fabric and not (isinstance(w, PretrainWorkload) and (w.gpus or w.nodes)):
                why += (
                    " (more nodes would share it: multi-node needs an inter-node fabric)"
                    if ram_bound
                    else f" on {g} {plural(g, 'GPU')}; multi-node needs an inter-node fabric"
                )
            if too_wide and limit is not None:
                why += f"; {untried_words(limit, too_wide)[0]}"
            return reject(key, acc, why, kind=kind)
        plain_wall = {x[0][0]: x[1] for x in timed}  # node count -> wall-clock seconds, reclaims aside
        spot_timed, spot_rounding, risky = self._spot_timed(
            timed, extra, g, checkpoint_of, interval_of, downloaded, loaded, warm
        )
        spot_choice = (
            _choose(spot_timed, warm, deadline_s, billing, spot_rounding, risky) if spot_timed else None
        )
        for run, _ in (choice, *((spot_choice,) if spot_choice is not None else ())):
            _, r_run, t_run = run
            need = host_ram_needed(r_run) if t_run.offload else None
            if need is not None and ram_gb is None:  # the most either choice needs per node
                self._offload_need[(key, extra)] = max(need, self._offload_need.get((key, extra), 0.0))

        def build(
            chosen: _Timed,
            weighed: list[_Timed],
            rounding: Mapping[int, float] | None = None,
            risky: frozenset[int] = frozenset(),
        ) -> ConfigEval:
            """The row of the run ``chosen`` among ``weighed`` (times with a spot row's reclaims, or
            without), its text weighing it against them."""
            (nodes, result, trained), wall_s = chosen[0], plain_wall[chosen[0][0]]
            how = trained.how
            batch = global_batch_words(w, limit, result, trained.accum)
            if batch:
                how = f"{how}; {batch}"
            rounded = _rounded_up(w, nodes, g)  # a warning, not the row's first reason: the fit stays that
            if nodes > 1:
                from gpuscout.estimate.training import (
                    default_internode_gbps,
                )  # the estimator's, loaded with it

                how = f"{how}; {describe_network(network, nodes, default_internode_gbps(acc, g))}"
            node_choice = _node_choice(weighed, chosen, warm, deadline_s, billing, rounding, risky)
            if node_choice:
                how = f"{how}; {node_choice}"
            wider = ""
            if too_wide and limit is not None:
                wider, untried = untried_words(limit, too_wide)
                how = f"{how}; {untried}"
            elif single_node_only:
                wider = SINGLE_NODE_ONLY
            ckpt = checkpoint_of(result)
            interval = interval_of(nodes, ckpt)
            lora = isinstance(w, FinetuneWorkload) and w.method != "full"
            saves = describe_saves(
                result.time_s or 0.0,
                nodes,
                ckpt,
                trained_output_gb(w, weights, ckpt),
                interval,
                write_gbps,
                "adapter" if lora else "trained weights",
                chosen=w.checkpoint_interval_min is None,
            )
            how = f"{how}; {saves}"
            notes = (
                (f"{self.model.notes} (no architecture named)",) if isinstance(self.model, ModelSpec) else ()
            )
            tokens = w.train_tokens if isinstance(w, FinetuneWorkload) else w.token_budget
            summary = EstimateSummary(
                throughput=result.tokens_per_s,
                throughput_unit="train tok/s",
                per_user_tokens_per_s=None,
                ttft_ms=None,
                tpot_ms=None,
                memory_per_gpu_gb=result.memory.total_gb,
                memory_capacity_gb=capacity_gb(result.memory, acc),
                weights_gb=result.memory.weights_gb,
                kv_cache_gb=0.0,
                batch_per_replica=None,
                max_batch_per_replica=None,
                bound=None,
                # a backend that does not say (a test's fake) is taken as calibrated
                speed_calibrated=bool(getattr(result, "speed_calibrated", True)),
            )
            return ConfigEval(
                key=key,
                fits=True,
                rejected=None,
                accelerator=acc,
                instances=nodes,
                tp=1,
                replicas_per_instance=1,
                gpus_per_instance=g,
                nodes=nodes,
                summary=summary,
                time_s=wall_s,
                download_gb_per_instance=downloaded,
                load_gb=loaded,
                output_weights_gb=weights,  # the trained output's size (``cost.trained_output_gb``)
                checkpoint_gb=ckpt,
                checkpoint_interval_s=interval,
                wider_refused=wider,
                train_tokens=tokens,
                warnings=(
                    *notes,
                    *((rounded,) if rounded else ()),
                    *batch_warnings(w, self.optimal, result, trained.micro_batch, trained.accum),
                    *result.warnings,
                ),
                fabric_assumed=fabric_unstated(key, g),
                training=how,
                parallel=trained.parallel,
            )

        on_demand = build(choice, timed)
        if spot_choice is None:
            return on_demand
        # a spot row: its node count chosen, and its alternatives quoted, with the reclaims its nodes add
        return dataclasses.replace(on_demand, on_spot=build(spot_choice, spot_timed, spot_rounding, risky))
