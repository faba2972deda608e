"""The validation gate between a source and the store ("collect -> validate -> publish").

Row rules (a row breaking one is dropped, with the reason counted):

* **Required fields**: provider, instance type, region, source non-empty; ``gpu_count`` >= 1;
  the accelerator is a canonical name of the knowledge table; at least one price.
* **Prices**: every price given is finite and > 0, and its per-GPU-hour value lies in a
  plausible band for the accelerator. The band scales with the accelerator's memory ``m`` (GB,
  the offer's own memory for a fractional slice), which tracks price class well from a T4 to a
  B200: on-demand ``0.002*m .. 2 + 0.25*m`` USD/GPU-h (H100 80 GB: 0.16 .. 22; T4 16 GB:
  0.03 .. 6; B200 180 GB: 0.36 .. 47). Spot may go to half the lower bound. The band is wide on
  purpose: it catches unit errors (cents for dollars, per-month for per-hour, a price for 8 GPUs
  divided by 64) and garbage, not a merely unusual deal.
* **Memory**: ``gpu_memory_gb`` within 10% of the accelerator's (so a 40 GB row can never be an
  80 GB part, nor an H100 NVL an H100); a row flagged ``fractional`` may have less, never more.

Snapshot rules:

* **Duplicates** (same :attr:`Offer.key` and accelerator/count) collapse to one: the cheapest
  on-demand price wins (rows without one lose), then the most recently observed.
* **Rows the adapter dropped itself count.** An adapter drops a feed row it cannot turn into an
  offer (bad or missing price, unknown GPU, missing field) *before* the gate sees offers; those
  invalid drops are passed in (``adapter_drops``, with ``rows_seen`` feed rows) and counted with
  the gate's own invalid rows. Rows an adapter excludes by design (CPU-only types, reservation
  terms) are not invalid and are not passed. The invalid share is the share of the feed's rows
  lost: ``a + g * (1 - a)`` for an adapter share ``a`` (of feed rows) and a gate share ``g`` (of
  the offers that reached it), exact when every feed row yields as many offers.
* **Rejected** (nothing stored, the last good data stays current) when the answer is empty,
  when every row is invalid, when more than 20% of rows are invalid (a feed whose shape changed
  underneath us), or when the valid rows are fewer than 50% of the last good snapshot of the
  same source.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gpuscout.catalog.offer import Offer
from gpuscout.gc_pause import collection_paused
from gpuscout.knowledge.accelerator_types import Accelerator
from gpuscout.wording import plural

MAX_INVALID_FRACTION = 0.20
MIN_COUNT_RATIO = 0.50
MEMORY_TOLERANCE = 0.10
BAND_LOW_PER_GB = 0.002
BAND_HIGH_BASE = 2.0
BAND_HIGH_PER_GB = 0.25
SPOT_LOW_FACTOR = 0.5


@dataclass(slots=True)
class ValidationReport:
    """The gate's verdict on one source snapshot."""

    source: str
    status: str  # "ok" | "rejected"
    offers: list[Offer]  # what may be stored (empty when rejected)
    received: int  # offers that reached the gate
    invalid: int = 0  # of those, invalid (dropped by the gate)
    duplicates: int = 0
    reason: str | None = None  # why rejected, or a summary of what was dropped
    drop_reasons: dict[str, int] = field(default_factory=dict)  # adapter and gate drops, per reason
    adapter_invalid: int = 0  # feed rows the adapter dropped as invalid before the gate

    @property
    def dropped(self) -> int:
        """Every invalid row not stored: the adapter's and the gate's."""
        return self.invalid + self.adapter_invalid

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def price_band(acc: Accelerator, memory_gb: float | None = None) -> tuple[float, float]:
    """Plausible on-demand USD per GPU-hour for ``acc`` (see the module docstring)."""
    m = float(memory_gb if memory_gb is not None else acc.memory_gb)
    return BAND_LOW_PER_GB * m, BAND_HIGH_BASE + BAND_HIGH_PER_GB * m


def _accelerators() -> dict[str, Accelerator]:
    from gpuscout.knowledge.accelerators import all_accelerators

    return {a.name: a for a in all_accelerators()}


_NUMBER_TYPES = (float, int)


def row_problem(offer: Offer, accelerators: Mapping[str, Accelerator]) -> str | None:
    """Why ``offer`` is invalid (a short reason, used to count drops), or ``None`` when valid.

    A row of plain values that passes every rule is answered by the checks below, written out for
    that case (a refresh checks every row: 100,000 of a big file); any other row is answered by
    :func:`_row_problem_named`, which names the first rule it breaks. ``None`` here implies ``None``
    there (``tests/catalog/test_validate.py`` checks both agree)."""
    provider, instance_type, region, source = offer.provider, offer.instance_type, offer.region, offer.source
    count, mem, fractional = offer.gpu_count, offer.gpu_memory_gb, offer.fractional
    price, spot = offer.price_usd_per_hour, offer.spot_price_usd_per_hour
    acc = accelerators.get(offer.accelerator)
    if (
        acc is None
        or type(provider) is not str
        or type(instance_type) is not str
        or type(region) is not str
        or type(source) is not str
        or not (provider.strip() and instance_type.strip() and region.strip() and source.strip())
        or type(count) is not int
        or count < 1
        or type(mem) not in _NUMBER_TYPES
        or not 0 < mem < math.inf
        or mem > acc.memory_gb * (1 + MEMORY_TOLERANCE)
        or (mem < acc.memory_gb * (1 - MEMORY_TOLERANCE) and not fractional)
        or (price is None and spot is None)
    ):
        return _row_problem_named(offer, accelerators)
    m = float(mem if fractional else acc.memory_gb)
    low, high = BAND_LOW_PER_GB * m, BAND_HIGH_BASE + BAND_HIGH_PER_GB * m
    if price is not None and not (
        type(price) in _NUMBER_TYPES and 0 < price < math.inf and low <= price / count <= high
    ):
        return _row_problem_named(offer, accelerators)
    if spot is not None and not (
        type(spot) in _NUMBER_TYPES and 0 < spot < math.inf and low * SPOT_LOW_FACTOR <= spot / count <= high
    ):
        return _row_problem_named(offer, accelerators)
    return None


def _row_problem_named(offer: Offer, accelerators: Mapping[str, Accelerator]) -> str | None:
    """:func:`row_problem` rule by rule: the first rule ``offer`` breaks, named."""
    for name in ("provider", "instance_type", "region", "source"):
        if not str(getattr(offer, name) or "").strip():
            return f"missing {name}"
    if not isinstance(offer.gpu_count, int) or offer.gpu_count < 1:
        return "gpu_count < 1"
    acc = accelerators.get(offer.accelerator)
    if acc is None:
        return f"unknown accelerator {offer.accelerator!r}"
    mem = offer.gpu_memory_gb
    if not isinstance(mem, int | float) or not math.isfinite(mem) or mem <= 0:
        return "gpu_memory_gb missing or <= 0"
    high_mem = acc.memory_gb * (1 + MEMORY_TOLERANCE)
    low_mem = acc.memory_gb * (1 - MEMORY_TOLERANCE)
    if mem > high_mem or (mem < low_mem and not offer.fractional):
        return f"gpu_memory_gb {mem:g} inconsistent with {acc.name} ({acc.memory_gb:g} GB)"
    if offer.price_usd_per_hour is None and offer.spot_price_usd_per_hour is None:
        return "no price"
    low, high = price_band(acc, mem if offer.fractional else None)
    for label, value, floor in (
        ("price_usd_per_hour", offer.price_usd_per_hour, low),
        ("spot_price_usd_per_hour", offer.spot_price_usd_per_hour, low * SPOT_LOW_FACTOR),
    ):
        if value is None:
            continue
        if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            return f"{label} not a positive number"
        per_gpu = value / offer.gpu_count
        if not floor <= per_gpu <= high:
            return f"{label} per GPU outside the plausible band for {acc.name}"
    return None


def _better(a: Offer, b: Offer) -> bool:
    """True when ``a`` should be kept over its duplicate ``b``: cheaper, then more recent."""
    pa = a.price_usd_per_hour if a.price_usd_per_hour is not None else math.inf
    pb = b.price_usd_per_hour if b.price_usd_per_hour is not None else math.inf
    if pa != pb:
        return pa < pb
    epoch = datetime.min.replace(tzinfo=UTC)
    ta = a.observed_at or epoch
    tb = b.observed_at or epoch
    if ta.tzinfo is None:
        ta = ta.replace(tzinfo=UTC)
    if tb.tzinfo is None:
        tb = tb.replace(tzinfo=UTC)
    return ta > tb


def collapse_duplicates(offers: Sequence[Offer]) -> tuple[list[Offer], int]:
    """One offer per identity (keep cheapest, then most recent); returns (offers, removed)."""
    kept: dict[tuple[object, ...], Offer] = {}
    for offer in offers:
        key = (*offer.key, offer.accelerator, offer.gpu_count)
        have = kept.get(key)
        if have is None or _better(offer, have):
            kept[key] = offer
    return list(kept.values()), len(offers) - len(kept)


def _summary(reasons: Counter[str], limit: int = 3) -> str:
    text = "; ".join(f"{n}x {r}" for r, n in reasons.most_common(limit))
    if len(reasons) > limit:
        text += f"; {sum(reasons.values()) - sum(n for _, n in reasons.most_common(limit))}x other reasons"
    return text


def validate_offers(
    source: str,
    offers: Sequence[Offer],
    *,
    last_good_count: int | None = None,
    accelerators: Mapping[str, Accelerator] | None = None,
    problem: Callable[[Offer, Mapping[str, Accelerator]], str | None] = row_problem,
    adapter_drops: Mapping[str, int] | None = None,
    rows_seen: int | None = None,
) -> ValidationReport:
    """Apply the gate to one source's fetched offers (see the module docstring).

    ``adapter_drops`` counts, per reason, the feed rows the adapter dropped as invalid;
    ``rows_seen`` is how many feed rows the adapter read (including those), when it knows.
    """
    received = len(offers)
    reasons: Counter[str] = Counter({r: n for r, n in (adapter_drops or {}).items() if n > 0})
    adapter_invalid = sum(reasons.values())
    # the feed rows the adapter looked at; without a count, each offer stands for one feed row
    feed_rows = max(rows_seen, adapter_invalid) if rows_seen else adapter_invalid + received
    if received == 0:
        report = ValidationReport(source, "rejected", [], 0, adapter_invalid=adapter_invalid)
        report.drop_reasons = dict(reasons)
        report.reason = (
            f"all {adapter_invalid} {plural(adapter_invalid, 'row')} invalid: {_summary(reasons)}"
            if adapter_invalid
            else "empty answer: the source returned no offers"
        )
        return report
    accs = dict(accelerators) if accelerators is not None else _accelerators()
    good: list[Offer] = []
    gate: Counter[str] = Counter()
    with collection_paused(received):
        for offer in offers:
            why = problem(offer, accs)
            if why is None:
                good.append(offer)
            else:
                gate[why] += 1
    invalid = received - len(good)
    reasons.update(gate)
    report = ValidationReport(
        source,
        "ok",
        [],
        received,
        invalid=invalid,
        drop_reasons=dict(reasons),
        adapter_invalid=adapter_invalid,
    )
    total_bad = invalid + adapter_invalid
    if not good:
        report.status = "rejected"
        report.reason = f"all {total_bad} {plural(total_bad, 'row')} invalid: {_summary(reasons)}"
        return report
    adapter_share = min(1.0, adapter_invalid / feed_rows) if feed_rows else 0.0
    gate_share = invalid / received
    share = adapter_share + gate_share * (1 - adapter_share)
    if share > MAX_INVALID_FRACTION:
        report.status = "rejected"
        limit = f"more than {MAX_INVALID_FRACTION:.0%}"
        if adapter_invalid and rows_seen:
            counted = f"{total_bad} invalid ({share:.0%} of {rows_seen} feed rows, {limit})"
        else:
            counted = f"{total_bad} of {received + adapter_invalid} rows invalid ({limit})"
        report.reason = f"{counted}: {_summary(reasons)}"
        return report
    with collection_paused(len(good)):
        collapsed, duplicates = collapse_duplicates(good)
    report.duplicates = duplicates
    if last_good_count and len(collapsed) < MIN_COUNT_RATIO * last_good_count:
        report.status = "rejected"
        report.reason = (
            f"row count dropped to {len(collapsed)} from {last_good_count} in the last good snapshot "
            f"(below {MIN_COUNT_RATIO:.0%})"
        )
        return report
    report.offers = collapsed
    notes = []
    if total_bad:
        notes.append(f"dropped {total_bad} invalid {plural(total_bad, 'row')}: {_summary(reasons)}")
    if duplicates:
        notes.append(f"collapsed {duplicates} {plural(duplicates, 'duplicate')}")
    report.reason = "; ".join(notes) or None
    return report
