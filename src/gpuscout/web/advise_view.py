"""How the advisor's answer (``Advice``) is shown: the cheapest, balanced and fastest picks of the
Pareto front named above the table, compact rows (speed, the time axis, cost per unit and in all,
region and price age) with dominated rows marked, the caveats every row shares said once, and, when
nothing fits, the advisor's diagnosis of what binds, in the form's words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# the web form's and the JSON API's words for the advisor's flags (one table, in the core)
from gpuscout.advise.option_words import translate_advice
from gpuscout.advise.reasons import duration as reasons_duration
from gpuscout.advise.types import PICKS, Advice, Recommendation, UncalibratedPick
from gpuscout.estimate.memory import gib
from gpuscout.web.offer_view import OfferRow, to_row
from gpuscout.web.templating import money


@dataclass(frozen=True, slots=True)
class Ranked:
    rec: Recommendation
    row: OfferRow  # the offer with its age, source, provider name and regions
    speed: str
    unit_cost: str
    total: str
    latency: str  # serve: TTFT; jobs: time to finish
    warnings: tuple[str, ...]  # this row's own warnings (the shared ones are said once)
    memory: str  # "92.9 of 140.4 GiB usable per GPU"
    time: str  # the trade-off's time axis: serve, one request's latency; jobs, time to finish
    regions: tuple[str, ...]  # every region this choice is sold in at this price
    provider_name: str

    @property
    def hourly(self) -> str:
        """The price per instance-hour, times the instances the row rents ('2 × $3.20')."""
        price, n = money(self.rec.price_usd_per_hour), self.rec.config.instances
        return f"{n} × {price}" if n > 1 else price

    @property
    def region_text(self) -> str:
        if not self.regions:
            return self.row.region
        shown = ", ".join(self.regions[:3])
        return shown if len(self.regions) <= 3 else f"{shown} +{len(self.regions) - 3}"


def duration(seconds: float | None) -> str:
    """How long, as every face says it (:func:`gpuscout.advise.reasons.duration`); "—" when unknown."""
    return "—" if seconds is None else reasons_duration(seconds)


def unit_cost_label(kind: str, images: bool = False) -> str:
    if kind == "serve":
        return "$ / M output tokens"
    if kind == "batch":
        return "$ / image" if images else "$ / M output tokens"
    return "$ / M training tokens"


def total_label(kind: str) -> str:
    return "$ / month" if kind == "serve" else "Total $"


def latency_label(kind: str) -> str:
    return "TTFT" if kind == "serve" else "Time"


def speed_text(value: float, unit: str) -> str:
    """A rate people can read: "317 tok/s", "0.07 img/s (14 s/img)"; never "0 img/s"."""
    if unit.startswith("img") and 0 < value < 1:
        return f"{value:.2g} {unit} ({1 / value:.0f} s/img)"
    if 0 < value < 10:
        return f"{value:.2g} {unit}"
    return f"{value:,.0f} {unit}"


def present(rec: Recommendation, kind: str, shared: frozenset[str] = frozenset()) -> Ranked:
    est, units = rec.estimate, rec.unit_costs
    speed = "—"
    latency = "—"
    memory = ""
    if est is not None:
        speed = speed_text(est.throughput, est.throughput_unit)
        if est.per_user_tokens_per_s is not None and kind == "serve":
            speed += f" · {est.per_user_tokens_per_s:,.0f}/user"
        if kind == "serve" and est.ttft_ms is not None:
            latency = f"{est.ttft_ms / 1000:.2f} s" if est.ttft_ms >= 1000 else f"{est.ttft_ms:,.0f} ms"
        parts = f"weights {gib(est.weights_gb):,.1f}"
        if est.keeps_kv_cache:  # not a training step or an image pipeline
            parts += f", KV cache {gib(est.kv_cache_gb):,.1f}"
        memory = (
            f"{gib(est.memory_per_gpu_gb):,.1f} of {gib(est.memory_capacity_gb):,.1f} GiB usable per GPU "
            f"({parts})"
        )
    if kind != "serve":
        latency = duration(rec.time_s)
    unit = "—"
    if units is not None:
        if kind == "serve" or (kind == "batch" and units.per_image is None):
            unit = money(units.per_million_output_tokens, 3)
        elif kind == "batch":
            unit = money(units.per_image, 4)
        else:
            unit = money(units.per_million_train_tokens, 3)
    total = "—"
    if rec.cost is not None:
        amount = units.per_month if kind == "serve" and units is not None else rec.cost.total
        # whole dollars only where cents do not matter: a $0.52 run is not "$1", nor the same as a $0.61 one
        total = money(amount, 0 if amount is not None and abs(amount) >= 100 else 2)
    own = tuple(w for w in rec.warnings if w not in shared)
    row = to_row(rec.offer)
    return Ranked(
        rec=rec,
        row=row,
        speed=speed,
        unit_cost=unit,
        total=total,
        latency=latency,
        warnings=own,
        memory=memory,
        time=_time_axis(rec.time_to_result_s, kind),
        regions=tuple(r.split(":", 1)[1] if r.startswith("country:") else r for r in rec.regions),
        provider_name=rec.provider_name or (row.provider.short_name if row.provider else rec.offer.provider),
    )


def _time_axis(seconds: float | None, kind: str) -> str:
    """The trade-off's time: a request's latency ("1.9 s", "640 ms"), or a job's time to finish."""
    if seconds is None:
        return "—"
    if kind != "serve":
        return duration(seconds)
    return f"{seconds:,.1f} s" if seconds >= 1 else f"{seconds * 1000:,.0f} ms"


_NONE_UNIT = re.compile(r"\bNone( ?s)?\b")


def plain(text: Any) -> str:
    """An assumption's text for people: a missing figure reads "unknown", never ``None``."""
    return _NONE_UNIT.sub("unknown", str(text))


# ---- the answer around the rows ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AnswerView:
    """What the page shows of an ``Advice``: its rows, picks, targets, caveats and diagnosis."""

    rows: list[Ranked]
    picks: list[tuple[str, Ranked]]  # ("cheapest", row), ("balanced", row), ("fastest", row): those shown
    picks_cut: list[tuple[str, int]]  # ("fastest", 11): a pick "Show" left no room for, by its number
    targets: list[str]
    caveats: list[str]
    binding: str | None
    picks_rule: str
    time_axis: str  # "Request latency", "Time to finish"
    front_size: int
    considered: int
    # pick -> its caveat where the pick's row's speed is uncalibrated (``Advice.uncalibrated_picks``)
    uncalibrated: dict[str, UncalibratedPick] = field(default_factory=dict)

    def shown(self, number: int | None) -> bool:
        """Whether the row numbered ``number`` is on the page (a link to it leads somewhere)."""
        return any(r.rec.rank == number for r in self.rows)

    @property
    def first_dominated(self) -> int | None:
        """Rank of the first shown row off the front (the table says where the front ends)."""
        return next((r.rec.rank for r in self.rows if not r.rec.pareto), None)


def answer_view(advice: Advice, kind: str) -> AnswerView:
    """The page's view of ``advice``. The caveats are the advisor's ``notes`` (what every row of the
    answer carries), never recomputed from the rows "Show" keeps: one row shown says the same as ten. Its
    texts name the form's fields where the advisor names a CLI flag."""
    advice = translate_advice(advice, "form")
    shared = frozenset(advice.notes)
    rows = [present(r, kind, shared) for r in advice.rows]
    by_rank = {r.rec.rank: r for r in rows}
    named = [(name, advice.picks[name]) for name in PICKS if name in advice.picks]
    axis = advice.time_axis.split(" (", 1)[0]
    return AnswerView(
        rows=rows,
        picks=[(name, by_rank[n]) for name, n in named if n in by_rank],
        picks_cut=[(name, n) for name, n in named if n not in by_rank],
        targets=list(advice.targets),
        caveats=sorted(shared),
        binding=advice.binding,
        picks_rule=advice.picks_rule,
        time_axis=axis[:1].upper() + axis[1:],
        front_size=advice.front_size,
        considered=advice.considered,
        uncalibrated={u.pick: u for u in advice.uncalibrated_picks},
    )
