"""How a ``Recommendation`` is shown: speed, cost per unit and total, by workload kind."""

from __future__ import annotations

from dataclasses import dataclass

from gpuscout.advise.types import Recommendation
from gpuscout.web.offer_view import OfferRow, to_row
from gpuscout.web.templating import money


@dataclass(frozen=True, slots=True)
class Ranked:
    rec: Recommendation
    row: OfferRow  # the offer with its age and source
    speed: str
    unit_cost: str
    total: str


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 72 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def unit_cost_label(kind: str, images: bool = False) -> str:
    if kind == "serve":
        return "$ / M output tokens"
    if kind == "batch":
        return "$ / image" if images else "$ / M output tokens"
    return "$ / M training tokens"


def total_label(kind: str) -> str:
    return "$ / month" if kind == "serve" else "Total $"


def present(rec: Recommendation, kind: str) -> Ranked:
    est, units = rec.estimate, rec.unit_costs
    speed = "—"
    if est is not None:
        speed = f"{est.throughput:,.0f} {est.throughput_unit}"
        if est.per_user_tokens_per_s is not None and kind == "serve":
            speed += f" ({est.per_user_tokens_per_s:,.0f} tok/s/user)"
        if kind != "serve" and rec.time_s is not None:
            speed += f" · {_duration(rec.time_s)}"
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
        total = money(units.per_month if kind == "serve" and units is not None else rec.cost.total, 0)
    return Ranked(rec=rec, row=to_row(rec.offer), speed=speed, unit_cost=unit, total=total)
