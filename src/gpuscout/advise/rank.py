"""Rank offers for a workload: filter, estimate once per configuration, cost per offer, explain the top.

Two paths compute the same ranking:

- ``rank`` (the one used): estimates once per distinct ``ConfigKey``, the cost model once per
  (configuration, provider terms, spot), then scores every offer with a few multiplications and builds
  full ``Recommendation`` rows (with reasons) only for the rows returned.
- ``rank_naive``: the straightforward computation, everything from scratch for every offer. It exists so
  the benchmark and the tests can check that caching changes nothing.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.configs import ConfigEval, ConfigKey, Evaluator
from gpuscout.advise.cost import CostModel, DataPrices, breakdown, cost_model, data_prices
from gpuscout.advise.reasons import RowContext, explain
from gpuscout.advise.types import (
    OBJECTIVES,
    Config,
    CostBreakdown,
    EstimateSummary,
    Recommendation,
    UnitCosts,
)
from gpuscout.advise.workload import AnyWorkload, BatchWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.provider_types import ProviderTerms


@dataclass(frozen=True, slots=True)
class _Row:
    """A scored candidate before it becomes a ``Recommendation``."""

    sort_key: tuple[float, float, float, str, str, str, int]
    offer: Offer
    spot: bool
    hourly: float
    total: float
    time_metric: float


def _check_objective(objective: str) -> None:
    if objective not in OBJECTIVES:
        raise InvalidInputError("objective", f"unknown objective {objective!r}", ", ".join(OBJECTIVES))


def _prefilter(w: AnyWorkload, offer: Offer) -> str | None:
    """Why an offer is out before any estimate (constraints, availability), or ``None``."""
    if w.providers and offer.provider.lower() not in {p.lower() for p in w.providers}:
        return "provider not in the allowed list"
    if w.regions and not any(r.lower() in offer.region.lower() for r in w.regions):
        return "region not in the allowed list"
    if offer.availability == Availability.UNAVAILABLE:
        return "unavailable"
    if offer.fractional:
        return "fractional GPU slice"
    return None


def _prices(w: AnyWorkload, offer: Offer, terms: ProviderTerms) -> list[tuple[bool, float]]:
    """(spot, USD/hour) candidates of one offer: on-demand, and spot when the workload allows it."""
    out: list[tuple[bool, float]] = []
    if offer.price_usd_per_hour is not None and offer.price_usd_per_hour > 0:
        out.append((False, offer.price_usd_per_hour))
    spot = offer.spot_price_usd_per_hour
    if w.spot_ok and spot is not None and spot > 0:
        out.append((True, spot))
    return out


def _time_metric(w: AnyWorkload, ev: ConfigEval) -> float:
    """Seconds: request latency for serve (TTFT + output at this speed), job duration otherwise."""
    if isinstance(w, ServeWorkload):
        s = ev.summary
        if s is None or s.ttft_ms is None or s.tpot_ms is None:
            return math.inf
        return (s.ttft_ms + w.output_tokens * s.tpot_ms) / 1000.0
    return ev.time_s


def _latency_metric(w: AnyWorkload, ev: ConfigEval) -> float:
    if isinstance(w, ServeWorkload) and ev.summary is not None and ev.summary.tpot_ms is not None:
        return ev.summary.tpot_ms + (ev.summary.ttft_ms or 0.0) / w.output_tokens
    return _time_metric(w, ev)


def _total(cm: CostModel, hourly: float, dp: DataPrices) -> float:
    """Same arithmetic, in the same order, as ``breakdown(...).total``."""
    return (
        hourly * cm.compute_h
        + hourly * cm.warmup_h
        + dp.storage_usd_per_gb_month * cm.storage_gb_months
        + dp.egress_usd_per_gb * cm.egress_billable_gb
        + hourly * cm.interruption_h
    )


def _sort_key(score: float, total: float, hourly: float, offer: Offer, spot: bool
              ) -> tuple[float, float, float, str, str, str, int]:
    return (score, total, hourly, offer.provider, offer.instance_type, offer.region, int(spot))


def unit_costs(w: AnyWorkload, ev: ConfigEval, total: float) -> UnitCosts:
    if isinstance(w, ServeWorkload):
        per_m = total / (ev.output_tokens / 1e6) if ev.output_tokens > 0 else None
        return UnitCosts(per_million_output_tokens=per_m, per_image=None, per_run=None, per_month=total)
    if isinstance(w, BatchWorkload):
        if w.is_images:
            return UnitCosts(None, total / ev.images if ev.images else None, total, None)
        per_m = total / (ev.output_tokens / 1e6) if ev.output_tokens > 0 else None
        return UnitCosts(per_m, None, total, None)
    per_train = total / (ev.train_tokens / 1e6) if ev.train_tokens > 0 else None
    return UnitCosts(None, None, total, None, per_million_train_tokens=per_train)


def _config(ev: ConfigEval, spot: bool) -> Config:
    return Config(
        instances=ev.instances, gpus_per_instance=ev.gpus_per_instance, tp=ev.tp,
        replicas_per_instance=ev.replicas_per_instance, gpus_used=ev.gpus_used, nodes=ev.nodes, spot=spot,
    )


class Ranker:
    """Ranks offers for one workload. Caches evaluations, terms and cost models across offers."""

    def __init__(self, workload: AnyWorkload, *, backends: Backends | None = None,
                 assumptions: Assumptions | None = None, now: datetime | None = None) -> None:
        self.w = workload
        self.be = backends or default_backends()
        self.a = assumptions or Assumptions()
        self.now = now or datetime.now(UTC)
        self.evaluator = Evaluator(workload, self.be, self.a)
        self._terms: dict[str, ProviderTerms] = {}
        self._cm: dict[tuple[ConfigKey, str, bool], CostModel] = {}
        self._dp: dict[tuple[str, float | None, float | None], DataPrices] = {}

    def terms(self, offer: Offer) -> ProviderTerms:
        name = offer.billing_terms or offer.provider
        t = self._terms.get(name)
        if t is None:
            t = self.be.provider_terms(name)
            self._terms[name] = t
        return t

    def cost_model(self, ev: ConfigEval, terms: ProviderTerms, spot: bool) -> CostModel:
        k = (ev.key, terms.name, spot)
        cm = self._cm.get(k)
        if cm is None:
            cm = cost_model(ev, self.w, terms, spot, self.a)
            self._cm[k] = cm
        return cm

    def data_prices(self, offer: Offer, terms: ProviderTerms) -> DataPrices:
        k = (terms.name, offer.storage_usd_per_gb_month, offer.egress_usd_per_gb)
        dp = self._dp.get(k)
        if dp is None:
            dp = data_prices(offer, terms, self.a)
            self._dp[k] = dp
        return dp

    # ---- building rows --------------------------------------------------------------------------
    def recommendation(self, offer: Offer, spot: bool, hourly: float, rank: int | None, score: float
                       ) -> Recommendation:
        terms = self.terms(offer)
        ev = self.evaluator.evaluate(offer)
        if ev.rejected is not None:
            return self.rejected(offer, ev.rejected, fits=ev.fits, spot=spot, hourly=hourly, ev=ev)
        cm = self.cost_model(ev, terms, spot)
        dp = self.data_prices(offer, terms)
        cost = breakdown(cm, hourly, dp)
        units = unit_costs(self.w, ev, cost.total)
        ctx = RowContext(self.w, offer, ev, cm, cost, units, terms, dp, spot, hourly, self.now, self.a)
        reasons, warnings = explain(ctx)
        return Recommendation(
            offer=offer, config=_config(ev, spot), fits=True, estimate=ev.summary, time_s=ev.time_s,
            cost=cost, unit_costs=units, price_usd_per_hour=hourly, reasons=reasons, warnings=warnings,
            rank=rank, score=score, assumptions=self._assumptions(ev, terms),
        )

    def rejected(self, offer: Offer, why: str, *, fits: bool = False, spot: bool = False,
                 hourly: float | None = None, ev: ConfigEval | None = None) -> Recommendation:
        price = hourly if hourly is not None else (offer.price_usd_per_hour or 0.0)
        config = _config(ev, spot) if ev is not None else Config(1, offer.gpu_count, 1, 1, offer.gpu_count,
                                                                 1, spot)
        summary: EstimateSummary | None = ev.summary if ev is not None else None
        return Recommendation(
            offer=offer, config=config, fits=fits, estimate=summary, time_s=None, cost=None, unit_costs=None,
            price_usd_per_hour=price, reasons=(f"rejected: {why}",), warnings=(), rank=None, score=math.inf,
            rejected=why,
        )

    def _assumptions(self, ev: ConfigEval, terms: ProviderTerms) -> dict[str, str]:
        out = self.a.as_dict()
        out["billing"] = (f"{terms.display_name}: increment {terms.billing_increment_s} s, minimum "
                          f"{terms.minimum_charge_s} s ({terms.confidence})")
        if ev.estimate is not None:
            out.update({f"estimate: {k}": v for k, v in ev.estimate.assumptions.items()})
        return out

    # ---- scoring --------------------------------------------------------------------------------
    def score_rows(self, offers: Iterable[Offer], objective: str,
                   rejected: list[Recommendation] | None = None) -> list[_Row]:
        """Every passing (offer, spot) candidate with its score; rejected rows appended to ``rejected``."""
        w = self.w
        budget = w.budget_usd
        evaluate = self.evaluator.evaluate
        rows: list[_Row] = []
        for offer in offers:
            why = _prefilter(w, offer)
            if why is not None:
                if rejected is not None:
                    rejected.append(self.rejected(offer, why))
                continue
            terms = self.terms(offer)
            cands = _prices(w, offer, terms)
            if not cands:
                if rejected is not None:
                    rejected.append(self.rejected(offer, "no usable price"))
                continue
            ev = evaluate(offer)
            if ev.rejected is not None:
                if rejected is not None:
                    rejected.append(self.rejected(offer, ev.rejected, fits=ev.fits, ev=ev))
                continue
            dp = self.data_prices(offer, terms)
            tm = _time_metric(w, ev) if objective != "latency" else _latency_metric(w, ev)
            for spot, hourly in cands:
                cm = self.cost_model(ev, terms, spot)
                total = _total(cm, hourly, dp)
                if budget is not None and total > budget:
                    if rejected is not None:
                        rejected.append(self.rejected(offer, f"${total:,.0f} over the ${budget:,.0f} budget",
                                                      fits=True, spot=spot, hourly=hourly, ev=ev))
                    continue
                score = total if objective == "cost" else tm
                key = _sort_key(score, total, hourly, offer, spot)
                rows.append(_Row(key, offer, spot, hourly, total, tm))
        if objective == "balanced" and rows:
            rows = _rebalance(rows)
        return rows

    def rank(self, offers: Iterable[Offer], objective: str = "cost", top: int | None = None,
             include_rejected: bool = False) -> list[Recommendation]:
        _check_objective(objective)
        self.be.model_name(self.w.model)  # unknown model: one clear error, not a table of rejections
        if top is not None and top < 1:
            raise InvalidInputError("top", f"must be >= 1, got {top}", "an integer >= 1")
        rejected: list[Recommendation] | None = [] if include_rejected else None
        rows = self.score_rows(offers, objective, rejected)
        best = heapq.nsmallest(top, rows, key=lambda r: r.sort_key) if top is not None \
            else sorted(rows, key=lambda r: r.sort_key)
        out = [self.recommendation(r.offer, r.spot, r.hourly, i + 1, r.sort_key[0])
               for i, r in enumerate(best)]
        if rejected:
            out.extend(rejected)
        return out


def _rebalance(rows: list[_Row]) -> list[_Row]:
    """Balanced score: geometric mean of cost and time, each relative to the best passing row."""
    min_cost = min(r.total for r in rows) or 1e-12
    min_time = min(r.time_metric for r in rows) or 1e-12
    out = []
    for r in rows:
        score = math.sqrt((r.total / min_cost) * (r.time_metric / min_time))
        out.append(_Row(_sort_key(score, r.total, r.hourly, r.offer, r.spot), r.offer, r.spot, r.hourly,
                        r.total, r.time_metric))
    return out


def rank(workload: AnyWorkload, offers: Iterable[Offer], *, objective: str = "cost", top: int | None = None,
         backends: Backends | None = None, assumptions: Assumptions | None = None,
         include_rejected: bool = False, now: datetime | None = None) -> list[Recommendation]:
    """Ranked recommendations (best first); rejected rows follow when ``include_rejected``."""
    ranker = Ranker(workload, backends=backends, assumptions=assumptions, now=now)
    return ranker.rank(offers, objective=objective, top=top, include_rejected=include_rejected)


def rank_naive(workload: AnyWorkload, offers: Sequence[Offer], *, objective: str = "cost",
               top: int | None = None, backends: Backends | None = None,
               assumptions: Assumptions | None = None, now: datetime | None = None) -> list[Recommendation]:
    """The straightforward computation: a fresh evaluator, terms and cost model for every offer."""
    _check_objective(objective)
    now = now or datetime.now(UTC)
    be = backends or default_backends()
    rows: list[tuple[tuple[float, float, float, str, str, str, int], Recommendation]] = []
    scored: list[tuple[Ranker, Offer, bool, float, float, float]] = []
    for offer in offers:
        ranker = Ranker(workload, backends=be, assumptions=assumptions, now=now)  # no sharing
        if _prefilter(workload, offer) is not None:
            continue
        terms = ranker.terms(offer)
        ev: ConfigEval = ranker.evaluator.evaluate(offer)
        if ev.rejected is not None:
            continue
        for spot, hourly in _prices(workload, offer, terms):
            cost: CostBreakdown = breakdown(cost_model(ev, workload, terms, spot, ranker.a), hourly,
                                            data_prices(offer, terms, ranker.a))
            if workload.budget_usd is not None and cost.total > workload.budget_usd:
                continue
            tm = _time_metric(workload, ev) if objective != "latency" else _latency_metric(workload, ev)
            scored.append((ranker, offer, spot, hourly, cost.total, tm))
    min_cost = min_time = 1.0
    if objective == "balanced" and scored:
        min_cost = min(s[4] for s in scored) or 1e-12
        min_time = min(s[5] for s in scored) or 1e-12
    for ranker, offer, spot, hourly, total, tm in scored:
        if objective == "cost":
            score = total
        elif objective == "balanced":
            score = math.sqrt((total / min_cost) * (tm / min_time))
        else:
            score = tm
        rec = ranker.recommendation(offer, spot, hourly, None, score)
        rows.append((_sort_key(score, total, hourly, offer, spot), rec))
    rows.sort(key=lambda r: r[0])
    if top is not None:
        rows = rows[:top]
    return [_with_rank(rec, i + 1) for i, (_, rec) in enumerate(rows)]


def _with_rank(rec: Recommendation, rank: int) -> Recommendation:
    return replace(rec, rank=rank)

