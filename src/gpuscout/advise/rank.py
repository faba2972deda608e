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
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime

from gpuscout.advise.assumptions import Assumptions
from gpuscout.advise.backends import Backends, default_backends
from gpuscout.advise.configs import ConfigEval, ConfigKey, config_key
from gpuscout.advise.cost import CostModel, DataPrices, breakdown, cost_model, data_prices, data_prices_for
from gpuscout.advise.evaluators import evaluator_for
from gpuscout.advise.reasons import RowContext, explain
from gpuscout.advise.types import (
    OBJECTIVES,
    Config,
    EstimateSummary,
    Recommendation,
    UnitCosts,
)
from gpuscout.advise.workload import AnyWorkload, BatchWorkload, PretrainWorkload, ServeWorkload
from gpuscout.catalog.offer import Availability, Offer
from gpuscout.errors import InvalidInputError
from gpuscout.knowledge.provider_types import ProviderTerms

#: A scored candidate: (score, total, usd_per_hour, provider, instance_type, region, spot, index, offer).
#: The first eight items are the sort key (the index makes it total, so offers are never compared).
_Row = tuple[float, float, float, str, str, str, int, int, Offer]

_UNAVAILABLE = Availability.UNAVAILABLE
#: Why a row whose total is not a finite number (a price near the float limit) is never ranked.
NOT_FINITE = "the total cost is not a finite number (check the offer's prices)"

#: Per configuration: (evaluation, time metric, (on-demand, spot) cost models by billing-terms signature).
_ConfigEntry = tuple[ConfigEval, float, dict[tuple[object, ...], tuple[CostModel, CostModel]]]


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


def _sort_key(score: float, total: float, hourly: float, offer: Offer, spot: bool, index: int
              ) -> tuple[float, float, float, str, str, str, int, int]:
    return (score, total, hourly, offer.provider, offer.instance_type, offer.region, int(spot), index)


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
        self.evaluator = evaluator_for(workload, self.be, self.a)
        self._names: dict[str, tuple[ProviderTerms, tuple[object, ...], DataPrices]] = {}
        self._cm: dict[tuple[object, ...], CostModel] = {}
        self._dp: dict[tuple[str, float | None, float | None], DataPrices] = {}
        # per configuration key: (evaluation, time metric, cost models by terms signature)
        self._cfg: dict[ConfigKey, _ConfigEntry] = {}

    def terms(self, offer: Offer) -> ProviderTerms:
        return self._name_entry(offer.billing_terms or offer.provider)[0]

    def _name_entry(self, name: str) -> tuple[ProviderTerms, tuple[object, ...], DataPrices]:
        """(terms, what of them the cost model reads, data prices when the offer has no terms of its own)."""
        entry = self._names.get(name)
        if entry is None:
            t = self.be.provider_terms(name)
            sig = (t.billing_increment_s, t.minimum_charge_s, t.egress_free_gb_per_month, t.kind)
            entry = (t, sig, data_prices_for(None, None, t, self.a))
            self._names[name] = entry
        return entry

    def cost_model(self, ev: ConfigEval, terms: ProviderTerms, spot: bool) -> CostModel:
        """Cached on what the cost depends on: the configuration's quantities and the billing terms."""
        k = (ev.instances, ev.time_s, ev.load_gb, ev.download_gb_per_instance, ev.checkpoint_gb,
             terms.billing_increment_s, terms.minimum_charge_s, terms.egress_free_gb_per_month, terms.kind,
             spot)
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
        ev = self.evaluator.detail(ev)
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
        usable = ev is not None and ev.rejected is None
        config = _config(ev, spot) if ev is not None and usable else Config(
            1, offer.gpu_count, 1, 1, offer.gpu_count, 1, spot)
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
    def _config_entry(self, offer: Offer, objective: str) -> _ConfigEntry:
        key = config_key(offer)
        entry = self._cfg.get(key)
        if entry is None:
            ev = self.evaluator.evaluate(offer)
            tm = 0.0  # ranking by cost never needs the operating point
            if ev.rejected is None and objective != "cost":
                full = self.evaluator.detail(ev)
                tm = _latency_metric(self.w, full) if objective == "latency" else _time_metric(self.w, full)
            entry = (ev, tm, {})
            self._cfg[key] = entry
        return entry

    def score_rows(self, offers: Iterable[Offer], objective: str,
                   rejected: list[Recommendation] | None = None, keep: int | None = None) -> list[_Row]:
        """Every passing (offer, spot) candidate with its score; rejected rows appended to ``rejected``.

        This loop runs once per offer, so it only does dictionary look-ups and the cost arithmetic
        (in the same order as ``CostBreakdown.total``, so both give the same float). With ``keep``,
        rows that cannot be among the ``keep`` best are dropped as soon as ``keep`` better ones exist
        (their score is above the ``keep``-th best so far; ties are kept), which changes nothing in
        the best ``keep`` rows. Not for "balanced", whose scores depend on all rows.
        """
        if objective == "balanced":
            keep = None
        threshold = math.inf
        prune_at = 4 * keep + 64 if keep is not None else 0
        w = self.w
        budget = w.budget_usd
        spot_ok = w.spot_ok
        by_cost = objective == "cost"
        providers = frozenset(p.lower() for p in w.providers)
        regions = tuple(r.lower() for r in w.regions)
        names, cfgs = self._names, self._cfg
        rows: list[_Row] = []
        append = rows.append
        for i, offer in enumerate(offers):
            if (offer.availability is _UNAVAILABLE or offer.fractional
                    or (providers and offer.provider.lower() not in providers)
                    or (regions and not any(r in offer.region.lower() for r in regions))):
                if rejected is not None:
                    rejected.append(self.rejected(offer, _prefilter(w, offer) or "filtered"))
                continue
            name = offer.billing_terms or offer.provider
            named = names.get(name) or self._name_entry(name)
            terms, sig, dp = named
            cfg = cfgs.get((offer.accelerator, offer.gpu_count, offer.interconnect, bool(offer.internode)))
            if cfg is None:
                cfg = self._config_entry(offer, objective)
            ev, tm, cms = cfg
            if ev.rejected is not None:
                if rejected is not None:
                    rejected.append(self.rejected(offer, ev.rejected, fits=ev.fits, ev=ev))
                continue
            pair = cms.get(sig)
            if pair is None:
                pair = (self.cost_model(ev, terms, False), self.cost_model(ev, terms, True))
                cms[sig] = pair
            # per-offer terms (marketplaces) win over the provider's, as in ``cost.data_prices``
            s_price = offer.storage_usd_per_gb_month
            if s_price is None:
                s_price = dp.storage_usd_per_gb_month
            e_price = offer.egress_usd_per_gb
            if e_price is None:
                e_price = dp.egress_usd_per_gb
            # on-demand, then spot when the workload allows it (unrolled: this is the hot loop)
            hourly = offer.price_usd_per_hour
            priced = False
            if hourly is not None and hourly > 0:
                priced = True
                cm = pair[0]
                total = (hourly * cm.compute_h + hourly * cm.warmup_h + s_price * cm.storage_gb_months
                         + e_price * cm.egress_billable_gb + hourly * cm.interruption_h)
                if not total < math.inf:  # inf or NaN (a price near the float limit): never ranked
                    if rejected is not None:
                        rejected.append(self.rejected(offer, NOT_FINITE, fits=True, spot=False, hourly=hourly,
                                                      ev=ev))
                elif budget is None or total <= budget:
                    score = total if by_cost else tm
                    if score <= threshold:
                        append((score, total, hourly, offer.provider, offer.instance_type, offer.region, 0, i,
                                offer))
                elif rejected is not None:
                    rejected.append(self._over_budget(offer, total, False, hourly, ev))
            spot = offer.spot_price_usd_per_hour if spot_ok else None
            if spot is not None and spot > 0:
                priced = True
                cm = pair[1]
                total = (spot * cm.compute_h + spot * cm.warmup_h + s_price * cm.storage_gb_months
                         + e_price * cm.egress_billable_gb + spot * cm.interruption_h)
                if not total < math.inf:  # inf or NaN (a price near the float limit): never ranked
                    if rejected is not None:
                        rejected.append(self.rejected(offer, NOT_FINITE, fits=True, spot=True, hourly=spot,
                                                      ev=ev))
                elif budget is None or total <= budget:
                    score = total if by_cost else tm
                    if score <= threshold:
                        append((score, total, spot, offer.provider, offer.instance_type, offer.region, 1, i,
                                offer))
                elif rejected is not None:
                    rejected.append(self._over_budget(offer, total, True, spot, ev))
            if not priced and rejected is not None:
                rejected.append(self.rejected(offer, "no usable price"))
            if keep is not None and len(rows) >= prune_at:
                rows.sort()
                del rows[keep:]
                threshold = rows[-1][0]
        if objective == "balanced" and rows:
            rows = _rebalance(rows, self._time_of)
        return rows

    def _over_budget(self, offer: Offer, total: float, spot: bool, hourly: float, ev: ConfigEval
                     ) -> Recommendation:
        budget = self.w.budget_usd or 0.0
        return self.rejected(offer, f"${total:,.0f} over the ${budget:,.0f} budget", fits=True, spot=spot,
                             hourly=hourly, ev=ev)

    def _time_of(self, offer: Offer) -> float:
        return self._cfg[config_key(offer)][1]

    def rank(self, offers: Iterable[Offer], objective: str = "cost", top: int | None = None,
             include_rejected: bool = False) -> list[Recommendation]:
        _check_objective(objective)
        if not (isinstance(self.w, PretrainWorkload) and self.w.params_b is not None):
            self.be.model_name(self.w.model)  # unknown model: one clear error, not a table of rejections
        if top is not None and top < 1:
            raise InvalidInputError("top", f"must be >= 1, got {top}", "an integer >= 1")
        rejected: list[Recommendation] | None = [] if include_rejected else None
        rows = self.score_rows(offers, objective, rejected, keep=top)
        # rows compare as tuples; the unique index (item 7) settles every tie before the offer (item 8)
        best = heapq.nsmallest(top, rows) if top is not None else sorted(rows)
        out = [self.recommendation(r[8], bool(r[6]), r[2], i + 1, r[0]) for i, r in enumerate(best)]
        if rejected:
            out.extend(rejected)
        return out


def _rebalance(rows: list[_Row], time_of: Callable[[Offer], float]) -> list[_Row]:
    """Balanced score: geometric mean of cost and time, each relative to the best passing row."""
    min_cost = min(r[1] for r in rows) or 1e-12
    min_time = min(time_of(r[8]) for r in rows) or 1e-12
    return [(math.sqrt((r[1] / min_cost) * (time_of(r[8]) / min_time)), *r[1:]) for r in rows]


def rank(workload: AnyWorkload, offers: Iterable[Offer], *, objective: str = "cost", top: int | None = None,
         backends: Backends | None = None, assumptions: Assumptions | None = None,
         include_rejected: bool = False, now: datetime | None = None) -> list[Recommendation]:
    """Ranked recommendations (best first); rejected rows follow when ``include_rejected``."""
    ranker = Ranker(workload, backends=backends, assumptions=assumptions, now=now)
    return ranker.rank(offers, objective=objective, top=top, include_rejected=include_rejected)


def _with_rank(rec: Recommendation, rank: int) -> Recommendation:
    return replace(rec, rank=rank)

