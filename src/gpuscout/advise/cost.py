"""What a configuration costs at an offer's prices: compute, warm-up, storage, egress, interruptions.

The cost is linear in the three prices an offer carries (USD per instance-hour, per GB-month stored,
per GB of egress). ``cost_model`` computes the quantities (billed instance-hours, GB-months, billable
GB) once per (configuration, provider terms, spot) and ``breakdown`` multiplies them by one offer's
prices, which keeps ranking 100,000 offers cheap.

- ``serve``: per month. Each start (one per burst, one per day when stopped nightly, one per month
  when always on) is billed separately with the provider's increment and minimum charge; it includes
  a warm-up (boot + loading the weights); the first start of the month also downloads them.
- jobs (batch, finetune, pretrain): one start per instance; warm-up = boot + download + load. A
  pre-training run starts from random weights (initialised on the GPUs): it fetches and loads no weights
  (``start_weights_gb``), and it streams its corpus (``streamed_dataset_gb``) rather than fetching it
  before it starts; a fine-tune fetches its data (``fetched_dataset_gb``) on every node, and a batch's
  instances split theirs (``split_dataset_gb``), each fetching its share.
- training storage: during the run every node's copy of the weights and the data it fetched, the one
  copy of a streamed corpus and the last ``CHECKPOINTS_KEPT`` checkpoints; after it, for
  ``storage_retention_days``, the trained output only
  (``trained_output_gb``: the bf16 weights, or the LoRA/QLoRA adapter). The optimizer checkpoints are
  deleted at the end, and ``egress_gb`` (moving the output out) is not stored again.
- training on spot: a reclaim loses half a checkpoint interval, the restart, and the reload
  (``training_reload_s``): the last checkpoint, each node its share, read back from where it was
  written (``Assumptions.checkpoint_read_gbps``: a network volume, which outlives the reclaim; full
  training's holds the weights with the optimizer state, so the base weights are not fetched again),
  and the data it fetched (a streamed corpus resumes where the checkpoint left it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.billing import UNKNOWN_INCREMENT_S, billed_seconds
from gpuscout.advise.configs import ConfigEval
from gpuscout.advise.spot import SpotRisk, deadline_miss, spot_risk, young_interval_s
from gpuscout.advise.types import CostBreakdown
from gpuscout.advise.workload import (
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
)
from gpuscout.catalog.offer import Offer
from gpuscout.knowledge.provider_types import ProviderTerms

#: Checkpoints kept on storage during training (the latest and the one before).
CHECKPOINTS_KEPT = 2


def checkpoint_saves(run_s: float, interval_s: float) -> float:
    """Checkpoints written during a run of ``run_s`` seconds, one every ``interval_s`` (a whole number;
    inf past the float range; the final output is saved apart: :func:`checkpoint_save_s`)."""
    if not (interval_s > 0 and run_s > 0):
        return 0.0
    ratio = run_s / interval_s
    return float(math.floor(ratio + 1e-9)) if math.isfinite(ratio) else math.inf


def save_seconds(checkpoint_gb: float, nodes: int, write_gbps: float) -> float:
    """Seconds one checkpoint takes to write: each of ``nodes`` its share at ``write_gbps`` (0 where the
    rate is not positive: nothing is timed)."""
    return checkpoint_gb / max(1, nodes) / write_gbps if write_gbps > 0 else 0.0


def checkpoint_interval_s(
    w: FinetuneWorkload | PretrainWorkload,
    a: Assumptions,
    checkpoint_gb: float,
    nodes: int,
    gpus_per_node: int,
    reclaims_per_hour: float = 0.0,
) -> float:
    """Seconds between a run's checkpoints: the workload's ``checkpoint_interval_min``, else Young's
    interval (:func:`~gpuscout.advise.spot.young_interval_s`) for one save (each node its share at
    ``checkpoint_write_gbps``) and the run's interruptions: its GPUs' failures
    (``hardware_interruptions_per_gpu_hour``) plus ``reclaims_per_hour`` on spot. A 70B full fine-tune
    on one on-demand node (a 988 GB save of ~16 min) saves no checkpoint in a run of hours where a fixed
    30 minutes spent half its time saving; on spot it saves every few hours."""
    if w.checkpoint_interval_min is not None:
        return w.checkpoint_interval_min * 60.0
    save_s = save_seconds(checkpoint_gb, nodes, a.checkpoint_write_gbps)
    failures = a.hardware_interruptions_per_gpu_hour * nodes * gpus_per_node + reclaims_per_hour
    return young_interval_s(save_s, failures)


def full_training(w: AnyWorkload) -> bool:
    """Whether ``w`` trains every parameter (pre-training, full fine-tuning): its checkpoint holds the
    weights with the optimizer state; LoRA/QLoRA's holds the adapter only, the base weights frozen."""
    return isinstance(w, PretrainWorkload) or (isinstance(w, FinetuneWorkload) and w.method == "full")


#: Bytes per trained parameter of the adapter a LoRA/QLoRA run leaves (bf16), and of a checkpoint it
#: resumes from: the adapter and AdamW's two fp32 moments (8); the frozen base is not saved.
ADAPTER_BYTES_PER_PARAM = 2.0
ADAPTER_CHECKPOINT_BYTES_PER_PARAM = ADAPTER_BYTES_PER_PARAM + 8.0


def trained_output_gb(w: AnyWorkload, weights_gb: float, checkpoint_gb: float) -> float:
    """GB of what a training run leaves to keep: the trained weights (as large as the weights loaded,
    bf16 unless ``download_weights_gb`` says otherwise) for full training, the adapter for LoRA/QLoRA
    (its bf16 weights: the checkpoint without the optimizer state)."""
    return (
        weights_gb
        if full_training(w)
        else checkpoint_gb * ADAPTER_BYTES_PER_PARAM / ADAPTER_CHECKPOINT_BYTES_PER_PARAM
    )


def streams_dataset(w: AnyWorkload) -> bool:
    """Whether ``w`` streams its data as it runs (a pre-training corpus: :func:`streamed_dataset_gb`)
    rather than fetching it to every instance before it starts (:func:`fetched_dataset_gb`)."""
    return isinstance(w, PretrainWorkload)


def streamed_dataset_gb(w: AnyWorkload) -> float:
    """GB of a pre-training corpus (``dataset_gb``), which the run streams as it trains: one copy stored
    where the nodes read it (object storage or a shared filesystem), each data-parallel rank reading its
    own shards, with nothing fetched before the run starts or again after a reclaim (the loader resumes
    from the checkpoint's position). A corpus is read at a few bytes per trained token, megabytes per
    second per node against a node's ``download_gbps``, so the stream does not bound the run. A copy of
    the whole corpus fetched to every node before it starts (the pessimistic reading) would delay every
    node by ``dataset_gb / download_gbps`` (2.2 h for 4 TB at 0.5 GB/s) and store it once per node."""
    return w.dataset_gb if streams_dataset(w) else 0.0


def split_dataset_gb(w: AnyWorkload) -> float:
    """GB of a batch job's input (``dataset_gb``), which its instances split between them: they work
    apart, each on its own part of the requests (or images), so each fetches only its share,
    ``dataset_gb / instances``, before it starts (and again after a reclaim), and the shares add up to
    one stored copy (:attr:`~gpuscout.advise.configs.ConfigEval.split_data_gb`). Fetching the whole input
    to each of 20 instances had counted 2 TB as 40 TB stored and 67 min of download on every instance."""
    return w.dataset_gb if isinstance(w, BatchWorkload) else 0.0


def fetched_dataset_gb(w: AnyWorkload) -> float:
    """GB of data each instance fetches whole before it starts, and again after a reclaim: a fine-tune's
    ``dataset_gb`` (a fine-tuning set is small, and every data-parallel node's sampler reads from all of
    it) or a serving replica's; none of a pre-training corpus, which is streamed
    (:func:`streamed_dataset_gb`), nor of a batch's input, which its instances split
    (:func:`split_dataset_gb`)."""
    return w.dataset_gb - streamed_dataset_gb(w) - split_dataset_gb(w)


def start_weights_gb(w: AnyWorkload, weights_gb: float) -> float:
    """GB of weights a job fetches and loads before it starts: the model's (``weights_gb``), except for
    pre-training, which starts from random weights initialised on the GPUs and so fetches none, unless
    ``download_weights_gb`` names a starting checkpoint."""
    if isinstance(w, PretrainWorkload) and w.download_weights_gb is None:
        return 0.0
    return weights_gb


def training_reload_s(ev: ConfigEval, w: AnyWorkload, a: Assumptions) -> float:
    """Seconds a training node spends after a spot reclaim (and the restart) before it trains again: it
    reads its share of the last checkpoint (``checkpoint_gb / nodes``: each writes and reads its shard)
    back from where it was written, straight into memory, at ``a.checkpoint_read_gbps()`` (a network
    volume: the reclaimed instance's local disks are gone); it fetches the data, and for LoRA/QLoRA the
    frozen base weights too, at ``download_gbps`` and loads those weights at ``load_gbps``."""
    return reload_seconds(w, a, ev.checkpoint_gb, ev.instances, ev.download_gb_per_instance, ev.load_gb)


def reload_seconds(
    w: AnyWorkload, a: Assumptions, checkpoint_gb: float, nodes: int, download_gb: float, load_gb: float
) -> float:
    """:func:`training_reload_s` of a run on ``nodes`` nodes with these sizes (before its
    ``ConfigEval`` exists: the node count's choice weighs it)."""
    checkpoint_s = checkpoint_gb / max(1, nodes) / a.checkpoint_read_gbps()
    if full_training(w):
        return fetched_dataset_gb(w) / a.download_gbps + checkpoint_s
    return download_gb / a.download_gbps + load_gb / a.load_gbps + checkpoint_s


def training_interruptions(
    w: FinetuneWorkload | PretrainWorkload,
    a: Assumptions,
    *,
    time_s: float,
    nodes: int,
    gpus_per_node: int,
    checkpoint_gb: float,
    on_demand_interval_s: float | None,
    reload_s: float,
    reclaims_per_node_hour: float,
) -> tuple[SpotRisk, float]:
    """What interrupts a training run of ``time_s`` on ``nodes`` nodes, and the extra checkpoint saves a
    spot run makes: its GPUs' and hosts' failures (on-demand capacity too), and on spot
    ``reclaims_per_node_hour`` per node, ``nodes`` times as often for the run (its nodes step together:
    a reclaim of any stops all). The checkpoint interval is Young's for both; the saves beyond those of
    the on-demand interval (``on_demand_interval_s``, None: the same) are the seconds returned with the
    risk. The cost model (:func:`cost_model`) and the node count's choice on spot
    (``training_configs``) both read it."""
    failures = a.hardware_interruptions_per_gpu_hour * nodes * gpus_per_node
    reclaims = reclaims_per_node_hour * nodes
    interval = checkpoint_interval_s(w, a, checkpoint_gb, nodes, gpus_per_node, reclaims)
    on_demand = on_demand_interval_s if on_demand_interval_s is not None else interval
    added = checkpoint_saves(time_s, interval) - checkpoint_saves(time_s, on_demand)
    extra_saves_s = 0.0
    if added > 0 and math.isfinite(added):
        extra_saves_s = added * save_seconds(checkpoint_gb, nodes, a.checkpoint_write_gbps)
    risk = spot_risk(
        work_s=time_s,
        rate_per_hour=reclaims + failures,
        checkpoint_interval_s=interval,
        restart_s=a.restart_s,
        reload_s=reload_s,
        failures_per_hour=failures,
    )
    return risk, extra_saves_s


@dataclass(frozen=True, slots=True)
class CostModel:
    """Price-independent quantities (all instances together)."""

    compute_h: float  # billed instance-hours of work, billing rounding included
    warmup_h: float  # instance-hours spent booting, downloading and loading weights
    interruption_h: float  # expected instance-hours lost to spot reclaims (training: and GPU failures)
    storage_gb_months: float
    egress_billable_gb: float
    increment_s: int | None
    minimum_s: int | None
    billed_h_per_day: float | None = None  # serve: billed hours per instance per day, this provider
    exact_h_per_day: float | None = None  # serve: the same at per-second billing, no minimum
    risk: SpotRisk | None = None
    warmup_s_per_start: float = 0.0
    download_s: float = 0.0
    reload_s: float = 0.0  # spot: per reclaim, fetching and loading what the work resumes from
    # spot training: seconds of the saves its shorter (spot) checkpoint interval adds, in ``interruption_h``
    extra_saves_s: float = 0.0
    retained_gb: float = 0.0  # jobs: GB kept for ``storage_retention_days`` after the run
    # a spot job under a deadline: the chance its reclaims make it miss the deadline (``deadline_miss``)
    deadline_miss: float | None = None

    @property
    def billed_h(self) -> float:
        """The instance-hours a row pays for: work with the billing rounding, warm-ups, spot reclaims."""
        return self.compute_h + self.warmup_h + self.interruption_h


def reclaim_rounding_s(reclaims: float, increment_s: int | None) -> float:
    """Instance-seconds billed for the part of an increment spot reclaims leave unused: each reclaim ends
    the reclaimed instance's billing session at a moment the billing increment does not choose, half an
    increment on average (per hour, or an unknown increment: 30 min; per second: nothing worth
    counting). The work, the rework and the restarts are billed as they run, rounded with the rest."""
    step = increment_s if increment_s is not None else UNKNOWN_INCREMENT_S
    return max(0.0, reclaims) * step / 2.0 if step > 1 else 0.0


def spot_reclaims_rounding_s(risk: SpotRisk, increment_s: int | None) -> float:
    """Instance-seconds billed for the increments the reclaims of ``risk`` leave unused
    (:func:`reclaim_rounding_s`): its interruptions that are reclaims, not failures."""
    return reclaim_rounding_s(risk.expected_interruptions * _reclaim_share(risk), increment_s)


def _reclaim_share(risk: SpotRisk) -> float:
    """The share of a spot run's interruptions that are reclaims (the rest, GPU and host failures, stop
    the job but not the instance's billing session)."""
    if risk.rate_per_hour <= 0:
        return 0.0
    return max(0.0, risk.rate_per_hour - risk.failures_per_hour) / risk.rate_per_hour


def cost_model(ev: ConfigEval, w: AnyWorkload, terms: ProviderTerms, spot: bool, a: Assumptions) -> CostModel:
    """Billed hours, GB-months and billable egress for ``ev`` under ``terms``."""
    inc, minimum = terms.billing_increment_s, terms.minimum_charge_s
    load_s = start_weights_gb(w, ev.load_gb) / a.load_gbps
    download_s = ev.download_gb_per_instance / a.download_gbps
    free = terms.egress_free_gb_per_month or 0.0
    egress = max(0.0, w.egress_gb - free)
    n = ev.instances
    if isinstance(w, ServeWorkload):
        days = w.days_per_month
        starts = max(1.0, w.starts_per_day * days)
        active_s = w.active_hours_per_day * 3600.0 * days
        per_start = active_s / starts
        warm = a.boot_s + load_s
        billed = (starts - 1.0) * billed_seconds(per_start + warm, inc, minimum) + billed_seconds(
            per_start + warm + download_s, inc, minimum
        )
        warm_total = starts * warm + download_s
        risk = None
        interruption_s = 0.0
        if spot:
            risk = spot_risk(
                work_s=active_s,
                rate_per_hour=a.interruption_rate(terms.kind),
                checkpoint_interval_s=None,
                restart_s=a.restart_s,
                reload_s=download_s + load_s,
            )
            interruption_s = risk.lost_s
            billed += spot_reclaims_rounding_s(risk, inc)
        billed_day = exact_day = None
        if w.starts_per_day > 0:
            billed_day = w.starts_per_day * billed_seconds(per_start + warm, inc, minimum) / 3600.0
            exact_day = w.starts_per_day * (per_start + warm) / 3600.0
        storage = n * ev.download_gb_per_instance * (days + w.storage_retention_days) / 30.0
        return CostModel(
            compute_h=n * max(0.0, billed - warm_total) / 3600.0,
            warmup_h=n * warm_total / 3600.0,
            interruption_h=n * interruption_s / 3600.0,
            storage_gb_months=storage,
            egress_billable_gb=egress,
            increment_s=inc,
            minimum_s=minimum,
            billed_h_per_day=billed_day,
            exact_h_per_day=exact_day,
            risk=risk,
            warmup_s_per_start=warm,
            download_s=download_s,
        )
    assert isinstance(w, BatchWorkload | FinetuneWorkload | PretrainWorkload)
    warm = a.boot_s + download_s + load_s
    billed = billed_seconds(ev.time_s + warm, inc, minimum)
    risk = None
    interruption_s = 0.0
    training = isinstance(w, FinetuneWorkload | PretrainWorkload)
    reload_s = training_reload_s(ev, w, a) if training else download_s + load_s
    # a training run stops on any of its GPUs' or hosts' failures, on-demand capacity too
    failures = a.hardware_interruptions_per_gpu_hour * n * ev.gpus_per_instance if training else 0.0
    extra_saves_s = 0.0
    if isinstance(w, FinetuneWorkload | PretrainWorkload) and (spot or failures > 0):
        # a training run's nodes step together: a reclaim of any of them stops all, so the run is
        # interrupted n times as often; reclaims on top of failures shorten the interval (Young's), whose
        # extra saves the run pays
        risk, extra_saves_s = training_interruptions(
            w,
            a,
            time_s=ev.time_s,
            nodes=n,
            gpus_per_node=ev.gpus_per_instance,
            checkpoint_gb=ev.checkpoint_gb,
            on_demand_interval_s=ev.checkpoint_interval_s,
            reload_s=reload_s,
            reclaims_per_node_hour=a.interruption_rate(terms.kind) if spot else 0.0,
        )
        interruption_s = risk.lost_s + extra_saves_s
    elif spot and isinstance(w, BatchWorkload):  # independent instances, each reclaimed at its own rate
        risk = spot_risk(
            work_s=ev.time_s,
            rate_per_hour=a.interruption_rate(terms.kind),
            checkpoint_interval_s=w.checkpoint_interval_min * 60.0,
            restart_s=a.restart_s,
            reload_s=reload_s,
        )
        interruption_s = risk.lost_s
    if interruption_s > 0:
        # the rework and restarts are billed time too, rounded with the rest; each reclaim also ends a
        # billing session part-way through an increment
        billed = billed_seconds(ev.time_s + warm + interruption_s, inc, minimum)
        if spot and risk is not None:
            # a training run's count is the run's (any node's reclaim stops all): each ends the billing
            # session of the one node reclaimed, the others wait for it billed as they run
            billed += spot_reclaims_rounding_s(risk, inc) / (n if training else 1)
    miss = None
    if spot and risk is not None and w.deadline_hours is not None:
        # the time without interruptions (work, warm-up, a spot run's extra saves) against the deadline; a
        # training run's risk is the run's, a batch's instances are reclaimed apart
        slack = w.deadline_hours * 3600.0 - (ev.time_s + warm + extra_saves_s)
        miss = deadline_miss(risk, slack, 1 if training else n)
    job_months = ev.time_s / 86400.0 / 30.0
    kept_months = w.storage_retention_days / 30.0
    if training:
        # during the run every node holds its own copy of the weights and the data it fetched, a streamed
        # corpus is stored once, and the last checkpoints are kept; afterwards only the trained weights (or
        # adapter): the checkpoints and the corpus are deleted
        output = ev.load_gb if ev.output_weights_gb is None else ev.output_weights_gb
        retained = trained_output_gb(w, output, ev.checkpoint_gb)
        stored = n * ev.download_gb_per_instance + streamed_dataset_gb(w)
        storage = (stored + CHECKPOINTS_KEPT * ev.checkpoint_gb) * job_months
        storage += retained * kept_months
    else:
        # a batch's outputs (what it moves out) are kept, with one copy of the weights and data (its
        # instances' shares of the input add up to one copy)
        retained = ev.one_copy_gb + w.egress_gb
        storage = (n * ev.download_gb_per_instance + w.egress_gb) * job_months
        storage += retained * kept_months
    return CostModel(
        compute_h=n * max(0.0, billed - warm - interruption_s) / 3600.0,
        warmup_h=n * warm / 3600.0,
        interruption_h=n * interruption_s / 3600.0,
        storage_gb_months=storage,
        egress_billable_gb=egress,
        increment_s=inc,
        minimum_s=minimum,
        risk=risk,
        warmup_s_per_start=warm,
        download_s=download_s,
        reload_s=reload_s,
        retained_gb=retained,
        extra_saves_s=extra_saves_s,
        deadline_miss=miss,
    )


def billed_hours_floor(ev: ConfigEval, w: AnyWorkload) -> float:
    """Instance-hours that ``cost_model(ev, w, ...).compute_h`` is never below, whatever the billing
    terms: serve, every active hour of the month on every instance; a job, its run time on every
    instance (billing rounds each start up and adds the warm-up on top), less a millisecond per start
    for float rounding. A row's total is therefore at least its hourly price times this (the other
    cost terms are not negative): the ranking uses it to skip offers that cannot be shown."""
    if isinstance(w, ServeWorkload):
        starts = max(1.0, w.starts_per_day * w.days_per_month)
        active_s = w.active_s_month
        return ev.instances * max(0.0, active_s - starts * _SLACK_S) / 3600.0
    return ev.instances * max(0.0, ev.time_s - _SLACK_S) / 3600.0


#: Seconds per start that ``billed_hours_floor`` leaves for rounding (``billed_seconds`` may bill up to
#: a billionth of an increment less than the duration; adding a warm-up loses the last bits of a tiny
#: run time).
_SLACK_S = 1e-3


@dataclass(frozen=True, slots=True)
class DataPrices:
    """Storage and egress prices for one offer, and whether each was a fallback assumption."""

    storage_usd_per_gb_month: float
    egress_usd_per_gb: float
    storage_assumed: bool
    egress_assumed: bool


def data_prices(offer: Offer, terms: ProviderTerms, a: Assumptions) -> DataPrices:
    """Per-offer terms (marketplaces) first, then the provider's, then the documented fallback."""
    return data_prices_for(offer.storage_usd_per_gb_month, offer.egress_usd_per_gb, terms, a)


def data_prices_for(
    storage: float | None, egress: float | None, terms: ProviderTerms, a: Assumptions
) -> DataPrices:
    if storage is None:
        storage = terms.storage_usd_per_gb_month
    if egress is None:
        egress = terms.egress_usd_per_gb
    return DataPrices(
        storage_usd_per_gb_month=a.fallback_storage_usd_per_gb_month if storage is None else storage,
        egress_usd_per_gb=a.fallback_egress_usd_per_gb if egress is None else egress,
        storage_assumed=storage is None,
        egress_assumed=egress is None,
    )


def breakdown(cm: CostModel, usd_per_hour: float, prices: DataPrices) -> CostBreakdown:
    return CostBreakdown(
        compute=usd_per_hour * cm.compute_h,
        warmup=usd_per_hour * cm.warmup_h,
        storage=prices.storage_usd_per_gb_month * cm.storage_gb_months,
        egress=prices.egress_usd_per_gb * cm.egress_billable_gb,
        interruption=usd_per_hour * cm.interruption_h,
    )
