"""Rank offers for a workload: filter, estimate once per configuration, cost every offer, show the front.

``Ranker.advise`` is the advisor: it returns an :class:`~gpuscout.advise.types.Advice` (rows, picks,
targets, caveats, and the binding constraint when nothing passes); ``Ranker.rank`` and :func:`rank`
return its rows as a list.

How it stays fast on 100,000 offers: the estimate runs once per distinct ``ConfigKey`` (accelerator,
GPUs, fabrics), the cost model once per (configuration, billing terms, spot). The only pass over every
offer applies the filters that need no estimate and groups the rest by configuration; each group is
then costed (a few dictionary look-ups and multiplications per offer), keeping the cheapest row of each
distinct time (the only rows that can be on the Pareto front) and dropping rows that cannot be shown
once enough better ones exist. Ranking by cost, a group is costed cheapest price first and stops where
the price alone rules the rest out (``Ranker.score_rows``). Full ``Recommendation`` rows (with reasons,
and the estimates' assumption text) are built only for the rows shown.

``benchmarks/naive_rank.py`` computes the same answer from scratch for every offer; the tests and the
benchmark check that both agree.

What is left out before ranking (each with its reason in ``rejected``): providers/regions not asked
for, unavailable offers, fractional GPUs, stale offers and defunct providers (unless
``include_stale``), configurations that cannot run the workload (see the evaluators), spot or
auction-priced capacity for a workload that does not allow it (never for serve or pretrain unless
asked), totals over the budget, and jobs that miss their deadline (a batch's spot row is first given
the instances its expected reclaims need: ``spot_sized``).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import UTC, datetime
from functools import cached_property
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from gpuscout.advise.answer import (
    common_notes,
    dead_end,
    engine_cost_note,
    names_its_run,
    picks_rule,
    runs_heading,
    targets_applied,
    uncalibrated_picks,
)
from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.billing import describe_increment
from gpuscout.advise.configs import ConfigEval, ConfigKey, config_key, with_instances
from gpuscout.advise.cost import (
    CostModel,
    DataPrices,
    billed_hours_floor,
    breakdown,
    cost_model,
    data_prices,
    data_prices_for,
)
from gpuscout.advise.evaluators import evaluator_for
from gpuscout.advise.fleet_billing import expected_billed_h
from gpuscout.advise.pareto import COST_TOLERANCE, MAX_COST_ALLOWANCE, most_allowance
from gpuscout.advise.reasons import (
    RowContext,
    beaten_reason,
    budget_text,
    duration,
    explain,
    late_chance,
    over_budget_usd,
    stale_reason,
    usd,
)
from gpuscout.advise.selection import Candidate, Selection, check_objective, select
from gpuscout.advise.spot import on_time_slack
from gpuscout.advise.training_configs import TrainingEvaluator, adapter_dtype_words
from gpuscout.advise.types import (
    Advice,
    Config,
    EstimateSummary,
    Recommendation,
    UnitCosts,
)
from gpuscout.advise.window import request_past_window, sequence_past_window
from gpuscout.advise.workload import (
    AnyWorkload,
    BatchWorkload,
    FinetuneWorkload,
    PretrainWorkload,
    ServeWorkload,
)
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.errors import GpuscoutError, InvalidInputError, UnknownNameError, closest, quoted_value
from gpuscout.estimate.lazy_text import deferred_text
from gpuscout.gc_pause import collection_paused
from gpuscout.knowledge.provider_types import ProviderTerms

if TYPE_CHECKING:
    from gpuscout.knowledge.model_types import ModelSpec
    from gpuscout.knowledge.regions import RegionFilter

#: A scored row: (score, total, time, usd_per_hour, provider, instance_type, region, spot, index,
#: offer). The first nine items are the sort key (the index makes it total: offers never compare).
_Row = tuple[float, float, float, float, str, str, str, int, int, Offer]

_UNAVAILABLE = Availability.UNAVAILABLE
#: Why a row whose total is not a finite number (a price near the float limit) is never ranked.
NOT_FINITE = "the total cost is not a finite number (check the offer's prices)"
#: Why an auction / interruptible-only price is not used for a workload that does not allow spot.
SPOT_CLASS_ONLY = (
    "only an interruptible price (auction / bid, or an on-demand price equal to the bid): "
    "spot-class capacity, not used unless spot is allowed (--spot)"
)

#: Per (configuration, billing terms): (on-demand cost model, spot cost model, on-demand time, spot time).
_Pair = tuple[CostModel, CostModel, float, float]
#: Per configuration: (evaluation, unused, cost models by billing-terms signature: computed with the
#: times, and with stand-in times for a lazy serve ranking).
_BySig = dict[tuple[object, ...], _Pair]
_ConfigEntry = tuple[ConfigEval, float, tuple[_BySig, _BySig]]

_first = itemgetter(0)


class Scored(NamedTuple):
    """What ``Ranker.score_rows`` found."""

    rows: list[_Row]  # the rows kept for display, best first
    front: list[_Row]  # the cheapest rows of each distinct time (every row that can be on the front)
    passing: int  # costed (offer, price) rows that passed every filter
    skipped: int  # offers not costed: none of their rows could be shown (see ``score_rows``)
    pruned: bool  # rows were dropped or skipped: ``rows`` holds the best ones only


def _check_objective(objective: str) -> None:
    check_objective(objective)


def spot_class(offer: Offer) -> bool:
    """Whether even the offer's listed on-demand price is an interruptible one: an auction / bid price
    (``price_is_interruptible``), or an "on-demand" price equal to the spot price."""
    if offer.price_is_interruptible:
        return True
    spot, hourly = offer.spot_price_usd_per_hour, offer.price_usd_per_hour
    return spot is not None and hourly is not None and hourly > 0 and spot == hourly


@functools.lru_cache(maxsize=64)
def region_filter(regions: tuple[str, ...]) -> RegionFilter:
    """The workload's region filter: the catalog's (``gpuscout offers --region``), so that a region
    the catalog finds offers in is one the advisor ranks them in (words, countries and areas:
    :mod:`gpuscout.knowledge.regions`; an offer standing for several regions is in each). Its tables
    load only when a workload names regions: a recommend without a region filter skips them."""
    from gpuscout.knowledge.regions import RegionFilter

    return RegionFilter(regions)


# why an offer is out because the workload names other providers, regions or GPUs: not a finding about the
# offer, so the CLI's table of rows left out counts these rows instead of listing each
NOT_ASKED_PROVIDER = "provider not in the allowed list"
NOT_ASKED_REGION = "region not in the allowed list"
NOT_ASKED_GPU = "GPU not in the asked list"
NOT_ASKED = (NOT_ASKED_GPU, NOT_ASKED_PROVIDER, NOT_ASKED_REGION)


def prefilter_reason(w: AnyWorkload, offer: Offer, include_stale: bool = False) -> str | None:
    """Why an offer is out before any estimate (constraints, availability, staleness), or ``None``."""
    if w.providers and offer.provider.lower() not in {p.lower() for p in w.providers}:
        return NOT_ASKED_PROVIDER
    if w.regions and not region_filter(tuple(w.regions)).offer(offer.region, offer.regions):
        return NOT_ASKED_REGION
    if w.accelerators and offer.accelerator not in w.accelerators:
        return NOT_ASKED_GPU
    if offer.availability == Availability.UNAVAILABLE:
        return "unavailable"
    if offer.fractional:
        return "fractional GPU slice"
    if offer.stale and not include_stale:
        return f"{stale_reason(offer)} (--include-stale shows it)"
    return None


_PREFILTER_KIND = {
    "provider not": "provider",
    "region not": "region",
    "GPU not": "gpu",
    "unavailable": "unavailable",
    "fractional": "fractional",
    "stale:": "stale",
}


def _prefilter_kind(why: str) -> str:
    return next((kind for prefix, kind in _PREFILTER_KIND.items() if why.startswith(prefix)), "filtered")


def _prices(w: AnyWorkload, offer: Offer) -> list[tuple[bool, float]]:
    """(spot, USD/hour) candidates of one offer: on-demand (unless it is spot-class), and the spot or
    auction price when the workload allows spot."""
    out: list[tuple[bool, float]] = []
    hourly, spot = offer.price_usd_per_hour, offer.spot_price_usd_per_hour
    interruptible = spot_class(offer)
    if hourly is not None and hourly > 0 and not interruptible:
        out.append((False, hourly))
    best_spot = spot if spot is not None and spot > 0 else None
    if interruptible and hourly is not None and hourly > 0:
        best_spot = hourly if best_spot is None else min(best_spot, hourly)
    if w.spot_ok and best_spot is not None:
        out.append((True, best_spot))
    return out


def _time_metric(w: AnyWorkload, ev: ConfigEval) -> float:
    """Seconds: one request's latency for serve (TTFT + output at this speed), job duration otherwise."""
    if isinstance(w, ServeWorkload):
        s = ev.summary
        if s is None or s.ttft_ms is None or s.tpot_ms is None:
            return math.inf
        return (s.ttft_ms + w.output_tokens * s.tpot_ms) / 1000.0
    return ev.time_s


def _job_time(w: AnyWorkload, ev: ConfigEval, cm: CostModel) -> float:
    """Wall-clock time of the trade-off: serve, the request latency; jobs, the warm-up (boot, download,
    load: the instances start together), the duration, and the time spot reclaims add (rework and
    restarts, per instance)."""
    base = _time_metric(w, ev)
    if isinstance(w, ServeWorkload):
        return base
    base += cm.warmup_s_per_start
    if cm.interruption_h <= 0 or ev.instances <= 0:
        return base
    return base + cm.interruption_h * 3600.0 / ev.instances


def _batch_deadline(w: AnyWorkload) -> float | None:
    """The deadline (hours) a spot row is sized for (``spot_sized``): a batch job's; None otherwise."""
    return w.deadline_hours if isinstance(w, BatchWorkload) else None


def _fleet_most(offer: Offer) -> int:
    """The most instances of ``offer`` a batch is spread over (``billing_sized``):
    ``FREE_INSTANCES_MAX``, or fewer where the provider lists fewer free."""
    listed = offer.available_count
    return FREE_INSTANCES_MAX if listed is None else max(1, min(FREE_INSTANCES_MAX, listed))


def spot_sized(w: AnyWorkload, ev: ConfigEval, terms: ProviderTerms, a: Assumptions) -> ConfigEval:
    """The configuration a spot row of ``ev`` runs on.

    The evaluators size a batch job's instances so that it meets its deadline on demand; on spot the
    expected reclaims (rework and restarts, at ``terms.kind``'s rate) add to its time. A batch under a
    deadline therefore takes, on spot, the fewest instances ``k >= ev.instances`` (up to
    ``a.max_instances``) at which its time with those reclaims (``_job_time``) meets the deadline.
    ``ev`` itself otherwise: no deadline, not a batch (training sizes its nodes itself), already within
    it, or no ``k`` meets it (the spot row stays out for the deadline). Meeting it is on average and,
    as likely as ``a.max_deadline_miss`` allows, with the reclaims' spread (:func:`too_likely_late`).
    A training run whose node count was chosen for spot apart (``ConfigEval.on_spot``: its nodes'
    reclaims) runs that one."""
    if ev.on_spot is not None:
        return ev.on_spot
    deadline = _batch_deadline(w)
    if deadline is None or ev.rejected is not None or ev.instances <= 0:
        return ev
    deadline_s = deadline * 3600.0
    for k in range(ev.instances, a.max_instances + 1):
        sized = with_instances(ev, k) if k != ev.instances else ev
        cm = cost_model(sized, w, terms, True, a)
        if _job_time(w, sized, cm) <= deadline_s and not too_likely_late(cm, a):
            return sized
    return ev


def too_likely_late(cm: CostModel, a: Assumptions) -> bool:
    """Whether a spot job's reclaims make it miss its deadline more often than
    ``Assumptions.max_deadline_miss`` allows (``CostModel.deadline_miss``), though it meets it on
    average."""
    return cm.deadline_miss is not None and cm.deadline_miss > a.max_deadline_miss


#: A batch run on one instance at least this long (no deadline asked) is told what more instances of the
#: same offer would finish it in, where they cost at most ``SPREAD_HINT_MORE`` more (``_spread_hint``)
SPREAD_HINT_MIN_S = 24 * 3600.0
SPREAD_HINT_MORE = 0.05

#: The most instances a batch is spread over where they cost within the tolerance of the fewest (from this
#: many of one offer a row already asks the renter to check that the provider has them free)
FREE_INSTANCES_MAX = 8


def billing_options(
    w: AnyWorkload, ev: ConfigEval, terms: ProviderTerms, spot: bool, a: Assumptions, most: int
) -> tuple[ConfigEval, ...]:
    """The instance counts ``billing_sized`` chooses among, most instances first: those (from ``ev``'s own
    instances up to ``most``) whose *expected* billed hours are within the front's ``COST_TOLERANCE`` of
    the cheapest count's. ``(ev,)`` where a batch is not spread (see ``billing_sized``). A budget the first
    one's cost is over takes the most of the others whose nominal cost is within it
    (``Ranker.under_budget``)."""
    top = min(most, a.max_instances)
    if not isinstance(w, BatchWorkload) or ev.rejected is not None or ev.instances < 1 or top <= ev.instances:
        return (ev,)
    if w.deadline_hours is None and ev.instances != 1:
        return (ev,)
    options: list[tuple[ConfigEval, float]] = []
    for k in range(ev.instances, top + 1):
        sized = with_instances(ev, k) if k != ev.instances else ev
        options.append((sized, expected_billed_h(sized, w, terms, spot, a)))
    cheapest = min(h for _, h in options)
    within = [e for e, h in options if h <= cheapest * (1.0 + COST_TOLERANCE) + 1e-9]
    return tuple(sorted(within, key=lambda e: e.instances, reverse=True))


def billing_sized(
    w: AnyWorkload, ev: ConfigEval, terms: ProviderTerms, spot: bool, a: Assumptions, most: int
) -> ConfigEval:
    """A batch on the most instances (from its own ``ev.instances`` up to ``most``) whose *expected*
    billed hours (``fleet_billing.expected_billed_h``: the cost model averaged over the estimate's time
    error, ``fleet_billing.BATCH_TIME_ERROR``) stay within the front's ``COST_TOLERANCE`` of the cheapest
    count's, one rule for every billing increment. Under per-hour billing a job of 19.2 h is billed 20 h
    on one instance and 5 x 4 h on five, so five finish it 5x sooner for about the same money; under
    per-second billing each more instance pays only its own warm-up, so a 10 h job with a 10 min warm-up
    goes on 3 (1.7 % more than one: within 5 %); a job that needs 4 instances for its deadline (4 x 2.4 h,
    billed 4 x 3 h) costs less on 5 (5 x 2 h). A count whose instances end just short of a coarse step
    (8 x 2.997 h of 3 h) is expected to bill the next step often (0.1 % slower: 8 x 4 h), so it loses to a
    count with room where that one is expected to cost less. Any count within the tolerance and faster is
    a row the front would put ahead of the cheapest (``pareto.cost_allowance`` is at least
    ``COST_TOLERANCE``), so the ranking shows that one; the row's cost stays the nominal one.

    Without a deadline ``ev`` runs on one instance; with one, on the fewest that meet it (the evaluators
    size it, ``spot_sized`` adds a spot row's reclaims), and more instances only finish sooner. ``ev``
    itself otherwise: not a batch, or ``most`` not above its instances. The billed hours compared are the
    cost model's (warm-ups, minimum charges, and on a spot row the spot reclaims), so a ranking and the
    row it shows agree. The choice is blind to prices and the budget (it is cached per billing terms):
    where the budget is below the cost of this count but not of a count with fewer instances among those
    within the tolerance, the row takes that one (``Ranker.under_budget``)."""
    return billing_options(w, ev, terms, spot, a, most)[0]


def _total(cm: CostModel, price: float, s_price: float, e_price: float) -> float:
    """A row's total cost, in ``CostBreakdown.total``'s order (so both give the same float)."""
    return (
        price * cm.compute_h
        + price * cm.warmup_h
        + s_price * cm.storage_gb_months
        + e_price * cm.egress_billable_gb
        + price * cm.interruption_h
    )


def _per(total: float, units: float) -> float | None:
    """``total`` per unit; None when there are no units or the ratio is not a finite number (a load of
    1e-300 requests/s serves no token worth pricing)."""
    if units <= 0:
        return None
    ratio = total / units
    return ratio if math.isfinite(ratio) else None


def unit_costs(w: AnyWorkload, ev: ConfigEval, total: float) -> UnitCosts:
    if isinstance(w, ServeWorkload):
        per_m = _per(total, ev.output_tokens / 1e6)
        per_k = _per(total, ev.output_tokens / w.output_tokens / 1e3)
        return UnitCosts(per_m, None, None, total, per_1k_requests=per_k)
    if isinstance(w, BatchWorkload):
        if w.is_images:
            return UnitCosts(None, _per(total, ev.images), total, None)
        per_k = _per(total, ev.output_tokens / w.output_tokens / 1e3)
        return UnitCosts(_per(total, ev.output_tokens / 1e6), None, total, None, per_1k_requests=per_k)
    per_train = _per(total, ev.train_tokens / 1e6)
    return UnitCosts(None, None, total, None, per_million_train_tokens=per_train)


def _config(ev: ConfigEval, spot: bool, cm: CostModel | None = None) -> Config:
    return Config(
        instances=ev.instances,
        gpus_per_instance=ev.gpus_per_instance,
        tp=ev.tp,
        replicas_per_instance=ev.replicas_per_instance,
        gpus_used=ev.gpus_used,
        nodes=ev.nodes,
        spot=spot,
        parallel=ev.parallel or ("layer" if ev.layer_split else "tensor"),
        training=ev.training + (_spot_saves(ev, cm) if spot else ""),
        idle_per_instance=ev.idle_gpus_per_instance,
        checkpoint_every_s=_checkpoint_every(ev, spot, cm),
    )


def _checkpoint_every(ev: ConfigEval, spot: bool, cm: CostModel | None) -> float | None:
    """Seconds between a training row's checkpoints during the run: the spot risk's interval on a spot
    row (reclaims shorten it), else the configuration's; None where none is saved before the end."""
    if not ev.training:
        return None
    risk = cm.risk if cm is not None and spot else None
    interval = risk.checkpoint_interval_s if risk is not None else ev.checkpoint_interval_s
    if interval is None or not math.isfinite(interval) or interval >= ev.time_s:
        return None  # the run ends before its first checkpoint falls due
    return interval


def _spot_saves(ev: ConfigEval, cm: CostModel | None) -> str:
    """What a spot training row's checkpoint plan changes from the on-demand one its ``training`` text
    states (``cost.checkpoint_interval_s``: Young's interval shortened by the reclaims): "; on spot: a
    checkpoint every 39 min (Young's interval with the reclaims), 2.1 h more saving"; "" where the
    interval is the same (asked for) or the row is no training run."""
    risk = cm.risk if cm is not None else None
    spot_iv = risk.checkpoint_interval_s if risk is not None else None
    if not ev.training or spot_iv is None or ev.checkpoint_interval_s is None:
        return ""
    if not math.isfinite(spot_iv) or abs(spot_iv - ev.checkpoint_interval_s) < 1.0:
        return ""
    extra = (
        f", {duration(cm.extra_saves_s)} more saving" if cm is not None and cm.extra_saves_s >= 1.0 else ""
    )
    return f"; on spot: a checkpoint every {duration(spot_iv)} (Young's interval with the reclaims){extra}"


def choice_group(offer: Offer, spot: bool, hourly: float) -> Hashable:
    """What makes two rows the same real choice: provider, instance type, GPUs, fabric and price (a
    region copy of the same offer is the same choice)."""
    return (
        offer.provider,
        offer.instance_type,
        offer.accelerator,
        offer.gpu_count,
        offer.interconnect,
        offer.internode,
        spot,
        hourly,
    )


def _candidate(row: _Row, surplus: bool = False, calibrated: bool = True) -> Candidate:
    _, total, time, hourly, provider, instance, region, spot, index, offer = row
    return Candidate(
        total,
        time,
        (hourly, provider, instance, region, spot, index),
        choice_group(offer, bool(spot), hourly),
        (offer, bool(spot), hourly),
        surplus,
        calibrated,
    )


def _speed_calibrated(ev: ConfigEval) -> bool:
    """Whether a configuration's speed is calibrated on its hardware's generation: its summary's flag,
    else (serve before its operating point is detailed) its estimate's; a configuration without either
    (rejected) has no speed to doubt."""
    if ev.summary is not None:
        return ev.summary.speed_calibrated
    return ev.estimate is None or ev.estimate.speed_calibrated


def checkpoint_precision(w: AnyWorkload, be: Backends) -> tuple[AnyWorkload, str]:
    """``w`` with the precision its model's name implies where no precision was given (a quantized
    checkpoint: "Qwen/Qwen3-8B-AWQ" -> int4, "...-GGUF" -> its Q4_K_M file, "...-FP8" -> the publisher's
    FP8), as ``gpuscout estimate`` takes it, and what to say of it ("" where nothing was implied)."""
    if not isinstance(w, ServeWorkload | BatchWorkload) or (w.precision and w.precision.strip()):
        return w, ""
    if be.models is None or getattr(w, "is_images", False):
        return w, ""
    try:
        implied = be.models.resolve_detail(w.model).precision
    except GpuscoutError:  # an unknown name: the ranking says so where it resolves the model
        return w, ""
    if not implied:
        return w, ""
    return w.model_copy(update={"precision": implied}), f"weights: {implied}, as the checkpoint's name says"


def _never_finishes(cm: CostModel) -> str:
    """Why a spot job is left out when its recovery from reclaims would take
    :data:`~gpuscout.advise.spot.RECOVERY_SHARE_LIMIT` of its time or more (the reclaim model no longer
    holds there: it would not finish); "" otherwise."""
    from gpuscout.advise.spot import RECOVERY_SHARE_LIMIT

    risk = cm.risk
    if risk is None or risk.rate_per_hour <= 0 or risk.recovering_share < RECOVERY_SHARE_LIMIT:
        return ""
    return (
        f"on spot it stops every {duration(3600.0 / risk.rate_per_hour)} (reclaims and failures of all its "
        f"nodes) and each stop costs {duration(risk.lost_s_per_interruption)} (rework, restart, reload): it "
        "would spend more time recovering than training; on-demand capacity or fewer nodes"
    )


class Ranker:
    """Ranks offers for one workload. Caches evaluations, terms and cost models across offers."""

    def __init__(
        self,
        workload: AnyWorkload,
        *,
        backends: Backends | None = None,
        assumptions: Assumptions | None = None,
        now: datetime | None = None,
        include_stale: bool = False,
    ) -> None:
        self.be = backends or default_backends()
        # a quantized checkpoint's name ("...-AWQ", "...-GGUF") sets the precision no field gave
        self.w, self.precision_note = checkpoint_precision(workload, self.be)
        workload = self.w
        self.a = assumptions or Assumptions()
        self.now = now or datetime.now(UTC)
        self.include_stale = include_stale
        self.evaluator = evaluator_for(workload, self.be, self.a)
        self._names: dict[str, tuple[ProviderTerms, tuple[object, ...], DataPrices]] = {}
        self._providers: dict[str, ProviderTerms] = {}
        self._cm: dict[tuple[object, ...], CostModel] = {}
        self._spot: dict[tuple[object, ...], ConfigEval] = {}
        self._options: dict[tuple[object, ...], tuple[ConfigEval, ...]] = {}  # ``under_budget``
        self._dp: dict[tuple[str, float | None, float | None], DataPrices] = {}
        # per configuration key: (evaluation, time, cost models by terms signature)
        # (training: and the offer's stated inter-node bandwidth and host RAM: TrainingEvaluator.evaluate)
        self._cfg: dict[tuple[object, ...], _ConfigEntry] = {}
        # the last ``score_rows``' offers by configuration (indices), for the region copies of the rows shown
        self._offer_groups: dict[tuple[object, ...], list[int]] | None = None
        # the offers left out, by kind: each counted once, and only when none of its rows passes (an
        # offer whose on-demand and spot rows are both out counts under its on-demand row's reason, the
        # spot row's where it has no on-demand price), so they add up to at most the offers ranked
        self.reject_counts: Counter[str] = Counter()
        # the rows left out, by kind (an offer's on-demand and spot rows are two): whether a constraint
        # left any row out, which ``binding_constraint`` relaxes
        self.reject_rows: Counter[str] = Counter()
        # the accelerators of the offers the engine and precision could not run on (their support verdict):
        # what a dead end's "would run" is judged on
        self.unsupported_accelerators: set[str] = set()
        self._times: dict[ConfigKey, float] = {}
        self._marks: dict[ConfigKey, float] = {}  # lazy serve ranking: configuration -> its stand-in time
        self._marked: dict[float, ConfigEval] = {}
        self._active_share: float | None = None
        self._odd_prices = False  # billing terms with a negative or NaN data price (no cut-off)

    @property
    def _training(self) -> TrainingEvaluator | None:
        """The evaluator where it is a training one (read from ``evaluator`` each time: a relaxed ranker
        may be given another's, :func:`gpuscout.advise.answer._relaxed_ranker`)."""
        return self.evaluator if isinstance(self.evaluator, TrainingEvaluator) else None

    @property
    def most_allowance(self) -> float:
        """The most more a faster row may cost and beat a slower one: less under a deadline
        (:func:`pareto.most_allowance`)."""
        return most_allowance(getattr(self.w, "deadline_hours", None) is not None)

    @property
    def acceptable_time(self) -> float:
        """The request latency an endpoint's stated latency targets allow, within the balanced pick's
        window (``ServeWorkload.stated_latency_s``); 0 for a job."""
        return self.w.stated_latency_s if isinstance(self.w, ServeWorkload) else 0.0

    # ---- knowledge look-ups ---------------------------------------------------------------------
    def terms(self, offer: Offer) -> ProviderTerms:
        """The billing terms that apply to ``offer`` (its ``billing_terms``, else its provider's)."""
        return self._name_entry(offer.billing_terms or offer.provider)[0]

    def provider(self, offer: Offer) -> ProviderTerms:
        """The offer's provider's own row (display name, status), whoever bills it."""
        found = self._providers.get(offer.provider)
        if found is None:
            found = self.be.provider_terms(offer.provider)
            self._providers[offer.provider] = found
        return found

    def _name_entry(self, name: str) -> tuple[ProviderTerms, tuple[object, ...], DataPrices]:
        """(terms, what of them the cost model reads, data prices when the offer has no terms of its own)."""
        entry = self._names.get(name)
        if entry is None:
            t = self.be.provider_terms(name)
            sig = (t.billing_increment_s, t.minimum_charge_s, t.egress_free_gb_per_month, t.kind)
            dp = data_prices_for(None, None, t, self.a)
            if not (dp.storage_usd_per_gb_month >= 0.0 and dp.egress_usd_per_gb >= 0.0):
                self._odd_prices = True
            entry = (t, sig, dp)
            self._names[name] = entry
        return entry

    def cost_model(self, ev: ConfigEval, terms: ProviderTerms, spot: bool) -> CostModel:
        """Cached on what the cost depends on: the configuration's quantities and the billing terms."""
        k = (
            ev.instances,
            ev.time_s,
            ev.load_gb,
            ev.output_weights_gb,
            ev.download_gb_per_instance,
            ev.checkpoint_gb,
            terms.billing_increment_s,
            terms.minimum_charge_s,
            terms.egress_free_gb_per_month,
            terms.kind,
            spot,
        )
        cm = self._cm.get(k)
        if cm is None:
            cm = cost_model(ev, self.w, terms, spot, self.a)
            self._cm[k] = cm
        return cm

    def spot_config(self, ev: ConfigEval, terms: ProviderTerms) -> ConfigEval:
        """``spot_sized``, cached on what it depends on: the configuration's quantities and the reclaim
        rate's provider kind (the ranking and the row shown use the same one)."""
        w = self.w
        if ev.on_spot is not None or _batch_deadline(w) is None:  # nothing to size, or nothing to cache
            return spot_sized(w, ev, terms, self.a)
        k = (ev.key, ev.instances, ev.time_s, ev.load_gb, ev.download_gb_per_instance, terms.kind)
        sized = self._spot.get(k)
        if sized is None:
            sized = spot_sized(w, ev, terms, self.a)
            self._spot[k] = sized
        return sized

    def time_on_most_instances(self, offer: Offer, spot: bool) -> float:
        """A batch job's time to finish on ``offer`` on the most instances the advisor proposes
        (``Assumptions.max_instances``), with the expected reclaims on spot: the tightest deadline its
        row can meet (inf where the configuration cannot run it). On spot, also the tightest its reclaims
        miss no more often than ``Assumptions.max_deadline_miss`` (``spot.on_time_slack``)."""
        ev = self.evaluator.evaluate(offer)
        if ev.rejected is not None or ev.instances <= 0:
            return math.inf
        most = with_instances(ev, self.a.max_instances)
        cm = self.cost_model(most, self.terms(offer), spot)
        t = _job_time(self.w, most, cm)
        if spot and cm.risk is not None and isinstance(self.w, BatchWorkload):
            slack = on_time_slack(cm.risk, self.a.max_deadline_miss, most.instances)
            t = max(t, t - cm.risk.lost_s + slack)
        return t

    def time_within_miss(self, offer: Offer, spot: bool) -> float:
        """A job's time on ``offer`` as this ranker's evaluator configures it (a training run's node count),
        with the expected reclaims on spot, and on spot also the tightest deadline its reclaims miss no
        more often than ``Assumptions.max_deadline_miss`` (``spot.on_time_slack`` past its time without
        interruptions: work, warm-up, extra saves): the tightest deadline its row is shown at (inf where
        the configuration cannot run it)."""
        ev = self.evaluator.evaluate(offer)
        if ev.rejected is not None or ev.instances <= 0:
            return math.inf
        terms = self.terms(offer)
        run = self.spot_config(ev, terms) if spot else ev
        cm = self.cost_model(run, terms, spot)
        t = _job_time(self.w, run, cm)
        if spot and cm.risk is not None:
            apart = 1 if isinstance(self.w, FinetuneWorkload | PretrainWorkload) else run.instances
            slack = on_time_slack(cm.risk, self.a.max_deadline_miss, apart)
            t = max(t, t - cm.risk.lost_s + slack)
        return t

    def soonest_within_miss(self, offers: Sequence[Offer]) -> tuple[float, Recommendation] | None:
        """Of every row this ranker passes (none cut for display), the one with the tightest deadline it
        is shown at (:meth:`time_within_miss`: a spot row's reclaims' spread counted; the cheaper among
        equal times), built, with that deadline; None where no row passes or none runs. A row's
        deadline is never below its expected time, so rows are taken soonest first and the rest skipped
        once their expected time is past the best deadline found (the spread is costly to compute)."""
        self._reset_rejects()
        rows = sorted(self.score_rows(offers, "cost", None, keep=None).rows, key=lambda r: (r[2], r[1]))
        best: tuple[float, float, int] = (math.inf, 0.0, 0)
        for n, r in enumerate(rows):
            if r[2] > best[0]:
                break
            best = min(best, (self.time_within_miss(r[9], r[7] == 1), r[1], n))
        t, _, n = best
        if not t < math.inf:
            return None
        row = rows[n]
        return t, self.recommendation(row[9], row[7] == 1, row[3], None, row[0])

    def fastest_on_most_instances(self, offers: Sequence[Offer]) -> tuple[float, Recommendation] | None:
        """Of every row this ranker passes (none cut for display), the one that finishes soonest on the
        most instances proposed (:meth:`time_on_most_instances`; the cheaper among equal times), built,
        with that time: the tightest deadline a batch's rows can meet. Scores ``offers`` again with none
        dropped (the evaluations and cost models are cached from any ranking before); None where no row
        passes or none runs."""
        self._reset_rejects()
        rows = self.score_rows(offers, "cost", None, keep=None).rows
        timed = ((self.time_on_most_instances(r[9], r[7] == 1), r[1], n) for n, r in enumerate(rows))
        t, _, n = min(timed, default=(math.inf, 0.0, 0))
        if not t < math.inf:
            return None
        row = rows[n]
        return t, self.recommendation(row[9], row[7] == 1, row[3], None, row[0])

    def data_prices(self, offer: Offer, terms: ProviderTerms) -> DataPrices:
        k = (terms.name, offer.storage_usd_per_gb_month, offer.egress_usd_per_gb)
        dp = self._dp.get(k)
        if dp is None:
            dp = data_prices(offer, terms, self.a)
            self._dp[k] = dp
        return dp

    @cached_property
    def model_spec(self) -> ModelSpec | None:
        """The workload's language model as the estimates resolve it (``Backends.models``: the user's
        imported models too; the curated table without one), for what a row's reasons say of its KV
        cache (``reasons.kv_needed_gb``: sliding-window layers hold their window only). Resolved once
        per ranking; None for a training or image workload, or a name no registry holds."""
        w = self.w
        if not isinstance(w, ServeWorkload | BatchWorkload) or (isinstance(w, BatchWorkload) and w.is_images):
            return None
        models = self.be.models
        try:
            if models is not None:
                return models.resolve(w.model)
            from gpuscout.knowledge.models import resolve_model

            return resolve_model(w.model)
        except GpuscoutError:
            return None

    # ---- building rows --------------------------------------------------------------------------
    def recommendation(
        self, offer: Offer, spot: bool, hourly: float, rank: int | None, score: float
    ) -> Recommendation:
        terms = self.terms(offer)
        ev = self.evaluator.evaluate(offer)
        if ev.rejected is not None:
            return self.rejected(offer, ev.rejected, fits=ev.fits, spot=spot, hourly=hourly, ev=ev)
        ev = self.evaluator.complete(ev)
        on_demand_instances = ev.instances  # what a deadline needs on demand
        base = ev  # before its spot sizing and spread (as ``score_rows`` sizes it)
        if spot:
            ev = self.spot_config(ev, terms)
        needed = ev.instances  # ... and on this row (a spot row: with its reclaims)
        fewest = ev
        most = _fleet_most(offer)
        ev = self.fleet_config(ev, terms, spot, most)  # as the ranking sized it (``_pair``)
        cm = self.cost_model(ev, terms, spot)
        dp = self.data_prices(offer, terms)
        s_price, e_price = dp.storage_usd_per_gb_month, dp.egress_usd_per_gb
        over_budget: tuple[int, float] | None = None  # the spread the budget declined: (instances, cost)
        budget = self.w.budget_usd
        if budget is not None and ev is not fewest and _total(cm, hourly, s_price, e_price) > budget:
            # as the ranking sized it under the budget (``score_rows``)
            fewer = self.under_budget(base, terms, spot, most, hourly, s_price, e_price)
            if fewer is not None:
                over_budget = (ev.instances, _total(cm, hourly, s_price, e_price))
                n = fewer[0].instances
                ev = with_instances(fewest, n) if n != fewest.instances else fewest
                cm = self.cost_model(ev, terms, spot)
        needed_billed_h = cm.billed_h if fewest is ev else self.cost_model(fewest, terms, spot).billed_h
        cost = breakdown(cm, hourly, dp)
        units = unit_costs(self.w, ev, cost.total)
        interruptible = spot and spot_class(offer)
        ctx = RowContext(
            self.w,
            offer,
            ev,
            cm,
            cost,
            units,
            terms,
            dp,
            spot,
            hourly,
            self.now,
            self.a,
            interruptible_price=interruptible,
            on_demand_instances=on_demand_instances,
            needed_instances=needed,
            needed_billed_h=needed_billed_h,
            over_budget=over_budget,
            model=self.model_spec,
        )
        reasons, warnings = explain(ctx)
        spread = self._spread_hint(offer, ev, terms, spot, hourly, dp, cost.total, _job_time(self.w, ev, cm))
        if spread:
            reasons = (*reasons, spread)
        return Recommendation(
            offer=offer,
            config=_config(ev, spot, cm),
            fits=True,
            estimate=ev.summary,
            time_s=ev.time_s,
            cost=cost,
            unit_costs=units,
            price_usd_per_hour=hourly,
            reasons=reasons,
            warnings=warnings,
            rank=rank,
            score=score,
            assumptions=self._assumptions(ev, terms),
            provider_name=self.provider(offer).display_name,
            regions=offer.regions or (offer.region,),
            time_to_result_s=_job_time(self.w, ev, cm),
            substitution=ev.substitution,
            fabric_assumed=ev.fabric_assumed,
        )

    def _spread_hint(
        self,
        offer: Offer,
        ev: ConfigEval,
        terms: ProviderTerms,
        spot: bool,
        hourly: float,
        dp: DataPrices,
        total: float,
        time_s: float,
    ) -> str:
        """A long batch run on one instance (no deadline asked: the ranking keeps the fewest instances,
        spreading only where billing makes more cost no more) that more instances of the same offer would
        finish several times sooner for a few per cent more: said, with the figures, so that the renter
        who wants it asks for it (a 10B-token 405B job was "fastest" on one box for 62.7 days where eight
        finish in 7.9 for 0.4 % more). "" otherwise."""
        w = self.w
        if not isinstance(w, BatchWorkload) or w.deadline_hours is not None or ev.instances != 1:
            return ""
        if time_s < SPREAD_HINT_MIN_S:
            return ""
        k = _fleet_most(offer)
        if k <= 1:
            return ""
        wide = with_instances(ev, k)
        cm_k = self.cost_model(wide, terms, spot)
        total_k = breakdown(cm_k, hourly, dp).total
        time_k = _job_time(w, wide, cm_k)
        if time_k > time_s / 2 or total_k > total * (1.0 + SPREAD_HINT_MORE):
            return ""
        more = (total_k / total - 1.0) * 100.0 if total > 0 else 0.0
        days = max(1, math.ceil(time_k / 86400.0))
        return (
            f"on {k} instances of this offer (if the provider has them free) it would finish in "
            f"{duration(time_k)} for {usd(total_k)} ({more:+.1f} %: each instance's own warm-up); "
            f"--deadline {days}d asks for it"
        )

    def rejected(
        self,
        offer: Offer,
        why: str,
        *,
        fits: bool = False,
        spot: bool = False,
        hourly: float | None = None,
        ev: ConfigEval | None = None,
    ) -> Recommendation:
        price = hourly if hourly is not None else (offer.price_usd_per_hour or 0.0)
        usable = ev is not None and ev.rejected is None
        config = (
            _config(ev, spot)
            if ev is not None and usable
            else Config(1, offer.gpu_count, 1, 1, offer.gpu_count, 1, spot)
        )
        summary: EstimateSummary | None = ev.summary if ev is not None else None
        return Recommendation(
            offer=offer,
            config=config,
            fits=fits,
            estimate=summary,
            time_s=None,
            cost=None,
            unit_costs=None,
            price_usd_per_hour=price,
            reasons=(f"rejected: {why}",),
            warnings=(),
            rank=None,
            score=math.inf,
            rejected=why,
            provider_name=self.provider(offer).display_name,
            regions=offer.regions or (offer.region,),
        )

    def _assumptions(self, ev: ConfigEval, terms: ProviderTerms) -> dict[str, str]:
        out = self.a.as_dict()
        if not isinstance(self.w, FinetuneWorkload | PretrainWorkload):
            del out["training memory headroom"]  # a serving or batch row sizes no training state
            del out["checkpoint writes"]  # nor writes checkpoints
        else:
            adapters = adapter_dtype_words(self.w)  # LoRA / QLoRA: the adapters' dtype the row assumes
            if adapters is not None:
                out["LoRA adapters"] = adapters
        minimum = "no minimum" if terms.minimum_charge_s is None else f"minimum {terms.minimum_charge_s} s"
        # the record's confidence vouches for terms it states: after "unknown" it would contradict itself
        vouched = f" ({terms.confidence})"
        if terms.billing_increment_s is None:
            minimum, vouched = "minimum unknown", ""
        out["billing"] = (
            f"{terms.display_name}: {describe_increment(terms.billing_increment_s)}, {minimum}{vouched}"
        )
        if ev.estimate is not None:
            out.update({f"estimate: {k}": v for k, v in ev.estimate.assumptions.items()})
        return out

    # ---- scoring --------------------------------------------------------------------------------
    def _offer_key(self, offer: Offer) -> tuple[object, object]:
        """What besides its configuration sets an offer's evaluation: for training (``TrainingEvaluator``)
        the inter-node bandwidth it states and how it is billed (``memo_extra``); the host RAM where the
        kind's evaluation depends on it (``host_ram_matters``: training's offload layouts, image pipelines
        under CPU offload)."""
        extra = None if self._training is None else self._training.memo_extra(offer)
        return (extra, offer.ram_gb if self.evaluator.host_ram_matters else None)

    def _config_entry(self, offer: Offer) -> _ConfigEntry:
        key = (*config_key(offer), *self._offer_key(offer))
        entry = self._cfg.get(key)
        if entry is None:
            entry = (self.evaluator.evaluate(offer), 0.0, ({}, {}))
            self._cfg[key] = entry
        return entry

    def _surplus(self, offer: Offer) -> bool:
        """Whether ``offer``'s configuration rents more GPUs than the load needs (serve only: see
        ``ConfigEval.rents_surplus``); such a row does not set the balanced pick's window."""
        return self._config_entry(offer)[0].rents_surplus

    def _calibrated(self, offer: Offer) -> bool:
        """Whether ``offer``'s row's speed rests on constants fitted on its hardware's generation
        (``EstimateSummary.speed_calibrated``; a serve configuration is summarised only once detailed:
        until then its estimate at capacity says, ``Estimate.speed_calibrated``)."""
        return _speed_calibrated(self._config_entry(offer)[0])

    def _candidates(self, rows: Sequence[_Row], *, front: bool) -> list[Candidate]:
        """The selection's candidates of ``rows`` (``front``: with whether each rents surplus GPUs)."""
        return [_candidate(r, self._surplus(r[9]) if front else False, self._calibrated(r[9])) for r in rows]

    def _serve_time(self, ev: ConfigEval) -> float:
        """Serve's time axis for a configuration (its operating point), computed once."""
        t = self._times.get(ev.key)
        if t is None:
            t = _time_metric(self.w, self.evaluator.detail(ev))
            self._times[ev.key] = t
        return t

    def _time_floor(self, ev: ConfigEval) -> float:
        """A lower bound of serve's request latency without the operating point: every output token
        streams at least the active share of one GPU's weights at the GPU's full bandwidth."""
        e, acc = ev.estimate, ev.accelerator
        if not isinstance(self.w, ServeWorkload) or e is None or acc is None or acc.bandwidth_gbps <= 0:
            return 0.0
        if self._active_share is None:
            try:
                model = self.w.model
                self._active_share = min(1.0, self.be.active_params_b(model) / self.be.params_b(model))
            except (ZeroDivisionError, GpuscoutError):
                self._active_share = 0.0
        return self.w.output_tokens * e.memory.weights_gb * self._active_share / acc.bandwidth_gbps

    def fleet_config(self, ev: ConfigEval, terms: ProviderTerms, spot: bool, most: int) -> ConfigEval:
        """``billing_sized``: a batch on the most instances billed within the cost tolerance of the fewest."""
        return billing_sized(self.w, ev, terms, spot, self.a, most)

    def under_budget(
        self,
        ev: ConfigEval,
        terms: ProviderTerms,
        spot: bool,
        most: int,
        price: float,
        s_price: float,
        e_price: float,
    ) -> tuple[ConfigEval, CostModel] | None:
        """A batch row whose instances (``billing_sized``'s: the most within the cost tolerance) cost more
        than the budget at ``price``: the most instances among those billing chose from
        (``billing_options``) whose nominal cost, the cost shown and compared with the budget, is within
        it, with its cost model; None where none is (the row stays out for the budget, on the count
        ``billing_sized`` gives) or there is no budget. ``ev`` is the configuration before its spot
        sizing and spread (as ``_pair`` takes it)."""
        budget = self.w.budget_usd
        if budget is None:
            return None
        base = self.spot_config(ev, terms) if spot else ev
        k = (
            base.key,
            base.instances,
            base.time_s,
            base.load_gb,
            base.download_gb_per_instance,
            base.checkpoint_gb,
            terms.billing_increment_s,
            terms.minimum_charge_s,
            terms.egress_free_gb_per_month,
            terms.kind,
            spot,
            most,
        )
        options = self._options.get(k)
        if options is None:
            options = billing_options(self.w, base, terms, spot, self.a, most)
            self._options[k] = options
        for e in options[1:]:
            cm = self.cost_model(e, terms, spot)
            if _total(cm, price, s_price, e_price) <= budget:
                return e, cm
        return None

    def _pair(
        self, ev: ConfigEval, terms: ProviderTerms, lazy: bool, most: int = FREE_INSTANCES_MAX
    ) -> _Pair:
        spot_ev = self.spot_config(ev, terms)  # a batch under a deadline: sized for its reclaims
        # then on as many instances as cost within the tolerance of that (``most`` at most: ``billing_sized``)
        ev, spot_ev = self.fleet_config(ev, terms, False, most), self.fleet_config(spot_ev, terms, True, most)
        od, sp = self.cost_model(ev, terms, False), self.cost_model(spot_ev, terms, True)
        if lazy:  # serve ranked by cost: the time is set after the loop, for the configurations that need it
            mark = self._marks.get(ev.key)
            if mark is None:  # a stand-in time, unique to the configuration (negative: never a real one)
                mark = -float(len(self._marks) + 1)
                self._marks[ev.key] = mark
                self._marked[mark] = ev
            return od, sp, mark, mark
        if isinstance(self.w, ServeWorkload):
            t = self._serve_time(ev)
            return od, sp, t, t
        return od, sp, _job_time(self.w, ev, od), _job_time(self.w, spot_ev, sp)

    def _reset_rejects(self) -> None:
        """Forget the last ranking's left-out rows (their counts and the GPUs refused as unsupported)."""
        self.reject_counts.clear()
        self.reject_rows.clear()
        self.unsupported_accelerators.clear()

    def _reject(
        self,
        out: list[tuple[int, Recommendation]] | None,
        kind: str,
        index: int,
        offer: Offer,
        why: str,
        *,
        count: bool = True,
        **kw: object,
    ) -> None:
        """Leaves out a row of ``offer`` (appended to ``out`` when kept). ``count``: the offer is out
        too, and counted in ``reject_counts`` (False for an on-demand or spot row whose offer is counted
        once both are done: ``score_rows``)."""
        self.reject_rows[kind] += 1
        if count:
            self.reject_counts[kind] += 1
        if out is not None:
            out.append((index, self.rejected(offer, why, **kw)))  # type: ignore[arg-type]

    def _defunct_reason(self, offer: Offer) -> str | None:
        own = self.provider(offer)
        if not own.defunct:
            return None
        since = f" since {own.status_since}" if own.status_since else ""
        return f"{own.display_name} no longer sells capacity (defunct{since})"

    @staticmethod
    def _why_not(
        total: float,
        time: float,
        budget: float | None,
        deadline_s: float,
        miss: float | None = None,
        a: Assumptions | None = None,
    ) -> tuple[str, str]:
        """(kind, why) a costed row is out: a non-finite total, over budget, past the deadline, or (a spot
        row within it on average) too likely to miss it with its reclaims (``miss``, over ``a``'s
        ``max_deadline_miss``)."""
        if not total < math.inf:  # inf or NaN (a price near the float limit): never ranked
            return "price", NOT_FINITE
        if budget is not None and total > budget:
            return "budget", f"costs {over_budget_usd(total, budget)}, over the {budget_text(budget)} budget"
        late, due = duration(time), duration(deadline_s)
        if miss is not None and a is not None and time <= deadline_s:
            return "deadline", (
                f"finishes in {late} on average, but {late_chance(miss, due, a.max_deadline_miss)} (over the "
                f"{a.deadline_miss_words()} allowed)"
            )
        if late == due:  # rounded alike ("10.0 h, after the 10.0 h deadline"): say by how much
            over = time - deadline_s
            late = f"{late} ({duration(over) if over >= 1.0 else 'under a second'} late)"
        return "deadline", f"finishes in {late}, after the {due} deadline"

    def _group_offers(
        self, offers: Sequence[Offer], out: list[tuple[int, Recommendation]] | None
    ) -> tuple[dict[tuple[object, ...], list[int]], list[float]]:
        """``score_rows``' first pass: leaves out (and counts) the offers the filters reject before any
        estimate, and groups the rest by configuration (offer indices, in offer order), with the lowest
        price each offer can be costed at (by index; ``-inf`` where no bound holds)."""
        w = self.w
        spot_ok = w.spot_ok
        include_stale = self.include_stale
        providers = frozenset(p.lower() for p in w.providers)
        regions = region_filter(tuple(w.regions)) if w.regions else None
        accelerators = frozenset(w.accelerators)
        names = self._names
        inf = math.inf
        groups: dict[tuple[object, ...], list[int]] = {}
        self._offer_groups = groups
        leasts = [0.0] * len(offers)
        kinds: dict[str, str] = {}  # why an offer is filtered out -> the kind counted
        gone: dict[str, str | None] = {}  # provider -> why its offers are out (defunct), else None
        for i, offer in enumerate(offers):
            if (
                offer.availability is _UNAVAILABLE
                or offer.fractional
                or (offer.stale and not include_stale)
                or (providers and offer.provider.lower() not in providers)
                or (regions is not None and not regions.offer(offer.region, offer.regions))
                or (accelerators and offer.accelerator not in accelerators)
            ):
                why = prefilter_reason(w, offer, include_stale) or "filtered"
                kind = kinds.get(why)
                if kind is None:
                    kind = kinds[why] = _prefilter_kind(why)
                self._reject(out, kind, i, offer, why)
                continue
            provider = offer.provider
            try:
                reason = gone[provider]
            except KeyError:
                reason = gone[provider] = None if include_stale else self._defunct_reason(offer)
            if reason is not None:
                self._reject(out, "defunct", i, offer, reason)
                continue
            name = offer.billing_terms or provider
            if name not in names:
                self._name_entry(name)
            least = offer.price_usd_per_hour
            if spot_ok:
                spot = offer.spot_price_usd_per_hour
                if least is None or (spot is not None and spot < least):
                    least = spot
            if least is None or least != least:  # no price, or NaN: costed first (and left out)
                least = -inf
            s_price, e_price = offer.storage_usd_per_gb_month, offer.egress_usd_per_gb
            if (s_price is not None and not s_price >= 0.0) or (e_price is not None and not e_price >= 0.0):
                least = -inf  # a negative data price: the bound below does not hold, never skipped
            leasts[i] = least
            # training: what several nodes are timed over, how their count is billed; the host RAM (training,
            # images under CPU offload)
            key = (
                offer.accelerator,
                offer.gpu_count,
                offer.interconnect,
                offer.internode,
                *self._offer_key(offer),
            )
            group = groups.get(key)
            if group is None:
                groups[key] = group = []
            group.append(i)
        return groups, leasts

    def score_rows(
        self,
        offers: Sequence[Offer],
        objective: str,
        rejected: list[Recommendation] | None = None,
        keep: int | None = None,
    ) -> Scored:
        """The rows kept for display, the cheapest rows of each distinct time, and the counts.

        Two passes. The first runs once per offer and reads a few fields only: it leaves out (and
        counts) what the filters reject before any estimate and groups the rest by configuration, in
        offer order. The second evaluates each configuration once, in that order, and costs its
        offers: dictionary look-ups and the cost arithmetic (in the same order as
        ``CostBreakdown.total``, so both give the same float). Rejected rows are counted by kind (and
        appended to ``rejected``, in offer order).

        With ``keep``, rows that cannot be among the ``keep`` best are dropped as soon as ``keep``
        better ones exist (their score is above the ``keep``-th best so far); the front's candidates
        are kept apart. Ranking by cost, where all the rows of a configuration are at one time (serve,
        and training on demand; not a batch, whose instances follow each offer's billing:
        ``billing_sized``), its offers are costed cheapest price first, and the rest are skipped once
        that price times the hours the configuration is billed at least
        (:func:`~gpuscout.advise.cost.billed_hours_floor`) is above both the ``keep``-th best and the
        cheapest row at the configuration's time: no row left can be shown or be on the front.
        Skipped rows are not costed (``Scored.skipped`` counts their offers). Not for "balanced",
        whose scores depend on all rows.
        """
        if objective == "balanced":
            keep = None
        threshold = math.inf
        prune_at = 4 * keep + 64 if keep is not None else 0
        pruned = False
        w = self.w
        budget = w.budget_usd
        spot_ok = w.spot_ok
        deadline = getattr(w, "deadline_hours", None)
        deadline_s = deadline * 3600.0 if deadline is not None else math.inf
        by_cost = objective == "cost"
        lazy = by_cost and isinstance(w, ServeWorkload)  # serve's time only where the front needs it
        has_deadline = deadline is not None
        names = self._names
        rows: list[_Row] = []
        append = rows.append
        # time (lazy: the configuration's stand-in time) -> the cheapest rows there, and their cost
        best: dict[float, list[_Row]] = {}
        best_cost: dict[float, float] = {}
        counts, row_counts = self.reject_counts, self.reject_rows
        out: list[tuple[int, Recommendation]] | None = [] if rejected is not None else None
        passing = skipped = 0
        inf = math.inf
        serve = isinstance(self.w, ServeWorkload)  # a job's spot row may never finish (_never_finishes)

        # pass 1: the filters that need no estimate; the rest by configuration
        groups, leasts = self._group_offers(offers, out)

        # every row of a configuration at one time: its offers can be costed cheapest first
        # (not a batch: its offers' instances, so their times, follow their billing: ``billing_sized``)
        fleets = isinstance(w, BatchWorkload)
        cut_off = (
            keep is not None
            and out is None
            and by_cost
            and (lazy or not spot_ok)
            and not self._odd_prices
            and not fleets
        )
        # pass 2: per configuration (evaluated once), every offer's rows
        for items in groups.values():
            ev, _, by_sig = self._config_entry(offers[items[0]])
            if ev.rejected is not None:
                counts[ev.reject_kind or "fit"] += len(items)
                row_counts[ev.reject_kind or "fit"] += len(items)
                if ev.reject_kind == "unsupported":
                    self.unsupported_accelerators.add(offers[items[0]].accelerator)
                if out is not None:
                    out.extend((i, self.rejected(offers[i], ev.rejected, fits=ev.fits, ev=ev)) for i in items)
                continue
            cms = by_sig[lazy]
            hours = billed_hours_floor(ev, w) * (1.0 - 1e-6) if cut_off else 0.0
            if cut_off:
                # cheapest first, offer order among equal prices (a stable sort of indices in offer order)
                items.sort(key=leasts.__getitem__)
            at: float | None = None  # the configuration's time, once costed (cut_off)
            for done, i in enumerate(items):
                if cut_off and at is not None:
                    bound = leasts[i] * hours
                    if bound > threshold and bound > best_cost.get(at, inf):
                        skipped += len(items) - done
                        break
                offer = offers[i]
                listed = offer.available_count
                if listed is not None and ev.instances > listed:  # the provider says there are fewer
                    short = f"needs {ev.instances} instances; the provider lists {listed} available"
                    self._reject(out, "unavailable", i, offer, short, fits=True, ev=ev)
                    continue
                provider = offer.provider
                terms, sig, dp = names[offer.billing_terms or provider]
                most = _fleet_most(offer)
                pair = cms.get((sig, most))
                if pair is None:
                    pair = self._pair(ev, terms, lazy, most)
                    cms[(sig, most)] = pair
                at = pair[2]
                hourly, spot, s_price, e_price, left_out = _offer_prices(offer, dp, spot_ok)
                if left_out is not None:
                    kind, text = left_out
                    self._reject(out, kind, i, offer, text, fits=kind == "spot-only", ev=ev)
                    continue
                # on-demand (0), then spot (1): the same arithmetic, in ``CostBreakdown.total``'s order
                prices = ((0, hourly, pair[0], pair[2]), (1, spot, pair[1], pair[3]))
                # the offer is out when none of its rows passes: counted once, under the first row's
                # reason (on-demand's, where it has an on-demand price)
                out_kind: str | None = None
                for spot_flag, price, cm, time in prices:
                    if price is None:
                        continue
                    hopeless = _never_finishes(cm) if spot_flag == 1 and not serve else ""
                    if hopeless:
                        row_out = {"fits": True, "spot": True, "hourly": price, "ev": ev}
                        self._reject(out, "spot", i, offer, hopeless, count=False, **row_out)
                        out_kind = out_kind or "spot"
                        continue
                    total = _total(cm, price, s_price, e_price)
                    if fleets and budget is not None and total > budget:
                        # spread over more instances than the budget pays for: the most of the counts
                        # billing chose among whose cost is within it (``under_budget``)
                        fewer = self.under_budget(ev, terms, spot_flag == 1, most, price, s_price, e_price)
                        if fewer is not None:
                            cm, total = fewer[1], _total(fewer[1], price, s_price, e_price)
                            time = _job_time(w, fewer[0], cm)
                    risky = spot_flag == 1 and too_likely_late(cm, self.a)
                    if not (
                        total < inf
                        and (budget is None or total <= budget)
                        and (not has_deadline or (time <= deadline_s and not risky))
                    ):
                        miss = cm.deadline_miss if risky else None
                        kind, why = self._why_not(total, time, budget, deadline_s, miss, self.a)
                        if kind == "deadline" and ev.wider_refused:  # more nodes were not tried: why
                            why = f"{why}; {ev.wider_refused}"
                        spot_row = spot_flag == 1
                        row_out = {"fits": True, "spot": spot_row, "hourly": price, "ev": ev}
                        self._reject(out, kind, i, offer, why, count=False, **row_out)
                        if out_kind is None:
                            out_kind = kind
                        continue
                    out_kind = ""  # a row passes: the offer is not out
                    passing += 1
                    score = total if by_cost else time
                    low = best_cost.get(time, inf)
                    if total <= low or score <= threshold:
                        row: _Row = (
                            score,
                            total,
                            time,
                            price,
                            provider,
                            offer.instance_type,
                            offer.region,
                            spot_flag,
                            i,
                            offer,
                        )
                        if total < low:
                            best[time], best_cost[time] = [row], total
                        elif total == low:
                            best[time].append(row)
                        if score <= threshold:
                            append(row)
                if out_kind:
                    counts[out_kind] += 1
                if keep is not None and len(rows) >= prune_at:
                    rows.sort()
                    threshold = rows[keep - 1][0]
                    _cut(rows, keep)
                    pruned = True
        if rejected is not None and out is not None:
            out.sort(key=_first)  # offer order (stable: on-demand before spot)
            rejected.extend(r for _, r in out)
        pruned = pruned or skipped > 0
        if pruned and keep is not None:
            rows.sort()
            _cut(rows, keep)
        if not lazy:
            return Scored(rows, [r for rows_at in best.values() for r in rows_at], passing, skipped, pruned)
        return Scored(self._timed(rows), self._front_rows(best, best_cost), passing, skipped, pruned)

    def offers_like(self, groups: set[Hashable], offers: Sequence[Offer]) -> Iterable[Offer]:
        """``offers`` that may share a choice group (``choice_group``) with ``groups``, in offer order:
        those of the same configurations, as the last ``score_rows`` grouped them (a choice group holds
        the configuration's accelerator, GPUs and fabrics; offers it left out by a filter or a defunct
        provider share no group with a row it kept); all of them before any ranking."""
        by_config = self._offer_groups
        if by_config is None:
            return offers
        keys = {g[2:6] for g in groups if isinstance(g, tuple)}
        return [offers[i] for i in sorted(i for k, at in by_config.items() if k[:4] in keys for i in at)]

    def _with_time(self, row: _Row, time: float) -> _Row:
        return (row[0], row[1], time, *row[3:])

    def _timed(self, rows: list[_Row]) -> list[_Row]:
        """Rows with their serve time filled in, sorted again."""
        out = [self._with_time(r, self._serve_time(self._marked[r[2]])) for r in rows]
        out.sort()
        return out

    def _front_rows(self, best: dict[float, list[_Row]], best_cost: dict[float, float]) -> list[_Row]:
        """The cheapest rows of every configuration that can be on the front, with their times: on the
        whole front, or on the front of the calibrated rows alone (``Selection.calibrated_picks`` names
        an uncalibrated pick's alternative there).

        Configurations are taken cheapest first; one whose latency floor (``_time_floor``) is above the
        best time of the cheaper ones is dominated whatever its operating point, and is not estimated. A
        calibrated configuration is held to the cheaper calibrated ones only: an uncalibrated row that
        beats it takes it off the whole front, not off the calibrated rows' own. Should a computed time
        ever fall below its floor, every configuration is estimated instead.
        """
        order = sorted(best, key=lambda k: (best_cost[k], -k))
        for prune in (True, False):
            out: list[_Row] = []
            best_time = best_calibrated = math.inf
            sound = True
            for k in order:
                ev = self._marked[k]
                calibrated = _speed_calibrated(ev)
                floor = self._time_floor(ev)
                if prune and floor > (best_calibrated if calibrated else best_time):
                    continue
                t = self._serve_time(ev)
                if t < floor * (1.0 - 1e-9):
                    sound = False
                    break
                best_time = min(best_time, t)
                if calibrated:
                    best_calibrated = min(best_calibrated, t)
                out.extend(self._with_time(r, t) for r in best[k])
            if sound:
                return out
        return out

    def advise(
        self,
        offers: Iterable[Offer],
        objective: str = "cost",
        top: int | None = None,
        include_rejected: bool = False,
        diagnose: bool = True,
    ) -> Advice:
        """The whole answer: the rows to show (front first), picks, targets, caveats, and (``diagnose``)
        what binds when nothing passes."""
        offers = offers if isinstance(offers, Sequence) else list(offers)
        # the estimates' assumption text is built for the rows shown only; the cyclic collector
        # would walk every offer again while the ranking allocates (see gpuscout.gc_pause)
        with deferred_text(), collection_paused(len(offers)):
            return self._advise(offers, objective, top, include_rejected, diagnose)

    def _advise(
        self,
        offers: Iterable[Offer],
        objective: str,
        top: int | None,
        include_rejected: bool,
        diagnose: bool,
    ) -> Advice:
        _check_objective(objective)
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
            raise InvalidInputError(
                "top", f"must be a whole number >= 1, got {quoted_value(top)}", "an integer >= 1"
            )
        offers = offers if isinstance(offers, Sequence) else list(offers)
        self._validate(offers)
        self._reset_rejects()
        rejected: list[Recommendation] | None = [] if include_rejected else None
        keep = None if top is None else 2 * top + 32
        scored = self.score_rows(offers, objective, rejected, keep=keep)
        rows, front, passing = scored.rows, scored.front, scored.passing
        selection = select(
            self._candidates(front, front=True),
            self._candidates(rows, front=False),
            objective=objective,
            top=top,
            balanced_time_factor=self.a.balanced_time_factor,
            time_tolerance=self.a.time_tolerance,
            most_allowance=self.most_allowance,
            acceptable=self.acceptable_time,
        )
        shown_rows = len(selection.rows)
        crowded = top is not None and shown_rows < top and passing + scored.skipped > shown_rows
        # (or an uncalibrated pick's calibrated alternative is past the rows kept: it needs its number)
        if scored.pruned and (crowded or selection.unnumbered):
            # region copies or front rows crowded the kept rows out: rank again without dropping any
            self._reset_rejects()
            rows, front, passing, _, _ = self.score_rows(offers, objective, None, keep=None)
            selection = select(
                self._candidates(front, front=True),
                self._candidates(rows, front=False),
                objective=objective,
                top=top,
                balanced_time_factor=self.a.balanced_time_factor,
                time_tolerance=self.a.time_tolerance,
                most_allowance=self.most_allowance,
                acceptable=self.acceptable_time,
            )
        shown = self.build(selection, offers)
        # the caveats of every row: of the whole front and the rows shown, whatever top cuts of the front
        numbers = {r.rank for r in shown}
        cut = []
        for s in selection.front:
            if s.number not in numbers:
                offer, spot, hourly = s.candidate.payload
                cut.append(self.recommendation(offer, spot, hourly, s.number, s.candidate.cost))
        asked = getattr(self.evaluator, "asked_run", "")
        binding, end = None, None
        if diagnose and not shown:
            absent = self._absent_providers(offers)
            end = None if absent else dead_end(self, offers)
            binding = absent or (end.text if end is not None else None)
        return Advice(
            objective=objective,
            rows=tuple(shown),
            rejected=tuple(rejected or ()),
            front_size=selection.front_size,
            picks=dict(selection.picks),
            targets=(*targets_applied(self.w, self.a), *filter(None, [self.precision_note])),
            notes=common_notes([*shown, *cut]),
            binding=binding,
            time_axis=time_axis(self.w),
            considered=len(offers),
            passing=passing,
            picks_rule=picks_rule(
                self.a.balanced_time_factor,
                self.a.time_tolerance,
                serve=isinstance(self.w, ServeWorkload),
                deadline=self.most_allowance < MAX_COST_ALLOWANCE,
                acceptable=self.acceptable_time,
            ),
            uncalibrated_picks=uncalibrated_picks(self.w, selection, [*shown, *cut]),
            asked_run=asked,
            runs=runs_heading(shown, asked).text,
            engine_note=engine_cost_note(self, offers, [*shown, *cut], binding) if diagnose else "",
            binding_why=end.why if end is not None else "",
            moves=end.moves if end is not None else (),
            binding_repeats=end.repeats if end is not None else "",
        )

    def _absent_providers(self, offers: Sequence[Offer]) -> str | None:
        """Why nothing passes when a provider asked for has no offer at all, in the catalog's words
        (``gpuscout offers --provider``): "no current offer is from CoreWeave (closest with offers:
        ...)", and for a defunct one since when; then what the providers asked that do have offers
        cannot do, or, when none has, the cheapest offer elsewhere. ``None`` when every provider asked
        has offers (the usual diagnosis then says why none of them passes)."""
        asked = self.w.providers
        if not asked:
            return None
        listed = {o.provider.lower() for o in offers}
        absent = [p for p in asked if p.lower() not in listed]
        if not absent or not offers:
            return None
        parts = []
        for name in absent:
            terms = self.be.provider_terms(name)
            notes = []
            if terms.defunct:
                notes.append(f"defunct since {terms.status_since}" if terms.status_since else "defunct")
            near = closest(name, listed, n=4)
            if near:
                notes.append(f"closest with offers: {', '.join(near)}")
            gone = ", which no longer sells capacity" if terms.defunct else ""
            said = f" ({'; '.join(notes)})" if notes else ""
            parts.append(f"no current offer is from {terms.display_name or name}{gone}{said}")
        text = "; ".join(parts)
        present = tuple(p for p in asked if p.lower() in listed)
        others = Ranker(
            self.w.model_copy(update={"providers": present}),
            backends=self.be,
            assumptions=self.a,
            now=self.now,
            include_stale=self.include_stale,
        )
        # the providers asked that have offers: why none of them passes; none: the cheapest elsewhere
        answer = others.advise(offers, "cost", top=1, diagnose=True)
        if present or not answer.rows:
            return f"{text}; {answer.binding}" if answer.binding else text
        best, per = answer.rows[0], " a month" if isinstance(self.w, ServeWorkload) else ""
        at = best.provider_name or best.offer.provider
        where = f"{best.config.describe(best.offer.accelerator)} at {at} at {usd(best.total_usd, per)}"
        return f"{text}; elsewhere the cheapest is {where}"

    def build(self, selection: Selection, offers: Sequence[Offer]) -> list[Recommendation]:
        """Full rows for the selection, in order, with their ranks, picks and regions."""
        return build_rows(selection, offers, self, lambda: self)

    def rank(
        self,
        offers: Iterable[Offer],
        objective: str = "cost",
        top: int | None = None,
        include_rejected: bool = False,
    ) -> list[Recommendation]:
        """The rows shown (front first), then the rejected ones when ``include_rejected``."""
        return self.advise(offers, objective, top, include_rejected).recommendations

    # ---- inputs that cannot be answered -----------------------------------------------------------
    def _validate(self, offers: Sequence[Offer]) -> None:
        """Errors, not empty tables: an unknown model or provider, a prompt beyond the model's context."""
        w = self.w
        if not (isinstance(w, PretrainWorkload) and w.params_b is not None):
            self.be.model_name(w.model)  # unknown model: one clear error, not a table of rejections
        tokens = isinstance(w, ServeWorkload) or (isinstance(w, BatchWorkload) and not w.is_images)
        if isinstance(w, ServeWorkload | BatchWorkload) and tokens:
            limit = self.be.max_context(w.model) if self.be.max_context is not None else None
            past = request_past_window(w.prompt_tokens, w.output_tokens, self.be.model_name(w.model), limit)
            if past is not None:  # the field named is the larger share; the accepted range names both
                raise past
        if isinstance(w, FinetuneWorkload | PretrainWorkload):
            limit = (
                self.be.max_context(w.model)
                if self.be.max_context is not None
                and not (isinstance(w, PretrainWorkload) and w.params_b is not None)
                else None
            )
            if limit and isinstance(w, FinetuneWorkload):
                past = sequence_past_window(w.seq_len, self.be.model_name(w.model), limit)
                if past is not None:
                    raise past
        if w.providers:
            listed = {o.provider.lower() for o in offers}
            known = set(self.be.provider_ids()) if self.be.provider_ids is not None else set()
            wanted: list[str] = []
            for p in w.providers:
                name = p.strip().lower()
                canonical = self.be.canonical_provider(name) if self.be.canonical_provider else None
                if name not in listed and canonical is None and name not in known:
                    raise UnknownNameError("providers", p, closest(p, sorted(known | listed)))
                wanted.append(canonical if canonical is not None and name not in listed else name)
            if tuple(wanted) != w.providers:
                self.w = w.model_copy(update={"providers": tuple(wanted)})  # aliases -> provider ids
        w = self.w
        if w.accelerators:  # user names and families -> the table's accelerators
            from gpuscout.knowledge.accelerators import gpu_family

            gpus = tuple(
                dict.fromkeys(a for n in w.accelerators for a in gpu_family(n, field="accelerators"))
            )
            if gpus != w.accelerators:
                self.w = w.model_copy(update={"accelerators": gpus})


def _offer_prices(
    offer: Offer, dp: DataPrices, spot_ok: bool
) -> tuple[float | None, float | None, float, float, tuple[str, str] | None]:
    """(on-demand $/h, spot $/h, storage $/GB-month, egress $/GB, why the offer is left out) as
    ``score_rows`` costs an offer: the per-offer data prices (marketplaces) win over the provider's, as
    in ``cost.data_prices``; odd hourly prices (none, zero, negative, interruptible-only, equal to the
    spot one) go through ``_usable_prices``; a spot price only where spot is allowed."""
    s_price = offer.storage_usd_per_gb_month
    if s_price is None:
        s_price = dp.storage_usd_per_gb_month
    e_price = offer.egress_usd_per_gb
    if e_price is None:
        e_price = dp.egress_usd_per_gb
    hourly = offer.price_usd_per_hour
    spot = offer.spot_price_usd_per_hour
    if (
        spot == hourly
        or offer.price_is_interruptible
        or not (hourly and hourly > 0)
        or (spot is not None and spot <= 0)
    ):
        hourly, spot, left_out = _usable_prices(hourly, spot, offer.price_is_interruptible, spot_ok)
        return hourly, spot, s_price, e_price, left_out
    return hourly, spot if spot_ok else None, s_price, e_price, None


def _usable_prices(
    hourly: float | None, spot: float | None, interruptible: bool, spot_ok: bool
) -> tuple[float | None, float | None, tuple[str, str] | None]:
    """(on-demand, spot, why the offer is out) from an offer's listed prices: a non-positive price is
    no price; an auction price, or an on-demand price equal to the spot price, is a spot price."""
    if spot is not None and spot <= 0:
        spot = None
    if hourly is not None and hourly <= 0:
        hourly = None
    if hourly is not None and (interruptible or spot == hourly):
        spot = hourly if spot is None else min(spot, hourly)
        hourly = None
    if hourly is None and spot is None:
        return None, None, ("price", "no usable price")
    if hourly is None and not spot_ok:
        return None, None, ("spot-only", SPOT_CLASS_ONLY)
    return hourly, spot if spot_ok else None, None


def _cut(rows: list[_Row], keep: int) -> None:
    """Keep the first ``keep`` sorted rows and any that tie with the last on the score."""
    if len(rows) <= keep:
        return
    end = keep
    last = rows[keep - 1][0]
    while end < len(rows) and rows[end][0] == last:
        end += 1
    del rows[end:]


def time_axis(w: AnyWorkload) -> str:
    """What ``time_to_result_s`` measures for this workload, in words."""
    if isinstance(w, ServeWorkload):
        return "request latency (TTFT + output x time per token)"
    return "time to finish"


def _with(rec: Recommendation, **changes: object) -> Recommendation:
    from dataclasses import replace

    return replace(rec, **changes)  # type: ignore[arg-type]


def build_rows(
    selection: Selection, offers: Sequence[Offer], ranker: Ranker, ranker_for_row: Callable[[], Ranker]
) -> list[Recommendation]:
    """Full rows for ``selection``, in order, with their ranks (each row's number in the whole ordering,
    whatever ``top`` is: see :mod:`gpuscout.advise.selection`), picks and gathered regions; each row is
    built by ``ranker_for_row()`` (the naive oracle passes a fresh ranker per row)."""
    regions = _regions(selection, offers, ranker)
    out: list[Recommendation] = []
    for s in selection.rows:
        offer, spot, hourly = s.candidate.payload
        rec = ranker_for_row().recommendation(offer, spot, hourly, s.number, s.candidate.cost)
        reasons = rec.reasons
        if s.dominated_by is not None:
            beater = selection.by_number(s.dominated_by).candidate
            why = beaten_reason(
                s.dominated_by,
                (beater.cost, beater.time),
                (s.candidate.cost, s.candidate.time),
                serve=isinstance(ranker.w, ServeWorkload),
                time_tolerance=ranker.a.time_tolerance,
                most=ranker.most_allowance,
            )
            reasons = (why, *reasons)
        out.append(
            _with(
                rec,
                regions=regions.get(s.candidate.group, rec.regions),
                pareto=s.pareto,
                picks=s.picks,
                dominated_by=s.dominated_by,
                reasons=reasons,
            )
        )
    # which rows name what they run on the row, against the one run the title names (which run that is
    # does not hang on what was asked: ``runs_heading``), decided here for every face
    heading = runs_heading(out)
    return [_with(r, names_run=True) if names_its_run(r, heading) else r for r in out]


def _regions(
    selection: Selection, offers: Sequence[Offer], ranker: Ranker
) -> dict[Hashable, tuple[str, ...]]:
    """Every region each shown choice is sold in at its price (region copies, and the regions a row
    already stands for), among the offers that pass the same filters; with a region filter, only
    the regions it matches (a row standing for 14 countries is listed under ``--region eu`` by its
    European ones, the ones the renter asked for)."""
    groups = {s.candidate.group for s in selection.rows}
    if not groups:
        return {}
    names = {(g[0], g[1]) for g in groups if isinstance(g, tuple)}
    instances = {n[1] for n in names}
    w = ranker.w
    wanted = region_filter(tuple(w.regions)) if w.regions else None
    found: dict[Hashable, list[str]] = {}
    for offer in ranker.offers_like(groups, offers):
        if (
            offer.instance_type not in instances
            or (offer.provider, offer.instance_type) not in names
            or prefilter_reason(w, offer, ranker.include_stale)
        ):
            continue
        for is_spot, price in _prices(w, offer):
            group = choice_group(offer, is_spot, price)
            if group in groups:
                bucket = found.setdefault(group, [])
                listed = offer.regions or (offer.region,)
                if wanted is not None:
                    listed = tuple(r for r in listed if wanted.place(r)) or listed
                for region in listed:
                    if region not in bucket:
                        bucket.append(region)
    return {g: tuple(v) for g, v in found.items()}


def rank(
    workload: AnyWorkload,
    offers: Iterable[Offer],
    *,
    objective: str = "cost",
    top: int | None = None,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    include_rejected: bool = False,
    include_stale: bool = False,
    now: datetime | None = None,
) -> list[Recommendation]:
    """The rows shown (front first; see ``Ranker.advise``), then the rejected ones when asked."""
    ranker = Ranker(
        workload, backends=backends, assumptions=assumptions, now=now, include_stale=include_stale
    )
    return ranker.rank(offers, objective=objective, top=top, include_rejected=include_rejected)


def advise(
    workload: AnyWorkload,
    offers: Iterable[Offer],
    *,
    objective: str = "cost",
    top: int | None = None,
    backends: Backends | None = None,
    assumptions: Assumptions | None = None,
    include_rejected: bool = False,
    include_stale: bool = False,
    now: datetime | None = None,
) -> Advice:
    """The whole answer (see ``Ranker.advise``)."""
    ranker = Ranker(
        workload, backends=backends, assumptions=assumptions, now=now, include_stale=include_stale
    )
    return ranker.advise(offers, objective=objective, top=top, include_rejected=include_rejected)
