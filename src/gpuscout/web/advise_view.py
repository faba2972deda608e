"""How the advisor's ``Recommendation``s are shown: compact rows (speed, latency or duration, cost per
unit and in all, region and price age), the warnings every row shares said once above the table,
and, when nothing fits, which constraint binds and what dropping it would give."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuscout.advise.types import Recommendation
from gpuscout.web.model_view import gib
from gpuscout.web.offer_view import OfferRow, to_row
from gpuscout.web.templating import money

if TYPE_CHECKING:
    from gpuscout.advise.workload import AnyWorkload
    from gpuscout.web.services import WebServices


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


def duration(seconds: float | None) -> str:
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
        memory = (
            f"{gib(est.memory_per_gpu_gb):,.1f} of {gib(est.memory_capacity_gb):,.1f} GiB usable per GPU "
            f"(weights {gib(est.weights_gb):,.1f}, KV cache {gib(est.kv_cache_gb):,.1f})"
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
        total = money(units.per_month if kind == "serve" and units is not None else rec.cost.total, 0)
    own = tuple(w for w in rec.warnings if w not in shared)
    return Ranked(
        rec=rec,
        row=to_row(rec.offer),
        speed=speed,
        unit_cost=unit,
        total=total,
        latency=latency,
        warnings=own,
        memory=memory,
    )


def shared_warnings(recs: Sequence[Recommendation]) -> frozenset[str]:
    """The warnings every row carries (page-wide caveats: said once, above the table)."""
    if len(recs) < 2:
        return frozenset()
    common = set(recs[0].warnings)
    for rec in recs[1:]:
        common &= set(rec.warnings)
    return frozenset(common)


_NONE_UNIT = re.compile(r"\bNone( ?s)?\b")


def plain(text: Any) -> str:
    """An assumption's text for people: a missing figure reads "unknown", never ``None``."""
    return _NONE_UNIT.sub("unknown", str(text))


# ---- when nothing fits ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Relaxed:
    """What dropping one constraint gives: how many offers then, and the first of them."""

    constraint: str  # the form's label
    field: str
    given: str  # the value the user set
    lifted: str  # the form value that lifts it ("" for "not set")
    count: int
    best: Ranked | None


def _given(name: str, value: Any) -> str:
    """A constraint's value as the user would write it: "$10", "us-, eu-", "2000", "no"."""
    if isinstance(value, tuple):
        return ", ".join(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"${value:,}" if name.endswith("_usd") else f"{value:,}" if isinstance(value, int) else str(value)


#: Constraints a workload may set, with the value that lifts each (and its label on the form).
CONSTRAINTS: tuple[tuple[str, Any], ...] = (
    ("budget_usd", None),
    ("ttft_ms_max", None),
    ("tpot_ms_max", None),
    ("deadline_hours", None),
    ("regions", ()),
    ("providers", ()),
    ("spot_allowed", True),
    ("max_nodes", 64),
    ("gpus", None),
    ("nodes", None),
)


def binding_constraints(
    services: WebServices, workload: AnyWorkload, objective: str, labels: dict[str, str]
) -> list[Relaxed]:
    """For an empty answer: each constraint the workload sets, and what the ranking gives without it
    (one at a time). Those giving offers are the binding ones; the list says so first."""
    out: list[Relaxed] = []
    fields = type(workload).model_fields
    for name, lifted in CONSTRAINTS:
        if name not in fields:
            continue
        value = getattr(workload, name)
        if value == lifted or value in (None, ()) or (name == "spot_allowed" and value is not False):
            continue
        relaxed = workload.model_copy(update={name: lifted})
        try:
            recs = services.recommend(relaxed, objective=objective, top=None)
        except Exception:  # a relaxation the workload's own rules refuse tells nothing
            continue
        given = _given(name, value)
        best = present(recs[0], workload.kind) if recs else None
        shown = "" if lifted in (None, ()) else ("true" if lifted is True else str(lifted))
        out.append(Relaxed(labels.get(name, name), name, given, shown, len(recs), best))
    return sorted(out, key=lambda r: r.count == 0)
