"""How an ``Offer`` is shown: age and stale badge, source link, assumed variant, export rows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from gpuscout.catalog.offer import Offer
from gpuscout.catalog.offer_fields import RECORD_COLUMNS, offer_record
from gpuscout.catalog.offer_fields import csv_cell as csv_cell  # the exports' cell rule, re-exported
from gpuscout.catalog.query import STALE_AFTER as STALE_AFTER  # the catalog's rule, re-exported
from gpuscout.web.providers_view import ProviderLabel, provider_label

_URL = re.compile(r"https?://[^\s\"'<>]+")


def age(offer: Offer, now: datetime | None = None) -> timedelta | None:
    """How old the price is; ``None`` when the time it was observed is unknown (never "now")."""
    if offer.observed_at is None:
        return None
    observed = offer.observed_at
    if observed.tzinfo is None:
        observed = observed.replace(tzinfo=UTC)
    return max((now or datetime.now(UTC)) - observed, timedelta(0))


def age_text(delta: timedelta | None) -> str:
    if delta is None:
        return "unknown"
    seconds = delta.total_seconds()
    if seconds < 60:
        return "<1 min"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 48 * 3600:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} d"


def is_stale(offer: Offer, delta: timedelta | None = None) -> bool:
    """Stale by the catalog's one rule (:data:`gpuscout.catalog.query.STALE_AFTER`: flagged by its
    feed, or a live price fetched over 2 days before the store's newest), which every read of the
    store gives in ``offer.stale``. The age at the view's time (``delta``) no longer counts: a store
    refreshed three days ago is not all stale."""
    return offer.stale


def source_url(source: str) -> str | None:
    """The http(s) URL inside an offer's ``source`` (only http/https is ever turned into a link)."""
    match = _URL.search(source)
    return match.group(0) if match else None


def variant_assumed(offer: Offer) -> bool:
    """True when the source did not state the GPU's form factor and the catalog assumed the default
    variant (the bundled snapshot's plain "H100" rows, taken as H100-SXM)."""
    return offer.extra.get("variant") == "assumed"


def variant_note(offer: Offer) -> str:
    """Tooltip of the "?" marker of an assumed variant ("" when the variant was stated)."""
    if not variant_assumed(offer):
        return ""
    return f"form factor not stated by the source; assumed {offer.accelerator}"


def region_names(offer: Offer) -> list[str]:
    """The regions an offer stands for, as people read them ("country:DE" -> "DE")."""
    names = list(offer.regions) if len(offer.regions) > 1 else [offer.region]
    return [n.split(":", 1)[1] if n.startswith("country:") else n for n in names if n]


def region_text(offer: Offer, most: int = 3) -> str:
    """Regions in a cell: "us-east-1 (a)", "DE, US", "DE, US, FR +4"."""
    names = region_names(offer)
    if len(names) <= 1:
        text = names[0] if names else "—"
        return f"{text} ({offer.zone})" if offer.zone else text
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} +{len(names) - most}"


def source_label(source: str) -> str:
    feed = source.split(":", 1)[0] if not source.startswith("http") else ""
    return feed or "source"


@dataclass(frozen=True, slots=True)
class OfferRow:
    """One table row, with the derived values templates and exports need."""

    offer: Offer
    age: timedelta | None
    age_text: str
    stale: bool
    source_url: str | None
    source_label: str
    variant_assumed: bool = False
    variant_note: str = ""
    provider: ProviderLabel | None = None
    region: str = ""
    regions: tuple[str, ...] = ()  # every region the row stands for (when several)
    slice_label: str = ""  # a vGPU slice's share of one GPU ("1/20"); "" for whole GPUs
    also_listed_by: tuple[str, ...] = ()  # the aggregators also reselling it, by display name

    @property
    def age_hours(self) -> float | None:
        return age_hours(self.age)


def age_hours(delta: timedelta | None) -> float | None:
    """The age in hours as the API and the exports give it (two decimals; ``None`` when unknown)."""
    return None if delta is None else round(delta.total_seconds() / 3600, 2)


def to_row(offer: Offer, now: datetime | None = None) -> OfferRow:
    delta = age(offer, now)
    return OfferRow(
        offer=offer,
        age=delta,
        age_text=age_text(delta),
        stale=is_stale(offer, delta),
        source_url=source_url(offer.source),
        source_label=source_label(offer.source),
        variant_assumed=variant_assumed(offer),
        variant_note=variant_note(offer),
        provider=provider_label(offer.provider),
        region=region_text(offer),
        regions=tuple(region_names(offer)) if len(offer.regions) > 1 else (),
        slice_label=offer.slice_label,
        also_listed_by=tuple(provider_label(p).display_name for p in offer.also_listed_by),
    )


#: Values of the view added to each offer's fields in the exports (``stale`` is the catalog's rule, as
#: every read gives it).
VIEW_COLUMNS: tuple[str, ...] = ("age", "age_hours", "source_url", "variant_assumed")
#: The export columns: every shown ``Offer`` field and computed value (derived from the dataclass),
#: then the view's values.
EXPORT_COLUMNS: tuple[str, ...] = (*RECORD_COLUMNS, *VIEW_COLUMNS)


def export_record(row: OfferRow) -> dict[str, Any]:
    """One row of the CSV/JSON exports: the offer's fields as plain values and the view's values."""
    return {
        **offer_record(row.offer),
        "stale": row.stale,
        "age": row.age_text,
        "age_hours": row.age_hours,
        "source_url": row.source_url,
        "variant_assumed": row.variant_assumed,
    }
